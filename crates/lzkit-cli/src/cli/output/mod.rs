//! Where output goes: standard output, nowhere, or a file that only appears
//! once it is complete.
//!
//! File output is written to a temporary file in the destination directory
//! and renamed over the destination only after everything succeeded, so an
//! error (corrupt input, full disk, a panic) never leaves a partial file
//! under the final name. Dropping an unfinished [`Sink`] deletes the
//! temporary file, and so does an interrupt (Ctrl-C, `SIGTERM`, `SIGHUP`):
//! [`remove_on_interrupt`] installs a handler that deletes every temporary
//! file still open and exits with status 130, as zstd does (a signal that
//! was ignored when lzkit started, as under `nohup`, stays ignored).
//!
//! Files found by `-r` are written in the directory held open since the
//! walk ([`Placement::AtomicIn`]): the temporary file is created, renamed
//! and deleted relative to that directory's handle, so a directory swapped
//! for a symbolic link meanwhile never sends the output outside the tree.

use std::ffi::OsString;
use std::fs::{self, FileTimes, Metadata};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
#[cfg(unix)]
use std::{os::fd::OwnedFd, sync::Arc};

use tempfile::NamedTempFile;

use super::report::{Failure, describe_io};

mod interrupt;
mod stdio;

pub use interrupt::remove_on_interrupt;
use interrupt::{Live, Pending, live};
use stdio::{STDOUT_CLOSED, StdoutWriter, names_stdout};
pub use stdio::{guard_standard_streams, stdin_closed, stdout_writer};

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

/// How a file output is written, decided by [`examine`] before any work.
#[derive(Debug, Clone)]
pub enum Placement {
    /// A regular file: written under a temporary name in the directory of
    /// `path` and renamed to `path` when complete. `replace` allows the
    /// rename to replace an existing file there.
    Atomic {
        /// Where the file ends up (a symbolic link's target, resolved).
        path: PathBuf,
        /// Whether an existing file may be replaced.
        replace: bool,
    },
    /// An existing character device or FIFO (`/dev/null`, a named pipe):
    /// written in place, never replaced by a regular file.
    Stream(PathBuf),
    /// A regular file named `name` in the directory `dir` (held open since
    /// `-r` found the input there): written as [`Placement::Atomic`], with
    /// the temporary file created, renamed and removed relative to `dir`,
    /// so that no path is resolved again.
    #[cfg(unix)]
    AtomicIn {
        /// The directory's handle.
        dir: Arc<OwnedFd>,
        /// The output's name in it (no `/`).
        name: OsString,
        /// Whether an existing file may be replaced.
        replace: bool,
    },
}

impl Placement {
    /// Whether the output replaces an existing file when renamed.
    pub fn replaces(&self) -> bool {
        match self {
            Placement::Atomic { replace, .. } => *replace,
            #[cfg(unix)]
            Placement::AtomicIn { replace, .. } => *replace,
            Placement::Stream(_) => false,
        }
    }
}

/// What exists at an output path.
#[derive(Debug)]
pub enum Existing {
    /// Nothing: the file is created.
    Absent,
    /// A regular file (at `path`: the name given, or the target of the
    /// symbolic link given).
    Regular {
        /// The file's resolved path.
        path: PathBuf,
        /// Its metadata.
        meta: Metadata,
    },
    /// A character device or a FIFO, at its resolved path.
    Stream {
        /// The resolved path.
        path: PathBuf,
        /// Its metadata.
        meta: Metadata,
    },
}

