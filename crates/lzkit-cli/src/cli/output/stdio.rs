//! Standard input and output: closed descriptors found at start-up (and
//! filled with `/dev/null`), and standard output opened for data.

use std::fs;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::super::report::Failure;

/// Standard output was closed when lzkit started (`lzkit -c x >&-`). Its
/// descriptor then holds `/dev/null` (see [`guard_standard_streams`]), so
/// that no file lzkit opens takes its place, and writing standard output
/// is an error rather than lost data.
pub(super) static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard input was closed when lzkit started (`lzkit -c <&-`): reading
/// it is an error, as in `lz4` and `zstd`, not an empty input.
pub(super) static STDIN_CLOSED: AtomicBool = AtomicBool::new(false);

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
pub(super) fn names_stdout(path: &Path) -> bool {
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
pub(super) type StdoutWriter = fs::File;
#[cfg(not(unix))]
pub(super) type StdoutWriter = io::Stdout;

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
