//! Where output goes: standard output, nowhere, or a file that only appears
//! once it is complete.
//!
//! File output is written to a temporary file in the destination directory
//! and renamed over the destination only after everything succeeded, so an
//! error (corrupt input, full disk, a panic) never leaves a partial file
//! under the final name. Dropping an unfinished [`Sink`] deletes the
//! temporary file, and so does an interrupt (Ctrl-C, `SIGTERM`, `SIGHUP`):
//! [`remove_on_interrupt`] installs a handler that deletes every temporary
//! file still open and exits with status 130, as zstd does.

use std::fs::{self, FileTimes, Metadata};
use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use tempfile::NamedTempFile;

use super::report::{Failure, PROGRAM};

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
        _live: Live,
    },
}

/// Temporary files not yet renamed to their final names nor deleted: what
/// the interrupt handler deletes. Renaming one happens under this lock, so
/// an interrupt sees each file either complete under its final name or
/// still here.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The registry, even if a thread panicked while holding it (a panic
/// leaves the list itself consistent: it only pushes and retains).
fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A temporary file's entry in [`LIVE`], removed when dropped (with the
/// file, deleted by `NamedTempFile`, or after the file was renamed).
struct Live(PathBuf);

impl Live {
    fn register(path: &Path) -> Live {
        live().push(path.to_path_buf());
        Live(path.to_path_buf())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        live().retain(|p| *p != self.0);
    }
}

/// Status of a process ended by an interrupt (128 + SIGINT), as shells
/// report it.
pub const INTERRUPTED: i32 = 130;

/// Install the interrupt handler: on Ctrl-C, `SIGTERM` or `SIGHUP`, delete
/// every temporary output file still open, say so, and exit with status
/// [`INTERRUPTED`]. Without it the default action ends the process before
/// any destructor runs, leaving `.lzkit-*.tmp` files behind. Installing it
/// twice is harmless (the second call fails and changes nothing).
pub fn remove_on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        // Holding the lock until exit: no rename can start after this.
        let files = live();
        for path in files.iter() {
            let _ = fs::remove_file(path);
        }
        eprintln!("{PROGRAM}: interrupted; no incomplete output file was left");
        std::process::exit(INTERRUPTED);
    });
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
                    _live: Live::register(tmp.path()),
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
            Dest::File {
                writer,
                path,
                _live,
            } => {
                let name = path.display().to_string();
                let tmp = writer
                    .into_inner()
                    .map_err(|e| Failure::io(&name, e.error()))?;
                if let Some(meta) = source {
                    copy_metadata(tmp.as_file(), meta).map_err(|e| Failure::io(&name, &e))?;
                }
                let tmp_path = tmp.path().to_path_buf();
                let result = {
                    // The rename and the unregistering under one lock (see
                    // LIVE); `_live`'s drop then finds nothing to remove.
                    let mut files = live();
                    let result = if overwrite {
                        tmp.persist(&path)
                    } else {
                        tmp.persist_noclobber(&path)
                    };
                    if result.is_ok() {
                        files.retain(|p| *p != tmp_path);
                    }
                    result
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