/// Look at what `out` names. A symbolic link is followed deliberately: the
/// rules below apply to its target, and a regular target is replaced by
/// a rename onto the target, so the link stays a link. A directory, a
/// block device, a socket and a link to nothing are refused: lzkit never
/// replaces something that is not a regular file.
pub fn examine(out: &Path) -> Result<Existing, Failure> {
    let name = out.display().to_string();
    // `/dev/stdout` with standard output closed would otherwise be the
    // `/dev/null` that fills descriptor 1: data sent nowhere.
    if STDOUT_CLOSED.load(Ordering::Relaxed) && names_stdout(out) {
        return Err(Failure::new(
            name,
            "standard output is closed; nothing can be written (redirect it, or name an output file)",
        ));
    }
    let meta = match fs::symlink_metadata(out) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::Absent),
        Err(e) => return Err(Failure::io(name, &e)),
    };
    let (path, meta) = if meta.file_type().is_symlink() {
        match fs::canonicalize(out) {
            Ok(target) => {
                let meta = fs::metadata(&target).map_err(|e| Failure::io(&name, &e))?;
                (target, meta)
            }
            // A link into /proc to a pipe (/dev/stdout, `>(cmd)`) has no
            // name to resolve to, but opens: written in place.
            Err(_) => match fs::metadata(out) {
                Ok(meta) if is_stream(&meta) => {
                    return Ok(Existing::Stream {
                        path: out.to_path_buf(),
                        meta,
                    });
                }
                _ => {
                    return Err(Failure::new(
                        &name,
                        "is a symbolic link to a missing file; not followed",
                    ));
                }
            },
        }
    } else {
        (out.to_path_buf(), meta)
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(Existing::Regular { path, meta });
    }
    if kind.is_dir() {
        return Err(Failure::new(name, "is a directory"));
    }
    if is_stream(&meta) {
        return Ok(Existing::Stream { path, meta });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_block_device() {
            return Err(Failure::new(
                name,
                "is a block device; lzkit writes only to files, character devices and FIFOs",
            ));
        }
        if kind.is_socket() {
            return Err(Failure::new(name, "is a socket; cannot write to it"));
        }
    }
    Err(Failure::new(name, "is not a regular file; not replaced"))
}

