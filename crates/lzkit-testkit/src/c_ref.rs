//! Safe wrappers of the C reference: liblz4 1.10, built by `lz4-sys`.
//!
//! Every test, benchmark, fuzz target and `lzkit bench` that compares with C
//! goes through here, so the workspace has one place where Rust calls into
//! liblz4. Each function checks what C cannot: slice lengths are passed as
//! C `int`s only after a range check (a length above `i32::MAX` gives `None`
//! or an error, never a truncated length), and an empty slice is passed as a
//! pointer to a real byte (some entry points read their source even when its
//! size is 0, and an empty slice's pointer may dangle).
//!
//! Compression levels have liblz4's meaning: `<= 0` is the fast compressor
//! with acceleration `1 - level`, 1 is `LZ4_compress_default`, 2 and up go
//! through `LZ4_compress_HC` (levels above [`MAX_LEVEL`] act as it).

use lz4_sys::{
    BlockChecksum, BlockMode as CBlockMode, BlockSize as CBlockSize, ContentChecksum, FrameType,
    LZ4_compress_HC, LZ4_compress_default, LZ4_compress_fast, LZ4_compressBound, LZ4_createStream,
    LZ4_decompress_safe, LZ4_freeStream, LZ4_versionNumber, LZ4F_VERSION,
    LZ4F_createCompressionContext, LZ4F_createDecompressionContext, LZ4F_freeCompressionContext,
    LZ4F_freeDecompressionContext, LZ4F_getErrorName, LZ4F_isError, LZ4F_resetDecompressionContext,
    LZ4FCompressionContext, LZ4FDecompressOptions, LZ4FDecompressionContext, LZ4FFrameInfo,
    LZ4FPreferences, LZ4StreamEncode,
};
use lzkit::lz4::block;
use lzkit::lz4::frame::BlockSize;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::fmt;
use std::ptr;

/// Highest compression level of liblz4 (`LZ4HC_CLEVEL_MAX`), which lzkit
/// levels mirror.
pub const MAX_LEVEL: i32 = lzkit::lz4::MAX_LEVEL;

