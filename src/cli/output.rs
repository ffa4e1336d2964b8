//! Where output goes: standard output, nowhere, or a file that only appears
//! once it is complete.
//!
//! File output is written to a temporary file in the destination directory
//! and renamed over the destination only after everything succeeded, so an
//! error (corrupt input, full disk, a panic) never leaves a partial file
//! under the final name. Dropping an unfinished [`Sink`] deletes the
//! temporary file.

use std::fs::{self, FileTimes, Metadata};
use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::report::Failure;

/// Size of the output buffer: large writes keep system calls rare.
pub const BUFFER_SIZE: usize = 1 << 20;

/// The destination of one operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Standard output.
    Stdout,
    /// Discard (`-t`, or the output name `null`).
    Null,
    /// A file.
    File(PathBuf),
}

impl Target {
    /// Interpret an output name given on the command line: `-` and `stdout`
    /// mean standard output and `null` discards, as in lz4.
    pub fn from_arg(name: &std::ffi::OsStr) -> Target {
        if name == "-" || name == "stdout" {
            Target::Stdout
        } else if name == "null" {
            Target::Null
        } else {
            Target::File(PathBuf::from(name))
        }
    }

    /// Name for messages.
    pub fn display_name(&self) -> String {
        match self {
            Target::Stdout => "stdout".into(),
            Target::Null => "null".into(),
            Target::File(p) => p.display().to_string(),
        }
    }
}

enum Dest {
    Stdout(BufWriter<StdoutLock<'static>>),
    Null,
    File {
        writer: BufWriter<NamedTempFile>,
        path: PathBuf,
    },
}

/// An open destination that counts the bytes written to it.
pub struct Sink {
    dest: Dest,
    written: u64,
}

impl Sink {
    /// Open `target`. For a file this creates the temporary file next to it.
    pub fn open(target: &Target) -> Result<Sink, Failure> {
        let dest = match target {
            Target::Stdout => {
                Dest::Stdout(BufWriter::with_capacity(BUFFER_SIZE, io::stdout().lock()))
            }
            Target::Null => Dest::Null,
            Target::File(path) => {
                let tmp = temp_file_for(path).map_err(|e| {
                    Failure::new(
                        target.display_name(),
                        format!(
                            "cannot create a temporary file in its directory: {}",
                            super::report::describe_io(&e)
                        ),
                    )
                })?;
                Dest::File {
                    writer: BufWriter::with_capacity(BUFFER_SIZE, tmp),
                    path: path.clone(),
                }
            }
        };
        Ok(Sink { dest, written: 0 })
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Complete the output: flush, give a file the source's permissions and
    /// times (when there is a source file), and move it to its final name.
    /// `overwrite` allows replacing an existing file; without it the rename
    /// fails if a file appeared there in the meantime.
    pub fn finish(self, source: Option<&Metadata>, overwrite: bool) -> Result<(), Failure> {
        match self.dest {
            Dest::Stdout(mut w) => w.flush().map_err(|e| Failure::io("stdout", &e)),
            Dest::Null => Ok(()),
            Dest::File { writer, path } => {
                let name = path.display().to_string();
                let tmp = writer
                    .into_inner()
                    .map_err(|e| Failure::io(&name, e.error()))?;
                if let Some(meta) = source {
                    copy_metadata(tmp.as_file(), meta).map_err(|e| Failure::io(&name, &e))?;
                }
                let result = if overwrite {
                    tmp.persist(&path)
                } else {
                    tmp.persist_noclobber(&path)
                };
                // On failure the PersistError still owns the temporary file,
                // and dropping it here deletes it.
                result.map(drop).map_err(|e| Failure::io(&name, &e.error))
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = match &mut self.dest {
            Dest::Stdout(w) => w.write(buf)?,
            Dest::Null => buf.len(),
            Dest::File { writer, .. } => writer.write(buf)?,
        };
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.dest {
            Dest::Stdout(w) => w.flush(),
            Dest::Null => Ok(()),
            Dest::File { writer, .. } => writer.flush(),
        }
    }
}

/// A hidden temporary file in the directory of `path` (so the final rename
/// stays on one file system and is atomic).
fn temp_file_for(path: &Path) -> io::Result<NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".lzkit-").suffix(".tmp");
    #[cfg(unix)]
    {
        // tempfile creates 0600 files by default; ask for 0666 so that the
        // umask decides, as for any new file (matters for stdin input, where
        // no source permissions are copied).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Give `file` the permissions and access/modification times of `source`.
fn copy_metadata(file: &fs::File, source: &Metadata) -> io::Result<()> {
    file.set_permissions(source.permissions())?;
    let mut times = FileTimes::new();
    if let Ok(t) = source.accessed() {
        times = times.set_accessed(t);
    }
    if let Ok(t) = source.modified() {
        times = times.set_modified(t);
    }
    file.set_times(times)
}