/// Whether `meta` is a character device or a FIFO: written in place.
fn is_stream(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_char_device() || meta.file_type().is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

enum Dest {
    Stdout(BufWriter<StdoutWriter>),
    Null,
    /// A character device or FIFO, written in place.
    Stream {
        writer: BufWriter<fs::File>,
    },
    File {
        writer: BufWriter<PlainTemp>,
        path: PathBuf,
        /// The permissions a new file gets here (0666 less the umask):
        /// the output's when there is no source file to copy them from.
        /// Until it is complete the file is readable by its owner only.
        fresh: fs::Permissions,
        _live: Live,
    },
    /// A regular file written in a directory held open
    /// ([`Placement::AtomicIn`]).
    #[cfg(unix)]
    FileIn {
        writer: BufWriter<at::TempIn>,
        /// The final name in the temporary file's directory.
        name: OsString,
        /// As for `File`.
        fresh: fs::Permissions,
    },
}

/// An open destination that counts the bytes written to it.
pub struct Sink {
    dest: Dest,
    written: u64,
}

impl Sink {
    /// Open `target`; a file output is written as `placement` says (see
    /// [`examine`]). For a regular file this creates the temporary file
    /// next to its final name.
    pub fn open(target: &Target, placement: Option<&Placement>) -> Result<Sink, Failure> {
        let dest = match (target, placement) {
            (Target::Stdout, _) => {
                Dest::Stdout(BufWriter::with_capacity(BUFFER_SIZE, stdout_writer()?))
            }
            (Target::Null, _) => Dest::Null,
            (Target::File(shown), Some(Placement::Stream(path))) => {
                let name = shown.display().to_string();
                let file = fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| Failure::io(&name, &e))?;
                // What was opened must still be a device or FIFO: a
                // regular file put there meanwhile would be overwritten in
                // place, not replaced atomically.
                let opened = file.metadata().map_err(|e| Failure::io(&name, &e))?;
                if !is_stream(&opened) {
                    return Err(Failure::new(
                        name,
                        "changed while being opened (no longer a device or FIFO); not written",
                    ));
                }
                Dest::Stream {
                    writer: BufWriter::with_capacity(BUFFER_SIZE, file),
                }
            }
            #[cfg(unix)]
            (Target::File(_), Some(Placement::AtomicIn { dir, .. })) => {
                let name = target.display_name();
                let tmp = at::TempIn::create(dir)
                    .map_err(|e| Failure::new(&name, cannot_create(Path::new(&name), &e)))?;
                let private = |e: io::Error| Failure::io(&name, &e);
                let fresh = tmp.file().metadata().map_err(private)?.permissions();
                {
                    use std::os::unix::fs::PermissionsExt;
                    tmp.file()
                        .set_permissions(fs::Permissions::from_mode(0o600))
                        .map_err(private)?;
                }
                let Some(Placement::AtomicIn {
                    name: final_name, ..
                }) = placement
                else {
                    unreachable!("matched above")
                };
                Dest::FileIn {
                    writer: BufWriter::with_capacity(BUFFER_SIZE, tmp),
                    name: final_name.clone(),
                    fresh,
                }
            }
            (Target::File(shown), placement) => {
                let path = match placement {
                    Some(Placement::Atomic { path, .. }) => path,
                    _ => shown,
                };
                let tmp = temp_file_for(path)
                    .map_err(|e| Failure::new(target.display_name(), cannot_create(path, &e)))?;
                let live = Live::register(tmp.path());
                let private = |e: io::Error| Failure::io(target.display_name(), &e);
                let fresh = tmp.as_file().metadata().map_err(private)?.permissions();
                // Private while written: a source readable by its owner
                // only must not be readable by others half-way.
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    tmp.as_file()
                        .set_permissions(fs::Permissions::from_mode(0o600))
                        .map_err(private)?;
                }
                Dest::File {
                    _live: live,
                    writer: BufWriter::with_capacity(BUFFER_SIZE, PlainTemp(tmp)),
                    path: path.clone(),
                    fresh,
                }
            }
        };
        Ok(Sink { dest, written: 0 })
    }

    /// Whether the output is a terminal (a character device such as
    /// `/dev/tty` named as the output file, or standard output).
    pub fn is_terminal(&self) -> bool {
        use std::io::IsTerminal;
        match &self.dest {
            Dest::Stdout(w) => w.get_ref().is_terminal(),
            Dest::Stream { writer } => writer.get_ref().is_terminal(),
            Dest::Null | Dest::File { .. } => false,
            #[cfg(unix)]
            Dest::FileIn { .. } => false,
        }
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Complete the output: flush, give a file the source's permissions and
    /// times (when there is a source file; set-ID bits only if `set_id`),
    /// and move it to its final name.
    /// `overwrite` allows replacing an existing file; without it the rename
    /// fails if a file appeared there in the meantime.
    pub fn finish(
        self,
        shown: &str,
        source: Option<&Metadata>,
        set_id: bool,
        overwrite: bool,
    ) -> Result<(), Failure> {
        match self.dest {
            Dest::Stdout(mut w) => w.flush().map_err(|e| Failure::stdout(&e)),
            Dest::Null => Ok(()),
            Dest::Stream { mut writer } => writer.flush().map_err(|e| Failure::io(shown, &e)),
            Dest::File {
                writer,
                path,
                fresh,
                _live,
            } => {
                let name = shown.to_string();
                let PlainTemp(tmp) = writer
                    .into_inner()
                    .map_err(|e| Failure::io(&name, e.error()))?;
                set_metadata(tmp.as_file(), source, set_id, fresh)
                    .map_err(|e| Failure::io(&name, &e))?;
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
                        files.retain(|p| *p != Pending::Path(tmp_path.clone()));
                    }
                    result
                };
                // On failure the PersistError still owns the temporary file,
                // and dropping it here deletes it.
                result.map(drop).map_err(|e| Failure::io(&name, &e.error))
            }
            #[cfg(unix)]
            Dest::FileIn {
                writer,
                name: final_name,
                fresh,
            } => {
                let name = shown.to_string();
                let tmp = writer
                    .into_inner()
                    .map_err(|e| Failure::io(&name, e.error()))?;
                set_metadata(tmp.file(), source, set_id, fresh)
                    .map_err(|e| Failure::io(&name, &e))?;
                // Dropping `tmp` on failure deletes it.
                tmp.persist(&final_name, overwrite)
                    .map_err(|e| Failure::io(&name, &e))
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = match &mut self.dest {
            Dest::Stdout(w) => w.write(buf)?,
            Dest::Null => buf.len(),
            Dest::Stream { writer } => writer.write(buf)?,
            Dest::File { writer, .. } => writer.write(buf)?,
            #[cfg(unix)]
            Dest::FileIn { writer, .. } => writer.write(buf)?,
        };
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.dest {
            Dest::Stdout(w) => w.flush(),
            Dest::Null => Ok(()),
            Dest::Stream { writer } => writer.flush(),
            Dest::File { writer, .. } => writer.flush(),
            #[cfg(unix)]
            Dest::FileIn { writer, .. } => writer.flush(),
        }
    }
}

