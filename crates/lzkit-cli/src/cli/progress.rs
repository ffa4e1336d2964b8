//! A progress line on standard error for long operations.
//!
//! The bar only appears when standard error is a terminal, the display level
//! allows it, and the work has already taken [`SHOW_AFTER`]: short jobs never
//! flash a bar, and redirected stderr never receives control characters.

use std::io::{self, IsTerminal, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

/// How long a job runs before its progress line appears.
const SHOW_AFTER: Duration = Duration::from_millis(800);
/// How often the ratio in the line is recomputed.
const MESSAGE_EVERY: Duration = Duration::from_millis(200);

/// When a progress line may be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressChoice {
    /// Never (`-q`, `--no-progress`).
    Never,
    /// When standard error is a terminal (the default).
    OnTerminal,
    /// Even when standard error is not a terminal (`--progress`).
    Always,
}

/// Progress of one file: bytes of input consumed out of an optional total,
/// and the running ratio of output to input (as `lz4` shows it).
pub struct Progress {
    /// Present only when a line may be shown. It exists (hidden) from the
    /// start so that its speed estimate covers the whole job.
    bar: Option<ProgressBar>,
    /// `--progress`: drawn even where standard error is not a terminal.
    forced: bool,
    start: Instant,
    shown: bool,
    /// Compressing (the ratio is output/input) or decoding (input/output).
    compressing: bool,
    /// When the ratio was last put in the line.
    last_message: Option<Instant>,
}

impl Progress {
    /// Progress for reading `label`, `total` bytes if known. `choice` is
    /// the options' permission; the terminal check is done here.
    pub fn new(choice: ProgressChoice, label: &str, total: Option<u64>, compressing: bool) -> Self {
        let allowed = match choice {
            ProgressChoice::Never => false,
            ProgressChoice::OnTerminal => io::stderr().is_terminal(),
            ProgressChoice::Always => true,
        };
        Progress {
            bar: allowed.then(|| make_bar(label, total)),
            forced: choice == ProgressChoice::Always,
            start: Instant::now(),
            shown: false,
            compressing,
            last_message: None,
        }
    }

    /// Record that `read` bytes of input have been consumed and `written`
    /// bytes of output produced so far.
    pub fn set(&mut self, read: u64, written: u64) {
        let Some(bar) = &self.bar else { return };
        bar.set_position(read);
        if self
            .last_message
            .is_none_or(|t| t.elapsed() >= MESSAGE_EVERY)
        {
            self.last_message = Some(Instant::now());
            let ratio = if self.compressing {
                format!("==> {:.2}%", written as f64 * 100.0 / read.max(1) as f64)
            } else {
                format!("{} decoded", indicatif::HumanBytes(written))
            };
            bar.set_message(ratio);
        }
        if !self.shown && (self.forced || self.start.elapsed() >= SHOW_AFTER) {
            bar.set_draw_target(if self.forced {
                ProgressDrawTarget::term_like_with_hz(Box::new(PlainStderr), 5)
            } else {
                ProgressDrawTarget::stderr()
            });
            self.shown = true;
        }
    }

    /// Remove the line (on success and on failure alike, so that an error
    /// message starts on a clean line).
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// A hidden bar with the style for a known or unknown total.
fn make_bar(label: &str, total: Option<u64>) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
    let template = if total.is_some() {
        "{prefix}: {bytes}/{total_bytes} ({percent}%) {msg}, {binary_bytes_per_sec}, {eta} left"
    } else {
        "{prefix}: {bytes} read {msg}, {binary_bytes_per_sec}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.set_prefix(label.to_string());
    bar
}

/// Standard error as a plain stream for `--progress` when it is not a
/// terminal (a log file, a pipe): the line is redrawn after a carriage
/// return, with no cursor movement. Write errors are ignored, as for every
/// message.
#[derive(Debug)]
struct PlainStderr;

/// Width of the line [`PlainStderr`] redraws.
const PLAIN_WIDTH: u16 = 100;

impl TermLike for PlainStderr {
    fn width(&self) -> u16 {
        PLAIN_WIDTH
    }

    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        let _ = writeln!(io::stderr().lock(), "{s}");
        Ok(())
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        let _ = write!(io::stderr().lock(), "{s}");
        Ok(())
    }

    fn clear_line(&self) -> io::Result<()> {
        let width = usize::from(PLAIN_WIDTH);
        let _ = write!(io::stderr().lock(), "\r{:width$}\r", "");
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        let _ = io::stderr().lock().flush();
        Ok(())
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The count of a [`CountingReader`], readable while a decoder owns the
/// reader (and `Send`, as the decoders that take the reader need).
#[derive(Clone, Default)]
pub struct ByteCount(Arc<AtomicU64>);

impl ByteCount {
    /// The bytes counted so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A reader that counts the bytes that pass through it into a shared
/// [`ByteCount`].
pub struct CountingReader<R> {
    inner: R,
    count: ByteCount,
}

impl<R: Read> CountingReader<R> {
    /// Wrap `inner`; the count starts at zero.
    pub fn new(inner: R) -> (Self, ByteCount) {
        let count = ByteCount::default();
        (
            CountingReader {
                inner,
                count: count.clone(),
            },
            count,
        )
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        // One owner writes; readers only report progress.
        self.count.0.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A bar counting steps on standard error, for `bench` and `probe`: only
/// when `wanted` (not `-q`) and standard error is a terminal (never
/// control characters in a redirected log). It shows a message of
/// `message_width` columns, the bar, the steps done of `total` (called
/// `unit`) and the time so far.
pub fn step_bar(wanted: bool, total: u64, message_width: usize, unit: &str) -> Option<ProgressBar> {
    (wanted && io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(total);
        let template =
            format!("{{msg:{message_width}!}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{elapsed}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar
    })
}