// Stable liblz4 entry points that lz4-sys builds but does not declare.
unsafe extern "C" {
    fn LZ4_decompress_safe_usingDict(
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
        dict: *const c_char,
        dict_size: c_int,
    ) -> c_int;
    fn LZ4_loadDict(stream: *mut LZ4StreamEncode, dict: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_fast_continue(
        stream: *mut LZ4StreamEncode,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
        acceleration: c_int,
    ) -> c_int;
    fn LZ4_sizeofState() -> c_int;
    fn LZ4_initStream(buffer: *mut c_void, size: usize) -> *mut c_void;
    fn LZ4_compress_fast_extState_fastReset(
        state: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
        acceleration: c_int,
    ) -> c_int;
    fn LZ4_sizeofStateHC() -> c_int;
    fn LZ4_initStreamHC(buffer: *mut c_void, size: usize) -> *mut c_void;
    fn LZ4_compress_HC_extStateHC_fastReset(
        state: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
        level: c_int,
    ) -> c_int;
    fn LZ4F_compressFrame(
        dst: *mut c_void,
        dst_cap: usize,
        src: *const c_void,
        src_size: usize,
        prefs: *const LZ4FPreferences,
    ) -> usize;
    fn LZ4F_compressFrameBound(src_size: usize, prefs: *const LZ4FPreferences) -> usize;
    fn LZ4F_createCDict(dict: *const c_void, dict_size: usize) -> *mut c_void;
    fn LZ4F_freeCDict(cdict: *mut c_void);
    fn LZ4F_compressFrame_usingCDict(
        cctx: LZ4FCompressionContext,
        dst: *mut c_void,
        dst_cap: usize,
        src: *const c_void,
        src_size: usize,
        cdict: *const c_void,
        prefs: *const LZ4FPreferences,
    ) -> usize;
    fn LZ4F_decompress_usingDict(
        dctx: LZ4FDecompressionContext,
        dst: *mut u8,
        dst_size: &mut usize,
        src: *const u8,
        src_size: &mut usize,
        dict: *const u8,
        dict_size: usize,
        opts: *const LZ4FDecompressOptions,
    ) -> usize;
}

// ---------------------------------------------------------------------------
// Arguments.
// ---------------------------------------------------------------------------

/// What an empty source slice is passed as.
static ONE_BYTE: [u8; 1] = [0];

/// A pointer to `s` that C may read even when `s` is empty (then it points
/// to [`ONE_BYTE`], with size 0 passed alongside).
fn src_ptr(s: &[u8]) -> *const u8 {
    if s.is_empty() {
        ONE_BYTE.as_ptr()
    } else {
        s.as_ptr()
    }
}

/// A pointer to `d` that is never dangling: an empty `d` is replaced by
/// `spare` (capacity 0 is passed alongside, so C writes nothing there).
fn dst_ptr(d: &mut [u8], spare: &mut [u8; 1]) -> *mut u8 {
    if d.is_empty() {
        spare.as_mut_ptr()
    } else {
        d.as_mut_ptr()
    }
}

/// `n` as a C `int`, or `None` above `i32::MAX`.
fn c_len(n: usize) -> Option<c_int> {
    c_int::try_from(n).ok()
}

/// A C return value: a size if it is positive (`allow_zero`: or zero).
fn c_size(n: c_int, allow_zero: bool) -> Option<usize> {
    usize::try_from(n).ok().filter(|&n| n > 0 || allow_zero)
}

// ---------------------------------------------------------------------------
// The library.
// ---------------------------------------------------------------------------

/// `LZ4_versionNumber()`: major * 10000 + minor * 100 + release.
pub fn version_number() -> i32 {
    // SAFETY: takes no arguments and returns a constant.
    unsafe { LZ4_versionNumber() }
}

/// Version of the linked liblz4, as "1.10.0".
pub fn version() -> String {
    let v = version_number();
    format!("{}.{}.{}", v / 10_000, v / 100 % 100, v % 100)
}

// ---------------------------------------------------------------------------
// Blocks.
// ---------------------------------------------------------------------------

/// `LZ4_compressBound`: the largest block C may write for `len` input
/// bytes; `None` if `len` is above what C compresses.
pub fn compress_bound(len: usize) -> Option<usize> {
    let len = c_len(len)?;
    // SAFETY: a pure function of its integer argument.
    let bound = unsafe { LZ4_compressBound(len) };
    c_size(bound, false)
}

/// Room for one compressed block of `len` bytes from either C or lzkit: the
/// larger of the two bounds.
pub fn bound_for_either(len: usize) -> usize {
    compress_bound(len)
        .unwrap_or(0)
        .max(block::max_compressed_size(len))
}

/// The C function [`compress_into`] calls at `level`, for reports.
pub fn entry_point(level: i32) -> String {
    match level {
        ..=0 => format!(
            "LZ4_compress_fast (acceleration {})",
            1i32.saturating_sub(level)
        ),
        1 => "LZ4_compress_default".into(),
        _ => format!("LZ4_compress_HC level {}", level.min(MAX_LEVEL)),
    }
}

/// Compress `src` into `dst` at `level` (see the module doc for levels).
/// Returns the compressed size, or `None` if C fails (`dst` too small) or a
/// length is above `i32::MAX`.
pub fn compress_into(src: &[u8], dst: &mut [u8], level: i32) -> Option<usize> {
    let (slen, dlen) = (c_len(src.len())?, c_len(dst.len())?);
    let mut spare = [0u8; 1];
    let s = src_ptr(src).cast::<c_char>();
    let d = dst_ptr(dst, &mut spare).cast::<c_char>();
    // SAFETY: `s` points to `slen` readable bytes (or to ONE_BYTE with
    // `slen` 0) and `d` to `dlen` writable bytes that do not overlap them
    // (or to `spare` with `dlen` 0); each function reads at most `slen`
    // bytes from `s`, writes at most `dlen` bytes to `d` and keeps neither.
    let n = unsafe {
        match level {
            ..=0 => LZ4_compress_fast(s, d, slen, dlen, 1i32.saturating_sub(level)),
            1 => LZ4_compress_default(s, d, slen, dlen),
            _ => LZ4_compress_HC(s, d, slen, dlen, level.min(MAX_LEVEL)),
        }
    };
    c_size(n, false)
}

/// Compress `src` at `level` into a new block; `None` as [`compress_into`].
pub fn compress(src: &[u8], level: i32) -> Option<Vec<u8>> {
    let mut dst = vec![0u8; compress_bound(src.len())?];
    let n = compress_into(src, &mut dst, level)?;
    dst.truncate(n);
    Some(dst)
}

/// Compress `src` as one block with `dict` as history (`LZ4_loadDict`, which
/// keeps the dictionary's last 64 KiB, then `LZ4_compress_fast_continue` at
/// `acceleration`). `None` if C fails or a length is above `i32::MAX`.
pub fn compress_with_dict(src: &[u8], dict: &[u8], acceleration: i32) -> Option<Vec<u8>> {
    let (slen, dict_len) = (c_len(src.len())?, c_len(dict.len())?);
    let mut dst = vec![0u8; compress_bound(src.len())?];
    let dlen = c_len(dst.len())?;
    // SAFETY: no arguments; the stream is checked for null and freed below.
    let stream = unsafe { LZ4_createStream() };
    if stream.is_null() {
        return None;
    }
    // SAFETY: `stream` is a live stream from LZ4_createStream; the
    // dictionary pointer covers `dict_len` readable bytes (ONE_BYTE when
    // empty), and `dict` outlives the compression call that refers to it.
    unsafe { LZ4_loadDict(stream, src_ptr(dict).cast(), dict_len) };
    // SAFETY: `stream` is live and loaded with `dict`, still borrowed; the
    // source covers `slen` readable bytes, `dst` (never empty: a bound is
    // at least 1) `dlen` writable bytes, and they do not overlap.
    let n = unsafe {
        LZ4_compress_fast_continue(
            stream,
            src_ptr(src).cast(),
            dst.as_mut_ptr().cast(),
            slen,
            dlen,
            acceleration,
        )
    };
    // SAFETY: created above, freed once, not used after.
    unsafe { LZ4_freeStream(stream) };
    dst.truncate(c_size(n, false)?);
    Some(dst)
}

/// `LZ4_decompress_safe`: decode `src` into `dst` (capacity `dst.len()`).
/// Returns the decoded size, or `None` for a block C rejects or a length
/// above `i32::MAX`. The baseline of `lzkit bench`, so kept inlinable.
#[inline]
pub fn decompress_into(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let (slen, dlen) = (c_len(src.len())?, c_len(dst.len())?);
    let mut spare = [0u8; 1];
    let d = dst_ptr(dst, &mut spare).cast::<c_char>();
    // SAFETY: the source pointer covers `slen` readable bytes (ONE_BYTE when
    // empty), `d` covers `dlen` writable bytes not overlapping them (`spare`
    // when empty); the safe decoder reads at most `slen` and writes at most
    // `dlen` bytes whatever the input, and keeps neither pointer.
    let n = unsafe { LZ4_decompress_safe(src_ptr(src).cast(), d, slen, dlen) };
    c_size(n, true)
}

/// `LZ4_decompress_safe_usingDict`: decode `src` into `dst` with `dict` as
/// the history before the block. `None` as [`decompress_into`].
pub fn decompress_with_dict_into(src: &[u8], dst: &mut [u8], dict: &[u8]) -> Option<usize> {
    let (slen, dlen, dict_len) = (c_len(src.len())?, c_len(dst.len())?, c_len(dict.len())?);
    let mut spare = [0u8; 1];
    let d = dst_ptr(dst, &mut spare).cast::<c_char>();
    // SAFETY: as in `decompress_into`, and the dictionary pointer covers
    // `dict_len` readable bytes (ONE_BYTE when empty) that C only reads.
    let n = unsafe {
        LZ4_decompress_safe_usingDict(
            src_ptr(src).cast(),
            d,
            slen,
            dlen,
            src_ptr(dict).cast(),
            dict_len,
        )
    };
    c_size(n, true)
}

/// `LZ4_decompress_safe_usingDict` with the dictionary just before the
/// output, as a prefix (C's `withSmallPrefix` / `withPrefix64k` modes):
/// decode `src` into `buf[start..]` with `buf[..start]` as history.
/// `None` as [`decompress_into`].
///
/// # Panics
/// If `start > buf.len()`.
pub fn decompress_with_prefix_into(src: &[u8], buf: &mut [u8], start: usize) -> Option<usize> {
    let (prefix, dst) = buf.split_at_mut(start);
    if dst.is_empty() {
        // An empty output has no address of its own: C's answer for it
        // does not depend on the history.
        return decompress_into(src, dst);
    }
    let (slen, dlen, plen) = (c_len(src.len())?, c_len(dst.len())?, c_len(start)?);
    // SAFETY: as in `decompress_with_dict_into`; the prefix is the `plen`
    // bytes just before `dst` (one allocation, split), which C only reads,
    // and C sees it end where `dst` starts (its prefix modes).
    let n = unsafe {
        LZ4_decompress_safe_usingDict(
            src_ptr(src).cast(),
            dst.as_mut_ptr().cast(),
            slen,
            dlen,
            prefix.as_ptr().cast(),
            plen,
        )
    };
    c_size(n, true)
}

/// Decode `src` into a new buffer of capacity `cap` prefilled with `fill`
/// (so that bytes C did not write show), with `dict` as history unless it
/// is empty. Returns the decoded bytes, or `None` as [`decompress_into`].
pub fn decompress(src: &[u8], cap: usize, dict: &[u8], fill: u8) -> Option<Vec<u8>> {
    let mut dst = vec![fill; cap];
    let n = if dict.is_empty() {
        decompress_into(src, &mut dst)?
    } else {
        decompress_with_dict_into(src, &mut dst, dict)?
    };
    dst.truncate(n);
    Some(dst)
}

/// A C compressor state kept across calls, as a user who compresses many
/// blocks keeps one: `LZ4_stream_t` for levels `<= 1`
/// (`LZ4_compress_fast_extState_fastReset`), `LZ4_streamHC_t` for HC levels
/// (`LZ4_compress_HC_extStateHC_fastReset`, sparing `LZ4_compress_HC`'s
/// allocation and reset of 256 KiB per call).
pub struct State {
    /// The state's memory, in u64 words: C wants pointer alignment.
    words: Vec<u64>,
    hc: bool,
}

impl State {
    /// A fresh state for compressing at `level`; `None` if C cannot
    /// initialise one.
    pub fn new(level: i32) -> Option<Self> {
        let hc = level >= 2;
        // SAFETY: both take no arguments and return a constant.
        let size = unsafe {
            match hc {
                true => LZ4_sizeofStateHC(),
                false => LZ4_sizeofState(),
            }
        };
        let size = usize::try_from(size).ok()?;
        let mut words = vec![0u64; size.div_ceil(8)];
        let buffer = words.as_mut_ptr().cast::<c_void>();
        // SAFETY: `buffer` is writable, 8-byte aligned and at least `size`
        // bytes long; C initialises a state in place and keeps no pointer.
        let state = unsafe {
            match hc {
                true => LZ4_initStreamHC(buffer, size),
                false => LZ4_initStream(buffer, size),
            }
        };
        (!state.is_null()).then_some(State { words, hc })
    }

    /// Compress `src` into `dst` at `level` (fast levels for a fast state,
    /// HC levels for an HC state) with this state; `None` as
    /// [`compress_into`].
    pub fn compress_into(&mut self, src: &[u8], dst: &mut [u8], level: i32) -> Option<usize> {
        let (slen, dlen) = (c_len(src.len())?, c_len(dst.len())?);
        let mut spare = [0u8; 1];
        let d = dst_ptr(dst, &mut spare).cast::<c_char>();
        let s = src_ptr(src).cast::<c_char>();
        let state = self.words.as_mut_ptr().cast::<c_void>();
        // SAFETY: the state was initialised in `new` for this kind of
        // compressor and is borrowed mutably for the call; `s` covers `slen`
        // readable bytes (ONE_BYTE when empty), `d` `dlen` writable bytes
        // (`spare` when empty), none overlapping; C reads and writes within
        // them and keeps no pointer past the call.
        let n = unsafe {
            match self.hc {
                true => LZ4_compress_HC_extStateHC_fastReset(
                    state,
                    s,
                    d,
                    slen,
                    dlen,
                    level.min(MAX_LEVEL),
                ),
                false => LZ4_compress_fast_extState_fastReset(
                    state,
                    s,
                    d,
                    slen,
                    dlen,
                    1i32.saturating_sub(level).max(1),
                ),
            }
        };
        c_size(n, false)
    }
}

// ---------------------------------------------------------------------------
// Frames.
// ---------------------------------------------------------------------------

/// The message of an `LZ4F_*` result, or the result if it is no error.
fn lz4f_result(code: usize) -> Result<usize, String> {
    // SAFETY: a pure function of its argument.
    if unsafe { LZ4F_isError(code) } == 0 {
        return Ok(code);
    }
    // SAFETY: LZ4F_getErrorName returns a pointer to a static,
    // NUL-terminated string for any code.
    let name = unsafe { CStr::from_ptr(LZ4F_getErrorName(code)) };
    Err(format!("LZ4F: {}", name.to_string_lossy()))
}

/// Frame options for C's frame compressor, in lzkit's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSettings {
    /// Compression level (liblz4's meaning).
    pub level: i32,
    /// Largest block size.
    pub block_size: BlockSize,
    /// Linked blocks (each may refer to the ones before).
    pub linked: bool,
    /// A checksum after every block.
    pub block_checksum: bool,
    /// A checksum of the content at the end.
    pub content_checksum: bool,
    /// The content size in the header.
    pub content_size: bool,
    /// The dictionary ID in the header (0: none).
    pub dict_id: u32,
}

