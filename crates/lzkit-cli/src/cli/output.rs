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
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use tempfile::NamedTempFile;

use super::report::{Failure, PROGRAM, describe_io, eprint_line};

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
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Standard output was closed when lzkit started (`lzkit -c x >&-`). Its
/// descriptor then holds `/dev/null` (see [`guard_standard_streams`]), so
/// that no file lzkit opens takes its place, and writing standard output
/// is an error rather than lost data.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Make sure descriptors 0, 1 and 2 are open before anything else is: a
/// closed one is filled with `/dev/null`, since otherwise the next file
/// opened would become "standard output" and receive data meant for it.
/// A closed standard output is remembered (see [`STDOUT_CLOSED`]).
///
/// On Linux the Rust runtime fills closed descriptors with `/dev/null`
/// before `main`, so there [`check_stdout_before_runtime`] looks first.
pub fn guard_standard_streams() {
    #[cfg(unix)]
    {
        use std::os::fd::{AsFd, AsRawFd, IntoRawFd};
        let open = [
            io::stdin().as_fd().try_clone_to_owned().is_ok(),
            io::stdout().as_fd().try_clone_to_owned().is_ok(),
            io::stderr().as_fd().try_clone_to_owned().is_ok(),
        ];
        for (fd, is_open) in open.into_iter().enumerate() {
            if is_open {
                continue;
            }
            if fd == 1 {
                STDOUT_CLOSED.store(true, Ordering::Relaxed);
            }
            // The lowest free descriptor is this one: the ones before it
            // are open (or were just filled).
            let null = fs::OpenOptions::new()
                .read(fd == 0)
                .write(fd != 0)
                .open("/dev/null");
            if let Ok(file) = null
                && file.as_raw_fd() == fd as i32
            {
                // Kept open for the life of the process.
                let _ = file.into_raw_fd();
            }
        }
    }
}

/// Whether descriptor 1 is closed, looked at before the Rust runtime
/// starts (it would fill it with `/dev/null`, indistinguishable from a
/// `/dev/null` the caller gave): run by the C runtime from `.init_array`,
/// before `main`. Only where `/proc/self/fd` can be read.
#[cfg(target_os = "linux")]
extern "C" fn check_stdout_before_runtime() {
    let fds = Path::new("/proc/self/fd");
    if fs::symlink_metadata(fds).is_ok() && fs::symlink_metadata(fds.join("1")).is_err() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

// SAFETY: `.init_array` holds pointers to functions the C runtime calls
// before `main`; this entry is such a pointer, to a function that takes no
// arguments, makes two `stat`-like system calls and stores to an atomic
// (neither needs the Rust runtime's own set-up).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static CHECK_STDOUT_BEFORE_RUNTIME: extern "C" fn() = check_stdout_before_runtime;

/// Standard output for data: on Unix a duplicate of descriptor 1 as a
/// plain file, whose errors are all reported (std's `Stdout` reports a
/// closed descriptor as success).
#[cfg(unix)]
type StdoutWriter = fs::File;
#[cfg(not(unix))]
type StdoutWriter = io::Stdout;

/// Open standard output for data, or say why it cannot be written.
pub fn stdout_writer() -> Result<StdoutWriter, Failure> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Err(Failure::new(
            "stdout",
            "standard output is closed; nothing can be written (redirect it, or name an output file)",
        ));
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map(fs::File::from)
            .map_err(|e| Failure::stdout(&e))
    }
    #[cfg(not(unix))]
    {
        Ok(io::stdout())
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
        writer: BufWriter<NamedTempFile>,
        path: PathBuf,
        /// The permissions a new file gets here (0666 less the umask):
        /// the output's when there is no source file to copy them from.
        /// Until it is complete the file is readable by its owner only.
        fresh: fs::Permissions,
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
        eprint_line(format_args!(
            "{PROGRAM}: interrupted; no incomplete output file was left"
        ));
        std::process::exit(INTERRUPTED);
    });
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
                    writer: BufWriter::with_capacity(BUFFER_SIZE, tmp),
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
                let tmp = writer
                    .into_inner()
                    .map_err(|e| Failure::io(&name, e.error()))?;
                match source {
                    Some(meta) => copy_metadata(tmp.as_file(), meta, set_id)
                        .map_err(|e| Failure::io(&name, &e))?,
                    None => tmp
                        .as_file()
                        .set_permissions(fresh)
                        .map_err(|e| Failure::io(&name, &e))?,
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
            Dest::Stream { writer } => writer.write(buf)?,
            Dest::File { writer, .. } => writer.write(buf)?,
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
