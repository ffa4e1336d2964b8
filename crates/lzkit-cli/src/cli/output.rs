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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
#[cfg(unix)]
use std::{os::fd::OwnedFd, sync::Arc};

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

/// Standard output was closed when lzkit started (`lzkit -c x >&-`). Its
/// descriptor then holds `/dev/null` (see [`guard_standard_streams`]), so
/// that no file lzkit opens takes its place, and writing standard output
/// is an error rather than lost data.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard input was closed when lzkit started (`lzkit -c <&-`): reading
/// it is an error, as in `lz4` and `zstd`, not an empty input.
static STDIN_CLOSED: AtomicBool = AtomicBool::new(false);

/// Why standard input cannot be read, if it was closed at start-up.
pub fn stdin_closed() -> Option<Failure> {
    STDIN_CLOSED.load(Ordering::Relaxed).then(|| {
        Failure::new(
            "stdin",
            "standard input is closed; nothing to read (redirect it, or name an input file)",
        )
    })
}

/// Whether `path` names standard output itself (`/dev/stdout`,
/// `/dev/fd/1`, `/proc/self/fd/1`, or a link to one of them), rather than
/// the file that descriptor 1 is.
fn names_stdout(path: &Path) -> bool {
    let own = format!("/proc/{}/fd/1", std::process::id());
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        if ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", own.as_str()]
            .iter()
            .any(|s| path == Path::new(s))
        {
            return true;
        }
        match fs::read_link(&path) {
            Ok(next) => {
                path = match path.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                }
            }
            Err(_) => return false,
        }
    }
    false
}

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
            if fd == 0 {
                STDIN_CLOSED.store(true, Ordering::Relaxed);
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

/// Whether descriptors 0 and 1 are closed, looked at before the Rust
/// runtime starts (it would fill them with `/dev/null`, indistinguishable
/// from a `/dev/null` the caller gave): run by the C runtime from
/// `.init_array`, before `main`. Only where `/proc/self/fd` can be read.
#[cfg(target_os = "linux")]
extern "C" fn check_stdout_before_runtime() {
    let fds = Path::new("/proc/self/fd");
    if fs::symlink_metadata(fds).is_ok() {
        if fs::symlink_metadata(fds.join("1")).is_err() {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
        if fs::symlink_metadata(fds.join("0")).is_err() {
            STDIN_CLOSED.store(true, Ordering::Relaxed);
        }
    }
}

// SAFETY: `.init_array` holds pointers to functions the C runtime calls
// before `main`; this entry is such a pointer, to a function that takes no
// arguments, makes three `stat`-like system calls and stores to atomics
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

/// A temporary file that the interrupt handler must delete.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pending {
    /// By path.
    Path(PathBuf),
    /// By name in a directory held open (the descriptor stays open while
    /// the entry is registered: [`at::TempIn`] unregisters first).
    #[cfg(unix)]
    At(std::os::fd::RawFd, OsString),
}

impl Pending {
    /// Delete the file (errors ignored: it may be gone already).
    fn remove(&self) {
        match self {
            Pending::Path(path) => {
                let _ = fs::remove_file(path);
            }
            #[cfg(unix)]
            Pending::At(fd, name) => {
                // SAFETY: the descriptor is open while the entry is in
                // LIVE (see `at::TempIn`), and this runs under LIVE's lock.
                let dir = unsafe { std::os::fd::BorrowedFd::borrow_raw(*fd) };
                let _ = rustix::fs::unlinkat(dir, name.as_os_str(), rustix::fs::AtFlags::empty());
            }
        }
    }
}

/// Temporary files not yet renamed to their final names nor deleted: what
/// the interrupt handler deletes. Renaming one happens under this lock, so
/// an interrupt sees each file either complete under its final name or
/// still here.
static LIVE: Mutex<Vec<Pending>> = Mutex::new(Vec::new());

/// The registry, even if a thread panicked while holding it (a panic
/// leaves the list itself consistent: it only pushes and retains).
fn live() -> MutexGuard<'static, Vec<Pending>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A temporary file's entry in [`LIVE`], removed when dropped (with the
/// file, deleted by `NamedTempFile`, or after the file was renamed).
struct Live(Pending);

impl Live {
    fn register(path: &Path) -> Live {
        Live::register_pending(Pending::Path(path.to_path_buf()))
    }

    fn register_pending(entry: Pending) -> Live {
        live().push(entry.clone());
        Live(entry)
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

/// Delete every temporary output file still open, say so, and exit with
/// status [`INTERRUPTED`]: what an interrupt does.
fn interrupted() -> ! {
    // Holding the lock until exit: no rename can start after this.
    let files = live();
    for entry in files.iter() {
        entry.remove();
    }
    eprint_line(format_args!(
        "{PROGRAM}: interrupted; no incomplete output file was left"
    ));
    std::process::exit(INTERRUPTED);
}

/// Install the interrupt handler: on Ctrl-C, `SIGTERM` or `SIGHUP`, delete
/// every temporary output file still open, say so, and exit with status
/// [`INTERRUPTED`]. Without it the default action ends the process before
/// any destructor runs, leaving `.lzkit-*.tmp` files behind.
///
/// A signal that is ignored when lzkit starts stays ignored, as in `lz4`
/// and `zstd`: `nohup lzkit ...` survives its terminal's `SIGHUP`, and a
/// background job of a script (started with `SIGINT` ignored) its Ctrl-C.
/// Installing it twice is harmless (the second call changes nothing).
pub fn remove_on_interrupt() {
    #[cfg(unix)]
    signals::install();
}

/// The interrupt handler on Unix: `sigaction` for the signals that are not
/// ignored; the handler only writes the signal's number to a pipe (what a
/// signal handler may do), and a thread reading the pipe does the rest.
#[cfg(unix)]
mod signals {
    use std::io::Read;
    use std::os::fd::IntoRawFd;
    use std::sync::Once;
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The signals that interrupt lzkit.
    pub const INTERRUPTS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    /// The pipe's writing end, for the handler (-1 until installed).
    static PIPE: AtomicI32 = AtomicI32::new(-1);

    extern "C" fn on_signal(signal: libc::c_int) {
        let fd = PIPE.load(Ordering::Relaxed);
        let byte = signal as u8;
        // SAFETY: `__errno_location` gives this thread's errno, valid for
        // the thread's life; write(2) is async-signal-safe and `byte` lives
        // across the call. A full pipe (non-blocking) loses the byte,
        // harmlessly: one is enough. The failed write's errno (EAGAIN) is
        // put back to what the interrupted code had.
        unsafe {
            let errno = errno_location();
            let saved = *errno;
            libc::write(fd, (&raw const byte).cast(), 1);
            *errno = saved;
        }
    }

    /// This thread's `errno`.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn errno_location() -> *mut libc::c_int {
        // SAFETY: no precondition; the pointer is valid for the calling
        // thread's life.
        unsafe { libc::__errno_location() }
    }

    /// This thread's `errno`.
    #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
    fn errno_location() -> *mut libc::c_int {
        // SAFETY: as on Linux.
        unsafe { libc::__error() }
    }

    /// Whether `signal`'s disposition is "ignore".
    pub fn ignored(signal: libc::c_int) -> bool {
        // SAFETY: an all-zero `sigaction` is a valid value to be written
        // into; a null new action only queries.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
        }
    }

    /// Install the handler (once) for the signals not ignored.
    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let wanted: Vec<libc::c_int> =
                INTERRUPTS.into_iter().filter(|&s| !ignored(s)).collect();
            if wanted.is_empty() {
                return;
            }
            let Ok((mut reader, writer)) = std::io::pipe() else {
                return;
            };
            let fd = writer.into_raw_fd();
            // SAFETY: `fd` is the pipe's open writing end, owned here for
            // the life of the process.
            unsafe {
                let flags = libc::fcntl(fd, libc::F_GETFL);
                libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
            }
            PIPE.store(fd, Ordering::Relaxed);
            let spawned = std::thread::Builder::new()
                .name("lzkit-signals".into())
                .spawn(move || {
                    let mut byte = [0u8; 1];
                    loop {
                        match reader.read(&mut byte) {
                            Ok(1) => super::interrupted(),
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            _ => return,
                        }
                    }
                });
            if spawned.is_err() {
                return;
            }
            for signal in wanted {
                // SAFETY: an all-zero `sigaction` with an empty mask and a
                // handler that only calls write(2) is a valid action.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                    libc::sigemptyset(&mut action.sa_mask);
                    action.sa_flags = libc::SA_RESTART;
                    libc::sigaction(signal, &action, std::ptr::null_mut());
                }
            }
        });
    }
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

    use super::{Live, Pending, live};

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
