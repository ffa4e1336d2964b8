//! The zstd reference: libzstd (the `zstd` crate, which builds it from
//! source) and the `zstd` command.
//!
//! Every test, fuzz target and benchmark that compares lzkit's zstd
//! decoder with libzstd goes through here, so the workspace has one place
//! where it calls libzstd. The library itself never depends on it.
//!
//! * [`Settings`] and [`compress`]: frames made by libzstd at any level
//!   (−131072..=22; tests use −5..=22), with or without a checksum, with or
//!   without a content size (a pledged size gives a content size, and a
//!   single-segment frame when the size fits the window; no pledge gives a
//!   streaming frame without one), with a dictionary, with a long window
//!   (`window_log` up to 27, long-distance matching), and with forced
//!   block boundaries (flushes);
//! * [`decompress`] / [`decompress_limited`] (streaming) and
//!   [`decompress_one_shot`]: libzstd's verdict on any input, as a
//!   `Result`, so both decoders can be compared ([`check_same_verdict`]);
//! * [`train_dictionary`]: a zstd-format dictionary (`ZDICT_trainFromBuffer`);
//! * [`cli_available`] and [`cli`]: the reference `zstd` command.
//!
//! Hand-built frames (headers, blocks, skippable frames) are in
//! [`crate::zstd_frames`].

use crate::compare::assert_same;
use std::io::{Read, Write};

/// Lowest level the tests sample (`--fast=5`); libzstd accepts lower.
pub const MIN_LEVEL: i32 = -5;

/// Highest level of libzstd (`--ultra -22`).
pub const MAX_LEVEL: i32 = 22;

/// The largest window log libzstd decodes: `ZSTD_WINDOWLOG_MAX_64` (31),
/// or `ZSTD_WINDOWLOG_MAX_32` (30) on 32-bit targets.
pub const WINDOW_LOG_MAX: u32 = if usize::BITS >= 64 { 31 } else { 30 };

/// libzstd's default streaming window limit (`ZSTD_WINDOWLOG_LIMIT_DEFAULT`):
/// a frame whose window is larger needs `--memory` / `window_log_max`.
pub const WINDOW_LOG_LIMIT_DEFAULT: u32 = 27;

/// How libzstd makes a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Compression level: negative levels are `--fast=N`, 1..=22 the
    /// regular ones (0 means libzstd's default, 3).
    pub level: i32,
    /// A content checksum (XXH64) at the end of the frame.
    pub checksum: bool,
    /// Pledge the input size: the header has a content size, and the frame
    /// is single-segment when the size fits the window. Without a pledge
    /// the frame is a streaming one, without a content size.
    pub content_size: bool,
    /// Write the dictionary's ID in the header (zstd-format dictionaries;
    /// a raw-content dictionary has ID 0 and none is written).
    pub dict_id: bool,
    /// Window log (10..=31); `None`: the level's default.
    pub window_log: Option<u32>,
    /// Long-distance matching (`--long`).
    pub long_distance: bool,
    /// End a block (`ZSTD_e_flush`) after every this many input bytes, so
    /// that frames have many small blocks of every type; `None`: libzstd
    /// chooses the blocks.
    pub flush_every: Option<usize>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings::new(3)
    }
}

impl Settings {
    /// A streaming frame at `level`: checksum, no content size, dictionary
    /// ID written, the level's window, no flushes.
    pub fn new(level: i32) -> Self {
        Settings {
            level,
            checksum: true,
            content_size: false,
            dict_id: true,
            window_log: None,
            long_distance: false,
            flush_every: None,
        }
    }

    pub fn checksum(mut self, on: bool) -> Self {
        self.checksum = on;
        self
    }

    pub fn content_size(mut self, on: bool) -> Self {
        self.content_size = on;
        self
    }

    pub fn dict_id(mut self, on: bool) -> Self {
        self.dict_id = on;
        self
    }

    pub fn window_log(mut self, log: Option<u32>) -> Self {
        self.window_log = log;
        self
    }

    /// `--long=LOG`: long-distance matching with a window of `2^LOG`.
    pub fn long(mut self, log: u32) -> Self {
        self.long_distance = true;
        self.window_log = Some(log);
        self
    }

    pub fn flush_every(mut self, n: Option<usize>) -> Self {
        self.flush_every = n.filter(|&n| n > 0);
        self
    }
}

/// One frame of `data` made by libzstd with `settings` and `dict` (raw
/// content, or a zstd-format dictionary recognised by its magic number).
///
/// # Panics
/// If libzstd refuses the settings (a level or window log out of range).
pub fn compress(data: &[u8], settings: &Settings, dict: Option<&[u8]>) -> Vec<u8> {
    try_compress(data, settings, dict).expect("libzstd compression")
}

/// [`compress`], with libzstd's refusal as an error.
pub fn try_compress(data: &[u8], s: &Settings, dict: Option<&[u8]>) -> std::io::Result<Vec<u8>> {
    let out = Vec::with_capacity(zstd::zstd_safe::compress_bound(data.len()) + 64);
    let mut enc = zstd::stream::write::Encoder::with_dictionary(out, s.level, dict.unwrap_or(&[]))?;
    enc.include_checksum(s.checksum)?;
    enc.include_dictid(s.dict_id)?;
    enc.include_contentsize(s.content_size)?;
    if s.content_size {
        enc.set_pledged_src_size(Some(data.len() as u64))?;
    }
    if let Some(log) = s.window_log {
        enc.window_log(log)?;
    }
    enc.long_distance_matching(s.long_distance)?;
    match s.flush_every {
        Some(n) => {
            for chunk in data.chunks(n) {
                enc.write_all(chunk)?;
                enc.flush()?;
            }
        }
        None => enc.write_all(data)?,
    }
    enc.finish()
}

