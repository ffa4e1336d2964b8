//! The inputs: named on the command line or found by `-r`, opened without
//! following links, and checked to be the files the walk saw.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Metadata};
use std::io::{self, IsTerminal, Read, Seek};
use std::path::Path;
use std::sync::Arc;

use super::super::args::{Input, Options};
use super::super::output::{self};
use super::super::report::{Failure, Reporter};
#[cfg(unix)]
use super::super::walk;
use super::Job;
use super::dictionary::is_stdin_dictionary;

/// An opened input: the reader and, for files, their metadata.
pub(super) struct Opened {
    pub(super) reader: Box<dyn Read + Send>,
    pub(super) meta: Option<Metadata>,
    /// The file itself, for positional reads through a seek table.
    pub(super) file: Option<File>,
}

/// An input to process: named on the command line, or found by `-r` in a
/// directory that was.
pub(super) struct Found {
    pub(super) input: Input,
    /// Found inside a directory (`-r`) rather than named: files of the
    /// other kind (compressed or not) are then skipped, not refused.
    pub(super) in_directory: bool,
    /// The file the walk saw (device and inode): the one opened, and the
    /// one removed by `--rm`, must be that file, not one that a renamed
    /// directory or a symbolic link put at its path meanwhile.
    pub(super) seen: Option<(u64, u64)>,
    /// Found by `-r`: its directory and its name there. The file is opened,
    /// written next to and removed relative to that directory's handle
    /// (see [`super::super::walk`]), never through its path.
    #[cfg(unix)]
    pub(super) at: Option<(Arc<walk::DirRef>, OsString)>,
}

impl Found {
    pub(super) fn name(&self) -> String {
        self.input.name()
    }
}

/// The inputs named on the command line, with directories expanded when
/// `-r` was given (in name order; symbolic links are not followed, so a
/// link cannot make the walk loop or leave the tree, and each file found
/// is checked to be the same file when it is opened and removed). Returns
/// them, and whether the walk met no error.
pub(super) fn collect_inputs(
    named: &[OsString],
    opts: &Options,
    rep: &Reporter,
) -> (Vec<Found>, bool) {
    let mut found = Vec::new();
    let mut ok = true;
    for arg in named {
        let input = Input::from_arg(arg);
        if opts.recursive
            && let Input::File(path) = &input
            && fs::metadata(path).is_ok_and(|m| m.is_dir())
        {
            ok &= walk(path, &mut found, rep);
            continue;
        }
        found.push(Found {
            input,
            in_directory: false,
            seen: None,
            #[cfg(unix)]
            at: None,
        });
    }
    (found, ok)
}

/// Add the regular files under `dir` to `found`, recursively, walking by
/// directory handles (see [`super::super::walk`]). Returns whether every
/// directory could be read.
#[cfg(unix)]
fn walk(dir: &Path, found: &mut Vec<Found>, rep: &Reporter) -> bool {
    let mut ok = true;
    walk::walk(dir, &mut |event| match event {
        walk::Event::File(file) => found.push(Found {
            input: Input::File(file.path),
            in_directory: true,
            seen: Some(file.id),
            at: Some((file.dir, file.name)),
        }),
        walk::Event::Other(path) => rep.summary(format!(
            "{}: not a regular file (links are not followed with -r) -- ignored",
            path.display()
        )),
        walk::Event::Error(path, e) => {
            rep.failure(&Failure::io(path.display().to_string(), &e));
            ok = false;
        }
    });
    ok
}

/// Add the regular files under `dir` to `found`, recursively. Returns
/// whether every directory could be read.
#[cfg(not(unix))]
fn walk(dir: &Path, found: &mut Vec<Found>, rep: &Reporter) -> bool {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            rep.failure(&Failure::io(dir.display().to_string(), &e));
            return false;
        }
    };
    let mut ok = true;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            ok &= walk(&path, found, rep);
        } else if meta.is_file() {
            found.push(Found {
                input: Input::File(path),
                in_directory: true,
                seen: identity(&meta),
            });
        } else {
            rep.summary(format!(
                "{}: not a regular file (links are not followed with -r) -- ignored",
                path.display()
            ));
        }
    }
    ok
}