/// A temporary file written through its `File`: the operating system's
/// errors as they are. (`NamedTempFile`'s own writes add the hidden
/// temporary file's path to every error, "No space left on device ... at
/// path .lzkit-XXXX.tmp", which means nothing to the user, whose message
/// names their output file.)
struct PlainTemp(NamedTempFile);

impl Write for PlainTemp {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.as_file_mut().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.as_file_mut().flush()
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

/// Why no file could be created next to `path`, in words that name the
/// directory the user gave (never the temporary file's name).
fn cannot_create(path: &Path, e: &io::Error) -> String {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.display().to_string(),
        _ => ".".to_string(),
    };
    match e.kind() {
        io::ErrorKind::NotFound => format!("cannot create: directory '{dir}' does not exist"),
        io::ErrorKind::PermissionDenied => {
            format!("cannot create: no permission to write in directory '{dir}'")
        }
        _ => format!("cannot create in directory '{dir}': {}", describe_io(e)),
    }
}

/// Give a finished output the source's metadata (see [`copy_metadata`]), or,
/// without a source, the permissions `fresh` of a new file.
fn set_metadata(
    file: &fs::File,
    source: Option<&Metadata>,
    set_id: bool,
    fresh: fs::Permissions,
) -> io::Result<()> {
    match source {
        Some(meta) => copy_metadata(file, meta, set_id),
        None => file.set_permissions(fresh),
    }
}

/// Give `file` the owner, permissions and access/modification times of
/// `source`, as far as that is safe and permitted.
///
/// The owner and group are carried where the process may set them (as
/// root, or a group the user belongs to). The set-user-ID and set-group-ID
/// bits are kept only when the owner, respectively the group, matches the
/// source's: root decompressing another user's set-user-ID file must not
/// create a root-owned set-user-ID program. Without `set_id` (a compressed
/// output, which is data, not a program) they are always dropped, as zstd
/// does. The sticky bit means nothing on a regular file and is dropped.
fn copy_metadata(file: &fs::File, source: &Metadata, set_id: bool) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt, fchown};
        const SET_UID: u32 = 0o4000;
        const SET_GID: u32 = 0o2000;
        const STICKY: u32 = 0o1000;
        // The owner first: on Linux changing it clears the set-ID bits.
        if fchown(file, Some(source.uid()), Some(source.gid())).is_err() {
            let _ = fchown(file, None, Some(source.gid()));
        }
        let now = file.metadata()?;
        let mut mode = source.mode() & 0o7777 & !STICKY;
        if !set_id {
            mode &= !(SET_UID | SET_GID);
        }
        if now.uid() != source.uid() {
            mode &= !SET_UID;
        }
        if now.gid() != source.gid() {
            mode &= !SET_GID;
        }
        file.set_permissions(fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    {
        let _ = set_id;
        file.set_permissions(source.permissions())?;
    }
    let mut times = FileTimes::new();
    if let Ok(t) = source.accessed() {
        times = times.set_accessed(t);
    }
    if let Ok(t) = source.modified() {
        times = times.set_modified(t);
    }
    file.set_times(times)
}

/// Temporary files in a directory held open (see [`Placement::AtomicIn`]).
#[cfg(unix)]
mod at {
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::hash::{BuildHasher, RandomState};
    use std::io::{self, Write};
    use std::os::fd::{AsFd, AsRawFd, OwnedFd};
    use std::sync::Arc;