impl FrameSettings {
    /// The `LZ4F_preferences_t` these settings mean.
    fn prefs(&self) -> LZ4FPreferences {
        LZ4FPreferences {
            frame_info: LZ4FFrameInfo {
                block_size_id: match self.block_size {
                    BlockSize::Max64KB => CBlockSize::Max64KB,
                    BlockSize::Max256KB => CBlockSize::Max256KB,
                    BlockSize::Max1MB => CBlockSize::Max1MB,
                    BlockSize::Max4MB => CBlockSize::Max4MB,
                },
                block_mode: if self.linked {
                    CBlockMode::Linked
                } else {
                    CBlockMode::Independent
                },
                content_checksum_flag: if self.content_checksum {
                    ContentChecksum::ChecksumEnabled
                } else {
                    ContentChecksum::NoChecksum
                },
                frame_type: FrameType::Frame,
                // Any non-zero value: LZ4F_compressFrame writes the real size.
                content_size: u64::from(self.content_size),
                dict_id: self.dict_id,
                block_checksum_flag: if self.block_checksum {
                    BlockChecksum::BlockChecksumEnabled
                } else {
                    BlockChecksum::NoBlockChecksum
                },
            },
            // C reads it as an int: negative levels wrap back to themselves.
            compression_level: self.level as u32,
            auto_flush: 0,
            favor_dec_speed: 0,
            reserved: [0; 3],
        }
    }
}

