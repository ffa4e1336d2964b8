//! `-r`: walking directories by their handles, so that the walk never
//! leaves its tree.
//!
//! Each directory is opened relative to its parent's handle without
//! following a symbolic link (`openat` with `O_NOFOLLOW | O_DIRECTORY`) and
//! listed through its own handle; the files found are then opened, written
//! next to and removed (`--rm`) relative to their directory's handle
//! (`openat`, `renameat`, `unlinkat`), never through a path. A directory
//! swapped for a symbolic link while lzkit runs (another process doing
//! `renameat2(RENAME_EXCHANGE)` in a loop) is then either not found, or
//! found as a link and not followed: no file outside the tree is read,
//! written or removed.
//!
//! Only the directory being listed is held open during the walk (and its
//! ancestors), so a tree of any number of directories needs no more
//! descriptors than its depth. A file's directory is opened again when the
//! file is processed, component by component from the named directory's
//! handle (held for the whole run), each without following links, and must
//! be the directory the walk listed (device and inode): a directory renamed
//! or replaced meanwhile fails that check and its files are skipped.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

/// Flags that open a directory and nothing else, never through a link.
fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// A device and inode number.
pub type Identity = (u64, u64);

/// The device and inode of an open file or directory.
pub fn identity_of(fd: BorrowedFd<'_>) -> io::Result<Identity> {
    let st = rustix::fs::fstat(fd)?;
    Ok(stat_identity(&st))
}

#[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
fn stat_identity(st: &rustix::fs::Stat) -> Identity {
    (st.st_dev as u64, st.st_ino as u64)
}

/// A directory found by the walk: how to reach it again from the named
/// directory without following links, and which directory it was.
#[derive(Debug)]
pub struct DirRef {
    /// The directory named on the command line, open for the whole run.
    root: Arc<OwnedFd>,
    /// The names from `root` down to this directory.
    components: Vec<OsString>,
    /// The directory the walk listed.
    id: Identity,
    /// Its path, for messages and output names.
    path: PathBuf,
}

impl DirRef {
    /// Open the directory again (see the module's notes): an error when a
    /// component is no longer a directory (a link put in its place) or the
    /// directory reached is not the one that was listed.
    pub fn open(&self) -> io::Result<Arc<OwnedFd>> {
        let mut current: Option<OwnedFd> = None;
        for name in &self.components {
            let parent = match &current {
                Some(fd) => fd.as_fd(),
                None => self.root.as_fd(),
            };
            current = Some(rustix::fs::openat(
                parent,
                name.as_os_str(),
                dir_flags(),
                Mode::empty(),
            )?);
        }
        let fd = match current {
            Some(fd) => Arc::new(fd),
            None => Arc::clone(&self.root),
        };
        if identity_of(fd.as_fd())? != self.id {
            return Err(io::Error::other(
                "directory changed since it was read (renamed or replaced)",
            ));
        }
        Ok(fd)
    }

