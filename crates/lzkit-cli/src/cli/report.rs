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
}

impl Failure {
    /// A failure about `subject`.
    pub fn new(subject: impl Into<String>, message: impl fmt::Display) -> Self {
        Failure {
            subject: subject.into(),
            message: message.to_string(),
        }
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

/// An I/O error without std's ` (os error N)` suffix, which means nothing to
/// most users; the text before it already is the OS's own message.
pub fn describe_io(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(pos) if e.raw_os_error().is_some() => text[..pos].to_string(),
        _ => text,
    }
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
    /// Print a failure (level 1).
    pub fn failure(&self, f: &Failure) {
        if self.level >= 1 {
            eprintln!("{f}");
        }
    }

    /// Print a usage or setup error not tied to a file (level 1).
    pub fn error(&self, msg: impl fmt::Display) {
        if self.level >= 1 {
            eprintln!("{PROGRAM}: {msg}");
        }
    }

    /// Print a warning (level 2).
    pub fn warn(&self, msg: impl fmt::Display) {
        if self.level >= 2 {
            eprintln!("{PROGRAM}: warning: {msg}");
        }
    }

    /// Print a result summary (level 3, `-v`).
    pub fn summary(&self, msg: impl fmt::Display) {
        if self.level >= 3 {
            eprintln!("{msg}");
        }
    }

    /// Print a detail (level 4, `-vv`).
    pub fn detail(&self, msg: impl fmt::Display) {
        if self.level >= 4 {
            eprintln!("{msg}");
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