/// A whole frame compressed by C: `LZ4F_compressFrame`, or with a
/// dictionary `LZ4F_compressFrame_usingCDict` (which uses it for every
/// independent block, or the first linked block).
pub fn compress_frame(
    data: &[u8],
    settings: &FrameSettings,
    dict: Option<&[u8]>,
) -> Result<Vec<u8>, String> {
    let prefs = settings.prefs();
    // SAFETY: `prefs` is a valid preferences struct that C only reads.
    let cap = unsafe { LZ4F_compressFrameBound(data.len(), &prefs) };
    let mut dst = vec![0u8; lz4f_result(cap)?.max(1)];
    let n = match dict {
        // SAFETY: `dst` covers `cap` writable bytes, the source pointer
        // `data.len()` readable ones (ONE_BYTE when empty), not overlapping;
        // `prefs` is valid; C keeps no pointer past the call.
        None => unsafe {
            LZ4F_compressFrame(
                dst.as_mut_ptr().cast(),
                cap,
                src_ptr(data).cast(),
                data.len(),
                &prefs,
            )
        },
        Some(d) => {
            // SAFETY: the dictionary pointer covers `d.len()` readable bytes
            // (ONE_BYTE when empty); C copies what it needs into the CDict.
            let cdict = unsafe { LZ4F_createCDict(src_ptr(d).cast(), d.len()) };
            if cdict.is_null() {
                return Err("LZ4F_createCDict failed".into());
            }
            let mut cctx = LZ4FCompressionContext(ptr::null_mut());
            // SAFETY: `cctx` is a valid out-parameter; freed below.
            let created =
                lz4f_result(unsafe { LZ4F_createCompressionContext(&mut cctx, LZ4F_VERSION) });
            let n = created.map(|_| {
                // SAFETY: `cctx` and `cdict` are live; the buffers are as in
                // the case without a dictionary.
                unsafe {
                    LZ4F_compressFrame_usingCDict(
                        cctx,
                        dst.as_mut_ptr().cast(),
                        cap,
                        src_ptr(data).cast(),
                        data.len(),
                        cdict,
                        &prefs,
                    )
                }
            });
            // SAFETY: both were created above (a failed context creation
            // leaves a null context, which C accepts), freed once.
            unsafe {
                LZ4F_freeCompressionContext(cctx);
                LZ4F_freeCDict(cdict);
            }
            n?
        }
    };
    dst.truncate(lz4f_result(n)?);
    Ok(dst)
}