    /// The directory's path as the walk saw it.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A regular file found by the walk.
pub struct FoundFile {
    /// Its path (for messages, and output names made from it).
    pub path: PathBuf,
    /// Its directory.
    pub dir: Arc<DirRef>,
    /// Its name in the directory.
    pub name: OsString,
    /// The file the walk saw.
    pub id: Identity,
}

/// What the walk meets.
pub enum Event {
    /// A regular file.
    File(FoundFile),
    /// Anything else that is not a directory (a link, a device, a FIFO),
    /// or a directory that became one of those before it was opened.
    Other(PathBuf),
    /// A directory that could not be opened or read.
    Error(PathBuf, io::Error),
}

/// Walk the directory `top` (a link named on the command line is followed:
/// the user named it), reporting each entry to `visit` in name order.
pub fn walk(top: &Path, visit: &mut dyn FnMut(Event)) {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let root = match rustix::fs::open(top, flags, Mode::empty()) {
        Ok(fd) => Arc::new(fd),
        Err(e) => return visit(Event::Error(top.to_path_buf(), e.into())),
    };
    let id = match identity_of(root.as_fd()) {
        Ok(id) => id,
        Err(e) => return visit(Event::Error(top.to_path_buf(), e)),
    };
    let dir = Arc::new(DirRef {
        root: Arc::clone(&root),
        components: Vec::new(),
        id,
        path: top.to_path_buf(),
    });
    walk_dir(root.as_fd(), &dir, visit);
}

/// List the directory open as `fd` (described by `dir`), recursively.
fn walk_dir(fd: BorrowedFd<'_>, dir: &Arc<DirRef>, visit: &mut dyn FnMut(Event)) {
    let names = match list(fd) {
        Ok(names) => names,
        Err(e) => return visit(Event::Error(dir.path.clone(), e)),
    };
    for name in names {
        let path = dir.path.join(&name);
        let Ok(st) = rustix::fs::statat(fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) else {
            // Gone since it was listed.
            continue;
        };
        match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => {
                let sub = match rustix::fs::openat(fd, name.as_os_str(), dir_flags(), Mode::empty())
                {
                    Ok(sub) => sub,
                    // Replaced by a link (ELOOP) or a file since the stat:
                    // not followed.
                    Err(e) if e == rustix::io::Errno::LOOP || e == rustix::io::Errno::NOTDIR => {
                        visit(Event::Other(path));
                        continue;
                    }
                    Err(e) if e == rustix::io::Errno::NOENT => continue,
                    Err(e) => {
                        visit(Event::Error(path, e.into()));
                        continue;
                    }
                };
                let id = match identity_of(sub.as_fd()) {
                    Ok(id) => id,
                    Err(e) => {
                        visit(Event::Error(path, e));
                        continue;
                    }
                };
                let mut components = dir.components.clone();
                components.push(name);
                let child = Arc::new(DirRef {
                    root: Arc::clone(&dir.root),
                    components,
                    id,
                    path,
                });
                walk_dir(sub.as_fd(), &child, visit);
            }
            FileType::RegularFile => visit(Event::File(FoundFile {
                path,
                dir: Arc::clone(dir),
                name,
                id: stat_identity(&st),
            })),
            _ => visit(Event::Other(path)),
        }
    }
}

/// The names in the directory open as `fd`, sorted, without `.` and `..`.
fn list(fd: BorrowedFd<'_>) -> io::Result<Vec<OsString>> {
    let mut names = Vec::new();
    for entry in Dir::read_from(fd)? {
        let entry = entry?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name != "." && name != ".." {
            names.push(name.to_os_string());
        }
    }
    names.sort();
    Ok(names)
}

/// Open the file `name` in the directory `dir` for reading, never through
/// a link, and only if it is a regular file (a FIFO put there meanwhile
/// must not block the open: it is opened non-blocking, then refused).
pub fn open_file(dir: &OwnedFd, name: &OsStr) -> io::Result<File> {
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK;
    let fd = rustix::fs::openat(dir.as_fd(), name, flags, Mode::empty())?;
    let st = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(io::Error::other("is no longer a regular file"));
    }
    let flags = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, flags - OFlags::NONBLOCK)?;
    Ok(File::from(fd))
}

/// The identity of what `name` in `dir` is now (a link is not followed),
/// or `None` if there is nothing by that name.
pub fn identity_at(dir: &OwnedFd, name: &OsStr) -> io::Result<Option<Identity>> {
    match rustix::fs::statat(dir.as_fd(), name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some(stat_identity(&st))),
        Err(e) if e == rustix::io::Errno::NOENT => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// What `name` in `dir` is, if anything (a link is not followed).
pub fn file_type_at(dir: &OwnedFd, name: &OsStr) -> io::Result<Option<(FileType, Identity)>> {
    match rustix::fs::statat(dir.as_fd(), name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some((
            FileType::from_raw_mode(st.st_mode),
            stat_identity(&st),
        ))),
        Err(e) if e == rustix::io::Errno::NOENT => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Remove the file `name` from the directory `dir`.
pub fn remove_file(dir: &OwnedFd, name: &OsStr) -> io::Result<()> {
    rustix::fs::unlinkat(dir.as_fd(), name, AtFlags::empty()).map_err(io::Error::from)
}
