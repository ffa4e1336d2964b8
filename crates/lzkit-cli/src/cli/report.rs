//! Messages on standard error, and the one-line error type of the CLI.

use std::fmt;
use std::io;

/// Name the command uses in its messages.
pub const PROGRAM: &str = "lzkit";

/// A failure on one file: printed as `lzkit: SUBJECT: MESSAGE`.
#[derive(Debug)]
pub struct Failure {
    /// The file (or `stdin`/`stdout`) the problem is about.
    pub subject: String,
    /// What went wrong, one line.
    pub message: String,
    /// Standard output is a pipe whose reader has gone (`lzkit -dc | head`):
    /// the run ends quietly, as `lz4` and `zstd` do, with the status of a
    /// process killed by `SIGPIPE`.
    pub broken_pipe: bool,
}

impl Failure {
    /// A failure about `subject`.
    pub fn new(subject: impl Into<String>, message: impl fmt::Display) -> Self {
        Failure {
            subject: subject.into(),
            message: message.to_string(),
            broken_pipe: false,
        }
    }

    /// A failure to write standard output; a closed pipe is marked so that
    /// the run ends without a message.
    pub fn stdout(e: &io::Error) -> Self {
        let mut f = Failure::io("stdout", e);
        f.broken_pipe = e.kind() == io::ErrorKind::BrokenPipe;
        f
    }

    /// A failure from an I/O error, with the error worded for people.
    pub fn io(subject: impl Into<String>, e: &io::Error) -> Self {
        Failure::new(subject, describe_io(e))
    }

    /// A failure from an error that came out of lzkit (possibly through an
    /// `io::Error` wrapper, as `FrameDecoder` returns them).
    pub fn lzkit(subject: impl Into<String>, e: lzkit::Error) -> Self {
        Failure::new(subject, describe_lzkit(&e))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PROGRAM}: {}: {}", self.subject, self.message)
    }
}

/// An I/O error as one line for people: the operating system's own message
/// without std's ` (os error N)` suffix, and without the paths that some
/// wrappers add (a temporary file's absolute name means nothing to the
/// user, whose message already names their file).
pub fn describe_io(e: &io::Error) -> String {
    if let Some(code) = os_code(e) {
        let text = io::Error::from_raw_os_error(code).to_string();
        return match text.rfind(" (os error ") {
            Some(pos) => text[..pos].to_string(),
            None => text,
        };
    }
    e.to_string()
}

/// The OS error code of `e` or of an I/O error it wraps (tempfile's errors
/// wrap the OS error with the path).
fn os_code(e: &io::Error) -> Option<i32> {
    if let Some(code) = e.raw_os_error() {
        return Some(code);
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = e.get_ref().map(|r| r as _);
    while let Some(err) = source {
        if let Some(code) = err
            .downcast_ref::<io::Error>()
            .and_then(io::Error::raw_os_error)
        {
            return Some(code);
        }
        source = err.source();
    }
    None
}

/// Write one line to standard error. A standard error that cannot be
/// written (a full disk, a closed pipe) loses the message but never stops
/// the work: `eprintln!` would panic there.
pub fn eprint_line(msg: impl fmt::Display) {
    use io::Write;
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{msg}");
}

/// Write text without a newline to standard error (a prompt); errors are
/// ignored as in [`eprint_line`].
pub fn eprint_text(msg: impl fmt::Display) {
    use io::Write;
    let mut err = io::stderr().lock();
    let _ = write!(err, "{msg}");
    let _ = err.flush();
}

/// An lzkit error; plain I/O errors go through [`describe_io`].
pub fn describe_lzkit(e: &lzkit::Error) -> String {
    match e {
        lzkit::Error::Io(io) => describe_io(io),
        other => other.to_string(),
    }
}

/// Prints to standard error according to the display level (as in lz4:
/// 1 errors, 2 warnings, 3 summaries, 4 details).
#[derive(Debug, Clone, Copy)]
pub struct Reporter {
    /// The display level.
    pub level: i32,
}

impl Reporter {
    /// Print a failure (level 1); a broken standard output pipe is silent.
    pub fn failure(&self, f: &Failure) {
        if self.level >= 1 && !f.broken_pipe {
            eprint_line(f);
        }
    }

    /// Print a usage or setup error not tied to a file (level 1).
    pub fn error(&self, msg: impl fmt::Display) {
        if self.level >= 1 {
            eprint_line(format_args!("{PROGRAM}: {msg}"));
        }
    }

    /// Print a warning (level 2).
    pub fn warn(&self, msg: impl fmt::Display) {
        if self.level >= 2 {
            eprint_line(format_args!("{PROGRAM}: warning: {msg}"));
        }
    }

    /// Print a plain message at the default level (2): the summary line of
    /// a single file, as `lz4` prints it.
    pub fn notice(&self, msg: impl fmt::Display) {
        if self.level >= 2 {
            eprint_line(msg);
        }
    }

    /// Print a result summary (level 3, `-v`).
    pub fn summary(&self, msg: impl fmt::Display) {
        if self.level >= 3 {
            eprint_line(msg);
        }
    }

    /// Print a detail (level 4, `-vv`).
    pub fn detail(&self, msg: impl fmt::Display) {
        if self.level >= 4 {
            eprint_line(msg);
        }
    }

    /// Whether progress bars may be shown (level 2 and above).
    pub fn progress_allowed(&self) -> bool {
        self.level >= 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_error_suffix_is_dropped() {
        let e = io::Error::from_raw_os_error(2);
        let text = describe_io(&e);
        assert!(!text.contains("os error"), "{text}");
        assert!(!text.is_empty());
        let custom = io::Error::other("custom (os error 5)");
        assert_eq!(describe_io(&custom), "custom (os error 5)");
    }

    #[test]
    fn wrapped_lzkit_errors_are_recovered() {
        let e = lzkit::Error::Truncated {
            at: 7,
            what: "block data",
        }
        .into_io();
        let f = Failure::lzkit("x.lz4", lzkit::Error::from_io(e));
        assert_eq!(
            f.to_string(),
            "lzkit: x.lz4: unexpected end of input at byte 7: block data"
        );
    }
}
