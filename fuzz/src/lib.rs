//! Shared pieces of the lzkit fuzz targets: the tables of decoder variants
//! every target loops over, safe wrappers of the C reference (liblz4 via
//! `lz4-sys`), and small helpers.
//!
//! To fuzz a new decoder variant, add a row to [`BLOCK_DECODERS`] or
//! [`FRAME_DECODERS`]: every target checks every row against the C
//! reference and against the other rows.

use lz4_sys::{LZ4F_VERSION, LZ4FDecompressionContext, c_char, c_int};
use lzkit::lz4::{block, frame};
use std::io::{self, Read};
use std::ptr;
use std::sync::OnceLock;

// ---------------------------------------------------------------------------
// Decoder variants.
// ---------------------------------------------------------------------------

/// A block decoder: `(src, dst, dict) -> decoded length`. An empty `dict`
/// means none.
pub type BlockDecodeFn = fn(&[u8], &mut [u8], &[u8]) -> lzkit::Result<usize>;

/// A named block decoder variant.
#[derive(Clone, Copy)]
pub struct BlockDecoder {
    pub name: &'static str,
    pub decode: BlockDecodeFn,
    /// Whether it takes a dictionary (if not, only called with an empty one).
    pub dict: bool,
}

fn block_plain(src: &[u8], dst: &mut [u8], _dict: &[u8]) -> lzkit::Result<usize> {
    block::decompress_into(src, dst)
}

fn block_with_dict(src: &[u8], dst: &mut [u8], dict: &[u8]) -> lzkit::Result<usize> {
    block::decompress_with_dict_into(src, dst, dict)
}

/// Decode with the `I`th entry of `Variant::ALL`, forced (a fresh adaptive
/// decoder would only ever reach its first arm). A variant this CPU cannot
/// run falls back to the adaptive decoder, so its row still checks something.
fn block_variant<const I: usize>(src: &[u8], dst: &mut [u8], _dict: &[u8]) -> lzkit::Result<usize> {
    match block::Decoder::with_variant(block::Variant::ALL[I]) {
        Ok(mut d) => d.decompress_into(src, dst),
        Err(_) => block::decompress_into(src, dst),
    }
}

/// One table row per decoder variant.
macro_rules! variant_rows {
    ($($i:literal),*) => {
        [$(BlockDecoder { name: "Decoder::with_variant", decode: block_variant::<$i>, dict: false }),*]
    };
}

/// Every block decoder under test.
pub const BLOCK_DECODERS: &[BlockDecoder] = &{
    let plain = [
        BlockDecoder {
            name: "decompress_into",
            decode: block_plain,
            dict: false,
        },
        BlockDecoder {
            name: "decompress_with_dict_into",
            decode: block_with_dict,
            dict: true,
        },
    ];
    let variants = variant_rows!(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
        26, 27, 28, 29
    );
    let mut all = [BlockDecoder { name: "", decode: block_plain, dict: false }; 32];
    let mut i = 0;
    while i < 32 {
        all[i] = if i < 2 { plain[i] } else { variants[i - 2] };
        i += 1;
    }
    all
};

/// A frame decoder: `(src, dict) -> content`. An empty `dict` means none.
pub type FrameDecodeFn = fn(&[u8], &[u8]) -> lzkit::Result<Vec<u8>>;

/// A named frame decoder variant.
pub struct FrameDecoderVariant {
    pub name: &'static str,
    pub decode: FrameDecodeFn,
}

fn frame_one_shot(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    if dict.is_empty() {
        frame::decompress(src)
    } else {
        frame::decompress_with_dict(src, dict)
    }
}

fn frame_stream_big(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    stream_decode(src, dict, usize::MAX, 1 << 16)
}

fn frame_stream_tiny(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    stream_decode(src, dict, 3, 7)
}

fn frame_stream_bytewise(src: &[u8], dict: &[u8]) -> lzkit::Result<Vec<u8>> {
    stream_decode(src, dict, 1, 1)
}

/// Every frame decoder under test.
pub const FRAME_DECODERS: &[FrameDecoderVariant] = &[
    FrameDecoderVariant {
        name: "decompress",
        decode: frame_one_shot,
    },
    FrameDecoderVariant {
        name: "FrameDecoder",
        decode: frame_stream_big,
    },
    FrameDecoderVariant {
        name: "FrameDecoder 3-byte input, 7-byte reads",
        decode: frame_stream_tiny,
    },
    FrameDecoderVariant {
        name: "FrameDecoder 1-byte input, 1-byte reads",
        decode: frame_stream_bytewise,
    },
];

/// A reader that hands out at most `chunk` bytes per call.
pub struct Trickle<'a> {
    pub data: &'a [u8],
    pub chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Decode with `FrameDecoder` over a reader giving `in_chunk` bytes per call,
/// reading `out_chunk` bytes at a time.
pub fn stream_decode(
    src: &[u8],
    dict: &[u8],
    in_chunk: usize,
    out_chunk: usize,
) -> lzkit::Result<Vec<u8>> {
    let r = Trickle {
        data: src,
        chunk: in_chunk,
    };
    let mut d = if dict.is_empty() {
        frame::FrameDecoder::new(r)
    } else {
        frame::FrameDecoder::with_dictionary(r, dict)
    };
    let mut out = Vec::new();
    let mut buf = vec![0u8; out_chunk];
    loop {
        match d.read(&mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(lzkit::Error::from_io(e)),
        }
    }
}

