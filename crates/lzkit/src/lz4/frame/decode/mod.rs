//! Reading frames, one module per way of reading them:
//!
//! * [`mod@slice`]: the one-shot [`decompress`] (blocks decoded straight into
//!   the output vector);
//! * [`stream`]: the streaming [`FrameDecoder`] (memory bounded by the block
//!   size), whose position in the input is one [`stream::Stage`];
//! * [`parallel`]: independent-block frames decoded in batches on a pool
//!   (the one-shot and streaming paths both hand their frames to it when
//!   given more than one thread);
//! * [`legacy`]: the legacy format (`lz4 -l`), one-shot and streaming;
//! * [`push`]: [`PushDecoder`], a frame fed in pieces by its caller.
//!
//! All of them drive the same per-frame logic, [`frame_state::FrameState`],
//! decode every block with the same function, [`frame_state::decode_raw`],
//! and read their input through [`input`]. A failing block stops the output
//! just where serial decoding stops it, with the same error, whatever the
//! path.
//!
//! The modules form layers, each importing only from those below it:
//! `frame_state` (lowest), `input`, then `legacy` and `parallel`, then
//! `slice`, `stream` and `push`, then this module's functions.

mod frame_state;
mod input;
mod legacy;
mod parallel;
mod push;
mod slice;
mod stream;

pub use push::PushDecoder;
pub use slice::max_decoded_len;
pub use stream::FrameDecoder;

use super::DecodeOptions;
use crate::error::{Error, Result};
use crate::pool::effective_threads;
use std::io::Read;

/// Decode every frame in `src` (standard, legacy; skippable frames skipped).
///
/// Memory: the output, reserved up to a few times the input's size (a
/// content size in a header is a claim, and is trusted no further) and
/// grown as blocks decode. An allocation the system refuses is
/// [`Error::OutOfMemory`].
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
///
/// let a = frame::compress(b"first frame, ", &FrameOptions::new());
/// let b = frame::compress(b"then a legacy one", &FrameOptions::new().legacy(true));
/// assert_eq!(frame::decompress(&[a, b].concat())?, b"first frame, then a legacy one");
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress(src: &[u8]) -> Result<Vec<u8>> {
    slice::decompress(src, 1)
}

/// The first frame of `src` only (python-lz4's `lz4.frame.decompress`):
/// its content and the number of bytes of `src` it took, on `threads`
/// threads for a frame of independent blocks (0: one per core). A
/// skippable frame decodes to nothing; a legacy stream runs to the next
/// magic number.
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
/// let a = frame::compress(b"first", &FrameOptions::new());
/// let both = [a.clone(), frame::compress(b"second", &FrameOptions::new())].concat();
/// assert_eq!(frame::decompress_first(&both, 1)?, (b"first".to_vec(), a.len()));
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_first(src: &[u8], threads: usize) -> Result<(Vec<u8>, usize)> {
    slice::decompress_first(src, effective_threads(threads))
}

/// The first frame of `src`, a standard frame without a dictionary,
/// decoded into `dst`: returns the bytes written and the bytes of `src` it
/// took. A frame that decodes to more than `dst` holds is an error (size
/// `dst` from the frame's content size, [`super::read_header`]).
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
/// let data = b"into the caller's buffer ".repeat(100);
/// let packed = frame::compress(&data, &FrameOptions::new().content_size(Some(data.len() as u64)));
/// let mut out = vec![0u8; data.len()];
/// assert_eq!(frame::decompress_into(&packed, &mut out)?, (data.len(), packed.len()));
/// assert_eq!(out, data);
/// assert!(frame::decompress_into(&packed, &mut out[..100]).is_err());
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_into(src: &[u8], dst: &mut [u8]) -> Result<(usize, usize)> {
    slice::decompress_into(src, dst, true)
}

/// [`decompress_into`], checking the frame's own checksums only if
/// `verify` (a seekable entry whose table's checksum covers its bytes).
pub(crate) fn decompress_into_verifying(
    src: &[u8],
    dst: &mut [u8],
    verify: bool,
) -> Result<(usize, usize)> {
    slice::decompress_into(src, dst, verify)
}

/// [`decompress`] with a dictionary (the one the frames were compressed with).
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
///
/// let dict = b"shared vocabulary for small messages ".repeat(10);
/// let opts = FrameOptions::new().dictionary(&dict[..]).dict_id(Some(1));
/// let packed = frame::compress(b"small messages, shared vocabulary", &opts);
/// let out = frame::decompress_with_dict(&packed, &dict)?;
/// assert_eq!(out, b"small messages, shared vocabulary");
/// // Without it, a frame with a dictionary ID is refused.
/// assert!(frame::decompress(&packed).is_err());
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_with_dict(src: &[u8], dict: &[u8]) -> Result<Vec<u8>> {
    if dict.is_empty() {
        return slice::decompress(src, 1);
    }
    // Dictionaries are rare: let the streaming decoder keep them in its window.
    let mut out = Vec::new();
    FrameDecoder::with_dictionary(src, dict)
        .read_to_end(&mut out)
        .map_err(Error::from_io)?;
    Ok(out)
}

/// [`decompress`] with options: a dictionary, and worker threads that
/// decode the blocks of independent-block frames in parallel. The result,
/// and the error on corrupt input, are the same as [`decompress`]'s (or
/// [`decompress_with_dict`]'s) whatever the thread count.
///
/// ```
/// use lzkit::lz4::frame::{self, BlockSize, DecodeOptions, FrameOptions};
///
/// let data: Vec<u8> = (0..2_000_000u32).map(|i| (i % 251) as u8).collect();
/// let opts = FrameOptions::new().block_size(BlockSize::Max64KB).threads(0);
/// let packed = frame::compress(&data, &opts);
/// let out = frame::decompress_with(&packed, &DecodeOptions::new().threads(0))?;
/// assert_eq!(out, data);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn decompress_with(src: &[u8], opts: &DecodeOptions) -> Result<Vec<u8>> {
    let dict = opts.dictionary.as_deref().unwrap_or_default();
    match dict {
        _ if !dict.is_empty() || !opts.verify_checksums => {
            let mut out = Vec::new();
            FrameDecoder::with_options(src, opts)
                .read_to_end(&mut out)
                .map_err(Error::from_io)?;
            Ok(out)
        }
        _ => slice::decompress(src, effective_threads(opts.threads)),
    }
}
