//! Interrupts: every temporary output file is registered until it is
//! renamed or deleted, and an interrupt deletes those still there before
//! the process exits.

#[cfg(unix)]
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use super::super::report::{PROGRAM, eprint_line};

/// A temporary file that the interrupt handler must delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Pending {
    /// By path.
    Path(PathBuf),
    /// By name in a directory held open (the descriptor stays open while
    /// the entry is registered: [`super::at::TempIn`] unregisters first).
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
pub(super) static LIVE: Mutex<Vec<Pending>> = Mutex::new(Vec::new());

/// The registry, even if a thread panicked while holding it (a panic
/// leaves the list itself consistent: it only pushes and retains).
pub(super) fn live() -> MutexGuard<'static, Vec<Pending>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A temporary file's entry in [`LIVE`], removed when dropped (with the
/// file, deleted by `NamedTempFile`, or after the file was renamed).
pub(super) struct Live(Pending);

impl Live {
    pub(super) fn register(path: &Path) -> Live {
        Live::register_pending(Pending::Path(path.to_path_buf()))
    }

    pub(super) fn register_pending(entry: Pending) -> Live {
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