/// A fixed 70 KB text-like dictionary (longer than the 64 KiB window).
pub fn dictionary() -> &'static [u8] {
    static D: OnceLock<Vec<u8>> = OnceLock::new();
    D.get_or_init(|| {
        let words = [
            "lz4 ",
            "frame ",
            "block ",
            "the ",
            "of ",
            "and ",
            "match ",
            "offset ",
            "literal ",
            "\n",
            "0123456789",
            "dictionary ",
            "window ",
            "checksum ",
        ];
        let mut v = Vec::with_capacity(70_000);
        let mut x = 0x1234_5678u32;
        while v.len() < 70_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            v.extend_from_slice(words[(x % words.len() as u32) as usize].as_bytes());
        }
        v.truncate(70_000);
        v
    })
}

// ---------------------------------------------------------------------------
// The C reference.
// ---------------------------------------------------------------------------

unsafe extern "C" {
    fn LZ4_decompress_safe_usingDict(
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
        dict: *const c_char,
        dict_size: c_int,
    ) -> c_int;
    fn LZ4F_decompress_usingDict(
        dctx: LZ4FDecompressionContext,
        dst: *mut u8,
        dst_size: &mut usize,
        src: *const u8,
        src_size: &mut usize,
        dict: *const u8,
        dict_size: usize,
        opts: *const std::ffi::c_void,
    ) -> usize;
}

static ONE_BYTE: [u8; 1] = [0];

/// A pointer C may read even for an empty slice.
fn cptr(s: &[u8]) -> *const u8 {
    if s.is_empty() {
        ONE_BYTE.as_ptr()
    } else {
        s.as_ptr()
    }
}

/// C block decoding (`LZ4_decompress_safe[_usingDict]`) into `cap` bytes
/// prefilled with `fill`: `None` if C rejects the block.
pub fn c_block_decode(src: &[u8], cap: usize, dict: &[u8], fill: u8) -> Option<Vec<u8>> {
    let mut dst = vec![fill; cap.max(1)];
    let r = unsafe {
        if dict.is_empty() {
            lz4_sys::LZ4_decompress_safe(
                cptr(src) as *const c_char,
                dst.as_mut_ptr() as *mut c_char,
                src.len() as c_int,
                cap as c_int,
            )
        } else {
            LZ4_decompress_safe_usingDict(
                cptr(src) as *const c_char,
                dst.as_mut_ptr() as *mut c_char,
                src.len() as c_int,
                cap as c_int,
                cptr(dict) as *const c_char,
                dict.len() as c_int,
            )
        }
    };
    if r < 0 {
        None
    } else {
        dst.truncate(r as usize);
        Some(dst)
    }
}

/// What C's frame decoder made of an input.
#[derive(Debug)]
pub enum CFrame {
    /// Decoded completely.
    Ok(Vec<u8>),
    /// An error, or the input ends inside a frame.
    Rejected,
    /// Not decoded to the end (output too large to be a useful test).
    Skipped,
}

/// C frame decoding (`LZ4F_decompress_usingDict`) of a stream of frames.
pub fn c_frame_decode(src: &[u8], dict: &[u8]) -> CFrame {
    if src.is_empty() {
        return CFrame::Ok(Vec::new());
    }
    let mut ctx = LZ4FDecompressionContext(ptr::null_mut());
    let e = unsafe { lz4_sys::LZ4F_createDecompressionContext(&mut ctx, LZ4F_VERSION) };
    assert_eq!(unsafe { lz4_sys::LZ4F_isError(e) }, 0);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut pos = 0;
    // Whether the last call that made progress ended a frame.
    let mut frame_done = false;
    let result = loop {
        let mut src_size = src.len() - pos;
        let mut dst_size = buf.len();
        let (d, dl) = if dict.is_empty() {
            (ptr::null(), 0)
        } else {
            (dict.as_ptr(), dict.len())
        };
        let r = unsafe {
            LZ4F_decompress_usingDict(
                ctx,
                buf.as_mut_ptr(),
                &mut dst_size,
                cptr(&src[pos..]),
                &mut src_size,
                d,
                dl,
                ptr::null(),
            )
        };
        if unsafe { lz4_sys::LZ4F_isError(r) } != 0 {
            break CFrame::Rejected;
        }
        pos += src_size;
        out.extend_from_slice(&buf[..dst_size]);
        if src_size == 0 && dst_size == 0 {
            break if frame_done && pos == src.len() {
                CFrame::Ok(out)
            } else {
                CFrame::Rejected
            };
        }
        frame_done = r == 0;
        if out.len() > 64 << 20 {
            break CFrame::Skipped;
        }
    };
    unsafe {
        lz4_sys::LZ4F_freeDecompressionContext(ctx);
    }
    result
}

/// Whether `data` contains the legacy magic number anywhere (C's frame API
/// does not read the legacy format, so C-vs-ours comparisons skip it).
pub fn mentions_legacy(data: &[u8]) -> bool {
    let m = frame::LEGACY_MAGIC.to_le_bytes();
    data.windows(4).any(|w| w == m)
}

// One block-decoder row per variant: keep `variant_rows!` in step with the enum.
const _: () = assert!(block::Variant::ALL.len() == 30);