/// A C frame decompression context, freed on drop.
struct Dctx(LZ4FDecompressionContext);

impl Dctx {
    fn new() -> Result<Self, String> {
        let mut ctx = LZ4FDecompressionContext(ptr::null_mut());
        // SAFETY: `ctx` is a valid out-parameter; the context is freed in
        // Drop.
        lz4f_result(unsafe { LZ4F_createDecompressionContext(&mut ctx, LZ4F_VERSION) })?;
        Ok(Dctx(ctx))
    }

    /// One `LZ4F_decompress_usingDict` call (a null dictionary when `dict`
    /// is empty): consumes up to `src.len()` bytes and writes up to
    /// `dst.len()`; returns (bytes read, bytes written, C's hint), the hint
    /// 0 when a frame has just ended.
    fn step(
        &mut self,
        src: &[u8],
        dst: &mut [u8],
        dict: &[u8],
        opts: &LZ4FDecompressOptions,
    ) -> Result<(usize, usize, usize), String> {
        let (mut src_len, mut dst_len) = (src.len(), dst.len());
        let mut spare = [0u8; 1];
        let d = dst_ptr(dst, &mut spare);
        let (dict_ptr, dict_len) = if dict.is_empty() {
            (ptr::null(), 0)
        } else {
            (dict.as_ptr(), dict.len())
        };
        // SAFETY: the context is live and borrowed mutably; the source
        // pointer covers `src_len` readable bytes and `d` `dst_len` writable
        // ones (ONE_BYTE / `spare` when empty, with size 0), not
        // overlapping; the dictionary is null or covers `dict_len` bytes.
        // C reads and writes within them and reports the counts back.
        // (With `stable_dst` set C may keep a pointer into the output for
        // the next call: `FrameDecoder::decode_into` sets it only while it
        // passes the rest of one buffer, and resets the context when it
        // gives up mid-frame.)
        let hint = unsafe {
            LZ4F_decompress_usingDict(
                self.0,
                d,
                &mut dst_len,
                src_ptr(src),
                &mut src_len,
                dict_ptr,
                dict_len,
                opts,
            )
        };
        lz4f_result(hint)
            .map(|hint| (src_len, dst_len, hint))
            .inspect_err(|_| self.reset())
    }