/// `data` compressed in one call (`ZSTD_compress2`, as `zstd::bulk`): a
/// content size always, single-segment when the data fits the window.
pub fn compress_one_shot(data: &[u8], level: i32, checksum: bool) -> Vec<u8> {
    let mut c = zstd::bulk::Compressor::new(level).expect("libzstd context");
    c.include_checksum(checksum).expect("checksum flag");
    c.compress(data).expect("libzstd compression")
}

/// A zstd-format dictionary of at most `max_size` bytes trained on
/// `samples` by libzstd (`ZDICT_trainFromBuffer`, as `zstd --train`).
///
/// # Errors
/// libzstd's refusal (too few or too small samples).
pub fn train_dictionary<S: AsRef<[u8]>>(
    samples: &[S],
    max_size: usize,
) -> std::io::Result<Vec<u8>> {
    zstd::dict::from_samples(samples, max_size)
}

/// Why libzstd rejected an input (its error text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefError(pub String);

impl std::fmt::Display for RefError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "libzstd: {}", self.0)
    }
}

impl std::error::Error for RefError {}

/// Every frame of `src` (skippable frames skipped) decoded by libzstd,
/// with `dict` if given and any window the format allows: libzstd's
/// verdict on the whole input. An empty input is an empty output, as for
/// libzstd's one-shot `ZSTD_decompress` (its streaming decoder, which this
/// uses otherwise, calls it an incomplete frame).
pub fn decompress(src: &[u8], dict: Option<&[u8]>) -> Result<Vec<u8>, RefError> {
    decompress_limited(src, dict, WINDOW_LOG_MAX, usize::MAX)
}

/// [`decompress`] with a streaming window limit (`--memory`) and a cap on
/// the output (fuzz targets bound what a small input may produce: output
/// past `max_output` bytes is an error).
pub fn decompress_limited(
    src: &[u8],
    dict: Option<&[u8]>,
    window_log_max: u32,
    max_output: usize,
) -> Result<Vec<u8>, RefError> {
    let err = |e: std::io::Error| RefError(e.to_string());
    if src.is_empty() {
        return Ok(Vec::new());
    }
    let mut dec =
        zstd::stream::read::Decoder::with_dictionary(src, dict.unwrap_or(&[])).map_err(err)?;
    dec.window_log_max(window_log_max).map_err(err)?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 17];
    loop {
        let n = dec.read(&mut buf).map_err(err)?;
        if n == 0 {
            return Ok(out);
        }
        if n > max_output - out.len() {
            return Err(RefError(format!("output larger than {max_output} bytes")));
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Every frame of `src` decoded by libzstd in one call
/// (`ZSTD_decompressDCtx`, as `zstd::bulk`) into a buffer of `capacity`
/// bytes, with `dict` if given: no window is kept, so no window limit
/// applies below the format's (2^31), and nothing is allocated beyond the
/// buffer, whatever the frame header claims. Output past `capacity` is an
/// error. The reference of the fuzz targets.
pub fn decompress_one_shot(
    src: &[u8],
    dict: Option<&[u8]>,
    capacity: usize,
) -> Result<Vec<u8>, RefError> {
    let err = |e: std::io::Error| RefError(e.to_string());
    let mut d = zstd::bulk::Decompressor::with_dictionary(dict.unwrap_or(&[])).map_err(err)?;
    d.decompress(src, capacity).map_err(err)
}

/// Assert that lzkit's verdict matches libzstd's: both accept with the
/// same bytes, or both reject. Returns whether both accepted.
#[track_caller]
pub fn check_same_verdict<E: std::fmt::Display>(
    ours: &Result<Vec<u8>, E>,
    reference: &Result<Vec<u8>, RefError>,
    what: &str,
) -> bool {
    match (ours, reference) {
        (Ok(a), Ok(b)) => {
            assert_same(a, b, what);
            true
        }
        (Err(_), Err(_)) => false,
        (Ok(a), Err(e)) => panic!(
            "{what}: lzkit accepted ({} bytes) what libzstd rejects ({e})",
            a.len()
        ),
        (Err(e), Ok(b)) => panic!(
            "{what}: lzkit rejected ({e}) what libzstd accepts ({} bytes)",
            b.len()
        ),
    }
}

// ---------------------------------------------------------------------------
// The `zstd` command.
// ---------------------------------------------------------------------------

/// Whether the reference `zstd` command is on PATH (noted once if not).
///
/// As [`crate::lz4_available`] for `lz4`: outside CI a missing `zstd` skips
/// the checks that need it with a note; in CI (environment variable `CI`
/// set) it panics, so those tests fail rather than pass without checking.
pub fn cli_available() -> bool {
    static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    crate::command_available("zstd", &OK)
}

/// Run `zstd` with `args` (quiet, no progress) and `stdin` as its standard
/// input (none: an empty one), panicking with its standard error if it
/// fails; returns its standard output.
pub fn cli<S: AsRef<std::ffi::OsStr>>(args: &[S], stdin: Option<&[u8]>) -> Vec<u8> {
    use std::process::{Command, Stdio};
    let mut child = Command::new("zstd")
        .args(["-q", "--no-progress"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run zstd");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.unwrap_or(&[]).to_vec();
    // Written from a thread: zstd may fill its output pipe before it has
    // read all its input.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait for zstd");
    writer.join().expect("stdin writer");
    let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
    assert!(
        out.status.success(),
        "zstd {shown:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
