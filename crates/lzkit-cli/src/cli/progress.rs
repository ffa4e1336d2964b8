//! A progress line on standard error for long operations.
//!
//! The bar only appears when standard error is a terminal, the display level
//! allows it, and the work has already taken [`SHOW_AFTER`]: short jobs never
//! flash a bar, and redirected stderr never receives control characters.

use std::cell::Cell;
use std::io::{self, IsTerminal, Read};
use std::rc::Rc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a job runs before its progress line appears.
const SHOW_AFTER: Duration = Duration::from_millis(800);

/// Progress of one file: bytes of input consumed out of an optional total.
pub struct Progress {
    /// Present only when a line may be shown. It exists (hidden) from the
    /// start so that its speed estimate covers the whole job.
    bar: Option<ProgressBar>,
    start: Instant,
    shown: bool,
}

impl Progress {
    /// Progress for reading `label`, `total` bytes if known. `allowed` is the
    /// display level's permission; the terminal check is done here.
    pub fn new(allowed: bool, label: &str, total: Option<u64>) -> Self {
        let bar = (allowed && io::stderr().is_terminal()).then(|| make_bar(label, total));
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
        }
    }

    /// Record that `pos` bytes of input have been consumed so far.
    pub fn set(&mut self, pos: u64) {
        let Some(bar) = &self.bar else { return };
        bar.set_position(pos);
        if !self.shown && self.start.elapsed() >= SHOW_AFTER {
            bar.set_draw_target(ProgressDrawTarget::stderr());
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
        "{msg}: {bytes}/{total_bytes} ({percent}%), {binary_bytes_per_sec}, {eta} left"
    } else {
        "{msg}: {bytes} read, {binary_bytes_per_sec}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.set_message(label.to_string());
    bar
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A reader that counts the bytes that pass through it into a shared cell,
/// so the count stays readable while a decoder owns the reader.
pub struct CountingReader<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> CountingReader<R> {
    /// Wrap `inner`; the count starts at zero.
    pub fn new(inner: R) -> (Self, Rc<Cell<u64>>) {
        let count = Rc::new(Cell::new(0));
        (
            CountingReader {
                inner,
                count: Rc::clone(&count),
            },
            count,
        )
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}