    /// Forget the frame in progress: after an error (a context in an error
    /// state must be reset before reuse), or to drop C's pointers into a
    /// buffer that is no longer lent to it.
    fn reset(&mut self) {
        // SAFETY: the context is live; resetting only clears its state.
        unsafe { LZ4F_resetDecompressionContext(self.0) };
    }
}

impl Drop for Dctx {
    fn drop(&mut self) {
        // SAFETY: created in new(), freed once, not used after.
        unsafe { LZ4F_freeDecompressionContext(self.0) };
    }
}

/// C's frame decoder with one context reused for every frame (what a
/// benchmark of C's frame decoding times).
pub struct FrameDecoder(Dctx);

impl FrameDecoder {
    /// A decoder with a fresh context.
    pub fn new() -> Result<Self, String> {
        Dctx::new().map(FrameDecoder)
    }

    /// Decode the one frame `frame` into `dst` (all output stays in `dst`,
    /// as in a one-shot decode); returns the decoded size.
    pub fn decode_into(&mut self, frame: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        let opts = LZ4FDecompressOptions {
            stable_dst: 1,
            reserved: [0; 3],
        };
        let (mut ip, mut op) = (0, 0);
        loop {
            let (read, written, hint) = self.0.step(&frame[ip..], &mut dst[op..], &[], &opts)?;
            ip += read;
            op += written;
            if hint == 0 {
                return Ok(op);
            }
            if read == 0 && written == 0 {
                // Mid-frame, C may still point into `dst`: forget the frame.
                self.0.reset();
                return Err("LZ4F_decompress: truncated frame".into());
            }
        }
    }
}