/// The directory of a file found by `-r`, opened again (see
/// [`walk::DirRef::open`]); `name` is the file's, for messages.
#[cfg(unix)]
pub(super) fn held_directory(
    dir: &walk::DirRef,
    name: &str,
) -> Result<Arc<std::os::fd::OwnedFd>, Failure> {
    dir.open().map_err(|e| {
        let changed = e.kind() == io::ErrorKind::Other
            || matches!(
                e.raw_os_error(),
                Some(libc::ELOOP | libc::ENOTDIR | libc::ENOENT)
            );
        if changed {
            Failure::new(
                name,
                "its directory changed since it was read (renamed, or a link put in its place); skipped",
            )
        } else {
            Failure::io(dir.path().display().to_string(), &e)
        }
    })
}

/// Open the file `name` found by `-r` in the directory `dir`, never
/// through a link.
#[cfg(unix)]
pub(super) fn open_found(
    dir: &std::os::fd::OwnedFd,
    name: &OsStr,
    shown: &str,
) -> Result<Opened, Failure> {
    let file = walk::open_file(dir, name).map_err(|e| {
        if e.kind() == io::ErrorKind::Other || e.raw_os_error() == Some(libc::ELOOP) {
            Failure::new(
                shown,
                "changed since the directory was read (no longer a regular file); skipped",
            )
        } else {
            Failure::io(shown, &e)
        }
    })?;
    let meta = file.metadata().map_err(|e| Failure::io(shown, &e))?;
    Ok(Opened {
        file: file.try_clone().ok(),
        reader: Box::new(file),
        meta: Some(meta),
    })
}

/// For an input found by `-r` whose output `out` is in the same directory
/// (the output name made from the input's): the directory's handle and
/// the output's name in it.
#[cfg(unix)]
pub(super) fn same_directory<'a>(
    held: &'a Option<(Arc<std::os::fd::OwnedFd>, &OsStr)>,
    input: &Input,
    out: &'a Path,
) -> Option<(&'a Arc<std::os::fd::OwnedFd>, &'a OsStr)> {
    let (dir, _) = held.as_ref()?;
    let Input::File(src) = input else {
        return None;
    };
    let name = out.file_name()?;
    (out.parent() == src.parent()).then_some((dir, name))
}

/// Standard input's metadata when it is a regular file (`< FILE`).
pub(super) fn stdin_file_metadata() -> Option<Metadata> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        let mut file = File::from(fd);
        // Only from its start: `(head -c 10; lzkit) < FILE` has less left.
        if file.stream_position().ok()? != 0 {
            return None;
        }
        file.metadata().ok().filter(Metadata::is_file)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A file's device and inode, where the platform has them.
pub(super) fn identity(meta: &Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// Whether two metadata describe the same file (never claimed where there
/// is no [`identity`], rather than refuse valid work).
pub(super) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    identity(a).is_some_and(|id| identity(b) == Some(id))
}

impl Job {
    /// Open an input, refusing a terminal (unless -f) and directories.
    pub(super) fn open_input(&self, input: &Input) -> Result<Opened, Failure> {
        match input {
            Input::Stdin => {
                if let Some(closed) = output::stdin_closed() {
                    return Err(closed);
                }
                if self
                    .opts
                    .dictionary
                    .as_deref()
                    .is_some_and(is_stdin_dictionary)
                {
                    return Err(Failure::new(
                        "stdin",
                        "standard input holds the dictionary (-D stdin): name the input file",
                    ));
                }
                if io::stdin().is_terminal() && !self.opts.force {
                    return Err(Failure::new(
                        "stdin",
                        "refusing to read from a terminal; use -f to force",
                    ));
                }
                Ok(Opened {
                    // Not locked: the reader may be read on another thread
                    // (recompress decodes on one); reads are large.
                    reader: Box::new(io::stdin()),
                    meta: None,
                    file: None,
                })
            }
            Input::File(path) => {
                let name = input.name();
                let file = File::open(path).map_err(|e| Failure::io(&name, &e))?;
                let meta = file.metadata().map_err(|e| Failure::io(&name, &e))?;
                if meta.is_dir() {
                    return Err(Failure::new(
                        name,
                        "is a directory (use -r to process the files in it)",
                    ));
                }
                Ok(Opened {
                    file: file.try_clone().ok(),
                    reader: Box::new(file),
                    meta: Some(meta),
                })
            }
        }
    }
}