    use rustix::fs::{AtFlags, Mode, OFlags};

    use super::interrupt::{Live, Pending, live};

    /// A hidden temporary file `.lzkit-XXXXXXXXXXXX.tmp` in a directory
    /// held open: created exclusively (so never through a link), deleted
    /// when dropped unless [`TempIn::persist`]ed.
    pub struct TempIn {
        // Unregistered before `dir` is closed: fields drop in this order.
        live: Option<Live>,
        file: File,
        dir: Arc<OwnedFd>,
        name: OsString,
    }

    impl TempIn {
        /// Create one in `dir`, mode 0666 less the umask.
        pub fn create(dir: &Arc<OwnedFd>) -> io::Result<TempIn> {
            let flags = OFlags::WRONLY
                | OFlags::CREATE
                | OFlags::EXCL
                | OFlags::NOFOLLOW
                | OFlags::CLOEXEC
                | OFlags::NOCTTY;
            let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
            for attempt in 0u32..64 {
                let random = RandomState::new().hash_one((std::process::id(), attempt));
                let name = OsString::from(format!(".lzkit-{:012x}.tmp", random & 0xffff_ffff_ffff));
                // Registered before it exists: an interrupt between the
                // two finds nothing to delete, never a file left behind.
                let live = Live::register_pending(Pending::At(dir.as_raw_fd(), name.clone()));
                match rustix::fs::openat(
                    dir.as_fd(),
                    name.as_os_str(),
                    flags,
                    Mode::from_raw_mode(0o666),
                ) {
                    Ok(fd) => {
                        return Ok(TempIn {
                            live: Some(live),
                            file: File::from(fd),
                            dir: Arc::clone(dir),
                            name,
                        });
                    }
                    Err(e) if e == rustix::io::Errno::EXIST => last = e.into(),
                    Err(e) => return Err(e.into()),
                }
            }
            Err(last)
        }

        /// The open file.
        pub fn file(&self) -> &File {
            &self.file
        }

        /// Rename it to `name` in the same directory: over an existing
        /// file only if `overwrite`. Under the interrupt handler's lock, so
        /// an interrupt sees it either complete or still temporary.
        pub fn persist(mut self, name: &OsStr, overwrite: bool) -> io::Result<()> {
            let mut files = live();
            let renamed = if overwrite {
                rustix::fs::renameat(
                    self.dir.as_fd(),
                    self.name.as_os_str(),
                    self.dir.as_fd(),
                    name,
                )
                .map_err(io::Error::from)
            } else {
                rename_noclobber(&self.dir, &self.name, name)
            };
            if renamed.is_ok() {
                let entry = Pending::At(self.dir.as_raw_fd(), self.name.clone());
                files.retain(|p| *p != entry);
            }
            drop(files);
            if renamed.is_ok() {
                // Renamed: nothing to delete when dropped (and the entry's
                // own drop, outside the lock, finds nothing to remove).
                self.live = None;
            }
            renamed
        }
    }

    /// Rename `from` to `to` in `dir` unless `to` exists (`EEXIST`).
    fn rename_noclobber(dir: &OwnedFd, from: &OsStr, to: &OsStr) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::RenameFlags;
            match rustix::fs::renameat_with(
                dir.as_fd(),
                from,
                dir.as_fd(),
                to,
                RenameFlags::NOREPLACE,
            ) {
                Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
                other => return other.map_err(io::Error::from),
            }
        }
        // A link fails if `to` exists; then the temporary name goes.
        rustix::fs::linkat(dir.as_fd(), from, dir.as_fd(), to, AtFlags::empty())?;
        rustix::fs::unlinkat(dir.as_fd(), from, AtFlags::empty())?;
        Ok(())
    }

    impl Write for TempIn {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.file.write(buf)
        }

        fn flush(&mut self) -> io::Result<()> {
            self.file.flush()
        }
    }

    impl Drop for TempIn {
        fn drop(&mut self) {
            if self.live.is_some() {
                let _ =
                    rustix::fs::unlinkat(self.dir.as_fd(), self.name.as_os_str(), AtFlags::empty());
            }
        }
    }
}