/// Why C's frame decoder gave no content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// C rejects the input, or it ends inside a frame.
    Rejected(String),
    /// The content passed the limit given (not decoded to the end).
    TooLarge,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Rejected(why) => f.write_str(why),
            FrameError::TooLarge => f.write_str("content over the limit"),
        }
    }
}

/// Decode a stream of frames (one or more, skippable ones included) with
/// C's `LZ4F_decompress_usingDict`, with `dict` as every frame's dictionary
/// if given. A stream that ends inside a frame is rejected ("incomplete");
/// decoding stops with [`FrameError::TooLarge`] once the content passes
/// `limit` bytes.
pub fn decompress_frames(
    src: &[u8],
    dict: Option<&[u8]>,
    limit: usize,
) -> Result<Vec<u8>, FrameError> {
    if src.is_empty() {
        return Ok(Vec::new());
    }
    let mut ctx = Dctx::new().map_err(FrameError::Rejected)?;
    let opts = LZ4FDecompressOptions {
        stable_dst: 0,
        reserved: [0; 3],
    };
    let dict = dict.unwrap_or(&[]);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut pos = 0;
    // Whether the last call that made progress ended a frame.
    let mut frame_done = false;
    loop {
        let (read, written, hint) = ctx
            .step(&src[pos..], &mut buf, dict, &opts)
            .map_err(FrameError::Rejected)?;
        pos += read;
        out.extend_from_slice(&buf[..written]);
        if read == 0 && written == 0 {
            return if frame_done && pos == src.len() {
                Ok(out)
            } else {
                Err(FrameError::Rejected(format!(
                    "incomplete (hint {hint}, at {pos} of {})",
                    src.len()
                )))
            };
        }
        frame_done = hint == 0;
        if out.len() > limit {
            return Err(FrameError::TooLarge);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_is_1_x() {
        assert!(version().starts_with("1."), "{}", version());
    }

    #[test]
    fn blocks_round_trip_at_every_kind_of_level() {
        let data = crate::data::mixed(100_000, 1);
        for level in [-20, 0, 1, 2, 9, 12, 99] {
            let c = compress(&data, level).unwrap();
            assert_eq!(decompress(&c, data.len(), &[], 0xAA).unwrap(), data);
            // A reused state, fast or HC by level, compresses as one-shot.
            let mut state = State::new(level).unwrap();
            let mut dst = vec![0u8; bound_for_either(data.len())];
            for _ in 0..2 {
                let n = state.compress_into(&data, &mut dst, level).unwrap();
                assert_eq!(&dst[..n], &c[..], "level {level}");
            }
        }
        // Empty input: C writes a lone token.
        assert_eq!(compress(&[], 12).unwrap(), [0]);
        assert_eq!(decompress(&[0], 0, &[], 0).unwrap(), []);
    }

    #[test]
    fn dictionary_blocks_round_trip() {
        let dict = crate::data::text(70_000, 2);
        let data = [&dict[10_000..12_000], &crate::data::text(3000, 3)[..]].concat();
        let c = compress_with_dict(&data, &dict, 1).unwrap();
        assert_eq!(decompress(&c, data.len(), &dict, 0).unwrap(), data);
        assert_eq!(decompress(&c, data.len(), &[], 0), None);
    }

    #[test]
    fn malformed_blocks_and_small_buffers_are_none() {
        let mut out = [0u8; 64];
        // A token promising 15+ literals with nothing after it.
        assert_eq!(decompress_into(&[0xF0], &mut out), None);
        assert_eq!(decompress_into(&[], &mut out), None);
        let data = crate::data::random(1000, 4);
        assert_eq!(compress_into(&data, &mut out, 1), None);
        assert_eq!(decompress(&compress(&data, 1).unwrap(), 999, &[], 0), None);
    }

    #[test]
    fn lengths_above_i32_max_are_refused() {
        assert_eq!(compress_bound(i32::MAX as usize + 1), None);
        assert_eq!(c_len(i32::MAX as usize), Some(i32::MAX));
        assert_eq!(c_len(i32::MAX as usize + 1), None);
    }

    #[test]
    fn frames_round_trip_with_and_without_dictionary() {
        let data = crate::data::mixed(300_000, 5);
        let dict = crate::data::text(50_000, 6);
        for linked in [false, true] {
            let s = FrameSettings {
                level: 1,
                block_size: BlockSize::Max64KB,
                linked,
                block_checksum: true,
                content_checksum: true,
                content_size: linked,
                dict_id: 0,
            };
            for d in [None, Some(&dict[..])] {
                let f = compress_frame(&data, &s, d).unwrap();
                assert_eq!(decompress_frames(&f, d, usize::MAX).unwrap(), data);
                let two = [&f[..], &f[..]].concat();
                assert_eq!(
                    decompress_frames(&two, d, usize::MAX).unwrap().len(),
                    2 * data.len()
                );
                assert_eq!(decompress_frames(&f, d, 1000), Err(FrameError::TooLarge));
                let cut = decompress_frames(&f[..f.len() - 1], d, usize::MAX);
                assert!(matches!(cut, Err(FrameError::Rejected(_))), "{cut:?}");
            }
            let f = compress_frame(&data, &s, None).unwrap();
            let mut dec = FrameDecoder::new().unwrap();
            let mut out = vec![0u8; data.len()];
            for _ in 0..2 {
                assert_eq!(dec.decode_into(&f, &mut out).unwrap(), data.len());
                assert_eq!(out, data);
                assert!(dec.decode_into(&f[..20], &mut out).is_err());
            }
        }
    }
}
