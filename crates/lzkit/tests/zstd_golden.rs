//! Hand-built zstd frames for the edge cases of RFC 8878 that libzstd's
//! own golden files cover (our own bytes, written field by field, with
//! the same properties): a compressed block of exactly 128 KiB, empty
//! blocks, an RLE first block, the 2-byte zero Number_of_Sequences; and
//! the error cases: an offset that resolves to 0, a truncated FSE state
//! in Huffman weights, bytes after a zero Number_of_Sequences; plus
//! reserved fields, window limits, checksums, content sizes, dictionary
//! IDs, truncation at every byte and skippable frames.
//!
//! Every input is decoded every way lzkit offers (`zstd_check`) and, where
//! libzstd's verdict is defined by the format, compared with libzstd's.

use lzkit::zstd::{self, DecodeOptions, Decoder, Dictionary, FrameDecoder};
use lzkit::{Error, ZstdFault, ZstdFrameFault};
use lzkit_testkit::zstd_check::{Ways, decode_every_way, stream, zstd_fault, zstd_frame_fault};
use lzkit_testkit::zstd_frames::*;
use lzkit_testkit::zstd_ref::{self, Settings};
use lzkit_testkit::{assert_same, text};

/// A header for small test frames with compressed blocks: a 1 KiB window
/// and a content size. (A single-segment frame's window is its content
/// size, and Block_Content may not exceed the window, RFC 8878
/// §3.1.1.2.3: a compressed block larger than the data it makes would be
/// invalid there; see [`block_larger_than_single_segment_window`].)
fn small(content_size: usize) -> FrameHeader {
    FrameHeader::with_window_log(10).content_size(Some(content_size as u64))
}

/// `frame` must decode to `expected` every way, and libzstd must agree.
#[track_caller]
fn expect_ok(name: &str, frame: &[u8], expected: &[u8]) {
    let r = decode_every_way(frame, &Ways::default(), name);
    match &r {
        Ok(v) => assert_same(v, expected, name),
        Err(e) => panic!("{name}: lzkit rejects a valid frame: {e}"),
    }
    let reference = zstd_ref::decompress(frame, None);
    zstd_ref::check_same_verdict(&r, &reference, &format!("{name} (against libzstd)"));
}

/// `frame` must be rejected every way, and by libzstd; returns lzkit's error.
#[track_caller]
fn expect_err(name: &str, frame: &[u8]) -> Error {
    let r = decode_every_way(frame, &Ways::default(), name);
    let reference = zstd_ref::decompress(frame, None);
    assert!(
        reference.is_err(),
        "{name}: test bug: libzstd accepts this frame"
    );
    match r {
        Ok(v) => panic!(
            "{name}: lzkit accepted an invalid frame ({} bytes)",
            v.len()
        ),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------
// Valid edge cases (libzstd's golden-decompression set).
// ---------------------------------------------------------------------------

/// block-128k: a Compressed_Block whose Block_Size is exactly 128 KiB, the
/// Block_Maximum_Size (allowed since format 0.3.2; libzstd up to 1.5.2
/// rejected it). Raw literals fill it: 3 header bytes + 131,068 literals
/// + 1 byte of Number_of_Sequences = 131,072.
#[test]
fn block_128k_compressed_size() {
    let data = text(131_068, 128);
    let mut content = raw_literals(&data); // Size_Format 11: 3-byte header
    content.push(0x00); // Number_of_Sequences = 0
    assert_eq!(content.len(), 128 << 10);
    // Window 2^17 = 128 KiB (Window_Descriptor 0x38): Block_Maximum_Size
    // is min(window, 128 KiB) = 128 KiB, so the block fits exactly.
    let header = FrameHeader::with_window_log(17).checksum(true);
    let f = frame(&header, &[compressed_block(true, &content)], &data);
    expect_ok("block-128k (Block_Size 131072)", &f, &data);

    // One byte more is past Block_Maximum_Size.
    let data = text(131_069, 129);
    let mut content = raw_literals(&data);
    content.push(0x00);
    let f = frame(&header, &[compressed_block(true, &content)], &data);
    expect_err("Block_Size 131073", &f);

    // A window of 64 KiB lowers Block_Maximum_Size to 64 KiB.
    let data = text(65_533, 64);
    let mut content = raw_literals(&data);
    content.push(0x00);
    assert_eq!(content.len(), 65_537);
    let header = FrameHeader::with_window_log(16);
    let f = frame(&header, &[compressed_block(true, &content)], &data);
    expect_err("Block_Size 65537 in a 64 KiB window", &f);
}

/// A Compressed_Block that regenerates exactly 128 KiB from one literal
/// and one match (offset 1, length 131,071), and one that regenerates a
/// byte more (past Block_Maximum_Size: an error).
#[test]
fn block_128k_regenerated() {
    for (ml_extra, ok) in [(65_532u64, true), (65_533, false)] {
        let regenerated = 1 + 65_539 + ml_extra as usize;
        let mut content = raw_literals(b"z"); // 1 literal
        // One sequence, all three codes in RLE_Mode:
        // LL code 1 = 1 literal; OF code 2: Offset_Value = 4 + 2 extra
        // bits (0) = 4 = offset 1; ML code 52: 65,539 + 16 extra bits.
        content.extend(rle_sequences(
            1,
            2,
            52,
            &[SeqExtra {
                offset: 0,
                match_length: ml_extra,
                literals_length: 0,
            }],
        ));
        let expected = vec![b'z'; regenerated];
        // Single-segment frames: the window is the content size (at least
        // 128 KiB here, so Block_Maximum_Size is 128 KiB).
        let header = FrameHeader::single_segment(regenerated as u64).checksum(true);
        let f = frame(&header, &[compressed_block(true, &content)], &expected);
        if ok {
            expect_ok("compressed block regenerating 131072", &f, &expected);
        } else {
            expect_err("compressed block regenerating 131073", &f);
        }
    }
}

/// empty-block: a last Raw_Block of size 0, alone and after data; an
/// empty RLE_Block; a Compressed_Block with no literals and no sequences
/// (libzstd up to 1.5.2 rejected the last).
#[test]
fn empty_blocks() {
    // Single segment, content size 0, one empty last raw block.
    let f = frame(
        &FrameHeader::single_segment(0),
        &[raw_block(true, &[])],
        &[],
    );
    expect_ok("empty-block (raw, size 0)", &f, &[]);

    // Data, then an empty last raw block; window 1 KiB, no content size.
    let data = b"data before an empty last block";
    let header = FrameHeader::with_window_log(10).checksum(true);
    let f = frame(
        &header,
        &[raw_block(false, data), raw_block(true, &[])],
        data,
    );
    expect_ok("raw block, then empty last raw block", &f, data);

    // An empty RLE block between two raw ones.
    let f = frame(
        &header,
        &[
            raw_block(false, b"data "),
            rle_block(false, b'x', 0),
            raw_block(true, b"more"),
        ],
        b"data more",
    );
    expect_ok("empty RLE block", &f, b"data more");

    // A compressed block: raw literals of size 0 (0x00), 0 sequences (0x00).
    let f = frame(&small(0), &[compressed_block(true, &[0x00, 0x00])], &[]);
    expect_ok("compressed block, 0 literals and 0 sequences", &f, &[]);
}

/// The rle-first-block frame (below) and what it decodes to: an RLE block
/// of 131,072 bytes, then one of 7; single segment, content size 131,079
/// (a 4-byte field), with a checksum.
fn rle_first_block_frame() -> (Vec<u8>, Vec<u8>) {
    let mut expected = vec![0x5A; 131_072];
    expected.extend([0xA5; 7]);
    let header = FrameHeader::single_segment(expected.len() as u64).checksum(true);
    let f = frame(
        &header,
        &[rle_block(false, 0x5A, 131_072), rle_block(true, 0xA5, 7)],
        &expected,
    );
    (f, expected)
}

/// rle-first-block: a frame whose first block is an RLE_Block of 131,072
/// bytes, followed by a second RLE block (the zstd CLI up to 1.4.3
/// rejected it; the compressor never makes one).
#[test]
fn rle_first_block() {
    let (f, expected) = rle_first_block_frame();
    expect_ok("rle-first-block", &f, &expected);

    // An RLE block of 131,073 is past Block_Maximum_Size.
    let header = FrameHeader::single_segment(131_073);
    let f = frame(&header, &[rle_block(true, 0x5A, 131_073)], &[]);
    expect_err("RLE block of 131073", &f);
}

/// zeroSeq_2B: Number_of_Sequences 0 written in the 2-byte form
/// (`0x80 0x00`: byte0 in 128..=254 means ((byte0 − 0x80) << 8) + byte1);
/// the sequences section ends there and the literals are the block.
#[test]
fn zero_sequences_two_byte_form() {
    let lits = b"zero sequences, in the two-byte form";
    let mut content = raw_literals(lits);
    content.extend([0x80, 0x00]); // Number_of_Sequences = 0, 2 bytes
    let header = small(lits.len()).checksum(true);
    let f = frame(&header, &[compressed_block(true, &content)], lits);
    expect_ok("zeroSeq_2B", &f, lits);
}

/// The smallest Huffman-compressed literals section: weights FSE-coded
/// with two states (RFC 8878 §4.2.1.2), used by the truncated-state test
/// and its valid twin.
mod huffman {
    use super::*;

    /// FSE table description of the weights (RFC 8878 §4.1.1): 4 bits
    /// Accuracy_Log − 5 = 0 (table of 32 states); then weight 0 with
    /// probability 16 (value 17, short form: 5 bits) and weight 1 with
    /// probability 16 (value 17, long form: 5 bits holding 17 + 14 = 31);
    /// the remaining probability is then 0. 14 bits: `0x10 0x3F`.
    ///
    /// Spreading (step 23) gives state 3 weight 1; its update reads 1 bit.
    pub const WEIGHT_TABLE: [u8; 2] = [0x10, 0x3F];

    /// The literals section: Huffman tree description (header byte =
    /// size of the FSE-coded weights), the single stream, then 0
    /// sequences.
    pub fn block(
        weights_bitstream: &[u8],
        literals: &[u8],
        codes: &dyn Fn(u8) -> (u32, u64),
    ) -> Vec<u8> {
        let mut tree = vec![(WEIGHT_TABLE.len() + weights_bitstream.len()) as u8];
        tree.extend(WEIGHT_TABLE);
        tree.extend_from_slice(weights_bitstream);
        // The Huffman stream: each literal's code, first literal read first.
        let fields: Vec<(u32, u64)> = literals.iter().map(|&b| codes(b)).collect();
        let stream = backward_bitstream(&fields);
        let mut content =
            huffman_1_stream_literals_header(literals.len(), tree.len() + stream.len()).to_vec();
        content.extend(tree);
        content.extend(stream);
        content.push(0x00); // Number_of_Sequences = 0
        content
    }
}

/// The valid twin of the truncated-state case: the weights' bit stream
/// holds both 5-bit initial states (3 and 3: weights 1 and 1 for
/// literals 0 and 1; literal 2's weight 2 is implied), so the tree is
/// literal 2 → `1`, 0 → `00`, 1 → `01`.
#[test]
fn huffman_weights_two_states() {
    // Initial states read first: state 1 = 3, state 2 = 3 (10 bits), then
    // the end marker: 0x463 → `63 04`. The first state update reads past
    // the end, which ends the weights after two symbols.
    let weights = backward_bitstream(&[(5, 3), (5, 3)]);
    assert_eq!(weights, [0x63, 0x04]);
    let lits = [2u8, 2, 0, 1, 2, 1, 0, 2];
    let codes = |b: u8| match b {
        0 => (2, 0b00),
        1 => (2, 0b01),
        _ => (1, 0b1),
    };
    let content = huffman::block(&weights, &lits, &codes);
    let f = frame(
        &small(lits.len()),
        &[compressed_block(true, &content)],
        &lits,
    );
    expect_ok("Huffman weights in two FSE states", &f, &lits);
}

/// truncated_huff_state: the FSE-coded Huffman weights' bit stream has
/// fewer bits than the two initial states need (7 of 10): an error
/// (libzstd up to 1.5.6 read the missing bits as zeros, which here gives
/// a valid tree: weights 1, 0, implied 1; the literals are coded for
/// that tree, so the truncated state is the only fault).
#[test]
fn truncated_huffman_state() {
    // One byte: marker (bit 7), state 1 = 3 (bits 6–2), and only the top
    // 2 bits of state 2 (bits 1–0, zero).
    let weights = [0x8C];
    let lits = [2u8, 0, 2, 2, 0];
    let codes = |b: u8| if b == 0 { (1, 0) } else { (1, 1) };
    let content = huffman::block(&weights, &lits, &codes);
    let f = frame(
        &small(lits.len()),
        &[compressed_block(true, &content)],
        &lits,
    );
    expect_err("truncated_huff_state", &f);
}

/// History for the sequence tests: a raw block of 8 bytes.
const HISTORY: &[u8] = b"ABCDEFGH";

/// A frame of [`HISTORY`] in a raw block, then a compressed block of no
/// literals and one sequence with codes LL 0, OF 1, ML 0 (3 bytes), whose
/// single offset extra bit is `of_extra`: Offset_Value = 2 + of_extra.
/// With Literals_Length 0, Offset_Value 2 is Repeated_Offset3 (8) and 3
/// is Repeated_Offset1 − 1 = 1 − 1 = 0.
fn repeat_offset_frame(of_extra: u64, extra_bytes: &[u8]) -> Vec<u8> {
    let mut content = raw_literals(&[]);
    content.extend(rle_sequences(
        0,
        1,
        0,
        &[SeqExtra {
            offset: of_extra,
            ..SeqExtra::default()
        }],
    ));
    content.extend_from_slice(extra_bytes);
    let header = FrameHeader::with_window_log(10);
    frame(
        &header,
        &[raw_block(false, HISTORY), compressed_block(true, &content)],
        &[],
    )
}

/// off0: an offset that resolves to 0 (Literals_Length 0, Offset_Value 3,
/// Repeated_Offset1 1) is an error (libzstd up to 1.5.5 used 1).
#[test]
fn offset_zero() {
    expect_ok(
        "Offset_Value 2 with Literals_Length 0 (Repeated_Offset3 = 8)",
        &repeat_offset_frame(0, &[]),
        b"ABCDEFGHABC",
    );
    expect_err("off0", &repeat_offset_frame(1, &[]));
}

/// A sequences bit stream must end exactly: one with a byte left over,
/// and one that needs a bit it does not have, are errors.
#[test]
fn sequence_bitstream_must_end_exactly() {
    expect_err(
        "bits left over in the sequences bit stream",
        &repeat_offset_frame(0, &[0x01]),
    );
    // OF code 3 needs 3 extra bits; the stream has only the marker.
    let mut content = raw_literals(&[]);
    content.extend([0x01, 0b01_01_01_00, 0, 3, 0, 0x01]);
    let f = frame(
        &FrameHeader::with_window_log(10),
        &[raw_block(false, HISTORY), compressed_block(true, &content)],
        &[],
    );
    expect_err("sequences bit stream too short", &f);
}

/// zeroSeq_extraneous: Number_of_Sequences 0 followed by more bytes in the
/// block is an error, in the 1- and the 2-byte form.
#[test]
fn zero_sequences_extraneous_bytes() {
    for (name, tail) in [
        ("zeroSeq_extraneous (1-byte form)", &[0x00u8, 0x00][..]),
        ("zeroSeq_extraneous (2-byte form)", &[0x80, 0x00, 0x2A][..]),
    ] {
        let lits = b"literals";
        let mut content = raw_literals(lits);
        content.extend_from_slice(tail);
        let f = frame(
            &small(lits.len()),
            &[compressed_block(true, &content)],
            lits,
        );
        expect_err(name, &f);
    }
}

/// The reserved bits of Symbol_Compression_Modes must be 0 (libzstd up to
/// 1.5.5 ignored them).
#[test]
fn sequence_modes_reserved_bits() {
    let good = repeat_offset_frame(0, &[]);
    // The modes byte is the 3rd byte of the compressed block's content:
    // literals header (1), Number_of_Sequences (1), modes.
    let at = good.len() - 5;
    assert_eq!(good[at], 0b01_01_01_00);
    for bits in 1..=3u8 {
        let mut f = good.clone();
        f[at] |= bits;
        expect_err(
            &format!("Symbol_Compression_Modes reserved bits {bits}"),
            &f,
        );
    }
}

// ---------------------------------------------------------------------------
// Frame-level errors.
// ---------------------------------------------------------------------------

/// In a single-segment frame the window is the content size, and
/// Block_Content is limited by the window (RFC 8878 §3.1.1.2.3): a
/// compressed block of 2 bytes in a frame of 0 bytes, or of 40 bytes for
/// 36, is an error (libzstd 1.5.7 rejects both: "Src size is incorrect").
#[test]
fn block_larger_than_single_segment_window() {
    let f = frame(
        &FrameHeader::single_segment(0),
        &[compressed_block(true, &[0x00, 0x00])],
        &[],
    );
    expect_err("2-byte compressed block, content size 0", &f);
    let lits = b"zero sequences, in the two-byte form";
    let mut content = raw_literals(lits);
    content.extend([0x80, 0x00]);
    let f = frame(
        &FrameHeader::single_segment(lits.len() as u64),
        &[compressed_block(true, &content)],
        lits,
    );
    expect_err("40-byte compressed block, content size 36", &f);
    // The same block in a frame with a 1 KiB window decodes.
    let f = frame(
        &small(lits.len()),
        &[compressed_block(true, &content)],
        lits,
    );
    expect_ok("40-byte compressed block, 1 KiB window", &f, lits);
}

/// Block_Type 3 is reserved: an error.
#[test]
fn reserved_block_type() {
    let mut blocks = vec![raw_block(false, b"ok so far")];
    let mut b = block_header(true, BlockType::Reserved, 4).to_vec();
    b.extend(b"more");
    blocks.push(b);
    let f = frame(&FrameHeader::with_window_log(10), &blocks, &[]);
    expect_err("reserved block type", &f);
}

/// Bit 3 of the Frame_Header_Descriptor is reserved and must be 0; bit 4
/// is unused and must be ignored.
#[test]
fn reserved_and_unused_header_bits() {
    let data = b"header bits";
    let mut header = FrameHeader::single_segment(data.len() as u64);
    header.extra_descriptor_bits = 0x08;
    let f = frame(&header, &[raw_block(true, data)], data);
    expect_err("reserved frame header bit", &f);

    header.extra_descriptor_bits = 0x10;
    let f = frame(&header, &[raw_block(true, data)], data);
    expect_ok("unused frame header bit", &f, data);
}

/// The allocator of this test binary: the system's, noting the largest
/// single allocation each thread asks for, so a test can check that a
/// refused window was never allocated.
struct Largest;

thread_local! {
    static LARGEST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

// SAFETY: every call is forwarded to `System` unchanged; the bookkeeping
// touches only a const-initialised thread-local `Cell` (no allocation, no
// reentrancy).
unsafe impl std::alloc::GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(layout.size())));
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(layout.size())));
        // SAFETY: as for `alloc`.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from `System` with `layout` (every allocation
        // here does).
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(new_size)));
        // SAFETY: as for `dealloc`, and the caller's contract for `realloc`.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

/// The largest single allocation `f` makes on this thread.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    let r = f();
    (r, LARGEST.with(|l| l.get()))
}

/// The innermost [`ZstdFrameFault`] of a streaming error.
fn stream_fault(f: &[u8], opts: DecodeOptions) -> Option<ZstdFrameFault> {
    let e = stream(f, Decoder::with_options(opts), 4096).expect_err("streaming must fail");
    zstd_frame_fault(&e)
}

/// A window above the streaming limit (`window_log_max`, default 27) is a
/// `WindowTooLarge` error when streaming, reported before the window is
/// allocated (the frames claim up to 2 GiB, and 2^41 × 1.875); raising the
/// limit admits it. One-shot decoding keeps no window and decodes it.
/// (The largest window log is 31, or 30 on 32-bit targets, for lzkit and
/// libzstd alike.)
#[test]
fn window_above_streaming_limit() {
    let data = b"a small frame with a large window";
    for log in [28u32, zstd::WINDOW_LOG_MAX] {
        let f = frame(
            &FrameHeader::with_window_log(log),
            &[raw_block(true, data)],
            data,
        );
        let (fault, largest) = largest_allocation(|| stream_fault(&f, DecodeOptions::new()));
        assert!(
            largest < 16 << 20,
            "window 2^{log} refused, but {largest} bytes were allocated in one piece"
        );
        assert!(
            matches!(fault, Some(ZstdFrameFault::WindowTooLarge { .. })),
            "window 2^{log}: expected WindowTooLarge, got {fault:?}"
        );
        let fault = stream_fault(&f, DecodeOptions::new().window_log_max(log - 1));
        assert!(
            matches!(fault, Some(ZstdFrameFault::WindowTooLarge { .. })),
            "window 2^{log}, limit 2^{}: expected WindowTooLarge, got {fault:?}",
            log - 1
        );
        let ok = stream(
            &f,
            Decoder::with_options(DecodeOptions::new().window_log_max(log)),
            4096,
        );
        assert_eq!(ok.expect("limit raised to the window"), data);
        assert_eq!(
            zstd::decompress(&f).expect("one-shot ignores the window"),
            data
        );
        // libzstd streams it with the limit raised, and refuses it without.
        assert_eq!(zstd_ref::decompress(&f, None).unwrap(), data);
        assert!(zstd_ref::decompress_limited(&f, None, 27, usize::MAX).is_err());
    }
    // Window_Descriptor 0xFF: 2^41 × 1.875, beyond any decoder's limit.
    let header = FrameHeader {
        window_descriptor: Some(0xFF),
        ..FrameHeader::default()
    };
    let f = frame(&header, &[raw_block(true, data)], data);
    let fault = stream_fault(
        &f,
        DecodeOptions::new().window_log_max(zstd::WINDOW_LOG_MAX),
    );
    assert!(
        matches!(fault, Some(ZstdFrameFault::WindowTooLarge { .. })),
        "window 2^41 × 1.875: expected WindowTooLarge, got {fault:?}"
    );
}

/// A wrong Content_Checksum is an error (`ContentChecksum`), unless
/// checksums are not verified.
#[test]
fn wrong_content_checksum() {
    let data = text(5000, 7);
    let good = zstd_ref::compress(&data, &Settings::new(3).checksum(true), None);
    expect_ok("libzstd frame with checksum", &good, &data);
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 0x01;
    let e = expect_err("wrong content checksum", &bad);
    assert!(
        matches!(
            lzkit_testkit::zstd_check::innermost(&e),
            Error::ContentChecksum { .. }
        ),
        "expected ContentChecksum, got {e:?}"
    );
    let unchecked = Ways {
        options: DecodeOptions::new().verify_checksums(false),
        ..Ways::default()
    };
    let r = decode_every_way(&bad, &unchecked, "wrong checksum, not verified");
    assert_eq!(r.expect("checksums not verified"), data);
}

/// A frame that decodes to more or fewer bytes than its Frame_Content_Size
/// is an error.
#[test]
fn content_size_mismatch() {
    let data = b"ten bytes!";
    for claimed in [0u64, 9, 11, 300] {
        let f = frame(
            &FrameHeader::with_window_log(10).content_size(Some(claimed)),
            &[raw_block(true, data)],
            data,
        );
        expect_err(&format!("content size {claimed} for 10 bytes"), &f);
        let f = frame(
            &FrameHeader::single_segment(claimed),
            &[raw_block(true, data)],
            data,
        );
        expect_err(
            &format!("single segment, content size {claimed} for 10 bytes"),
            &f,
        );
    }
    let f = frame(
        &FrameHeader::with_window_log(10).content_size(Some(10)),
        &[raw_block(true, data)],
        data,
    );
    expect_ok("content size 10 for 10 bytes", &f, data);
}

/// A frame naming a dictionary is an error (`DictionaryRequired`) without
/// it and with another dictionary; with it, it decodes.
#[test]
fn dictionary_id_required() {
    let samples: Vec<Vec<u8>> = (0..200).map(|i| text(300, 1000 + i)).collect();
    let dict = zstd_ref::train_dictionary(&samples, 4096).expect("training");
    let other = zstd_ref::train_dictionary(&samples[..150], 2048).expect("training");
    let id = Dictionary::new(&dict).unwrap().id();
    assert_ne!(id, 0);
    assert_ne!(id, Dictionary::new(&other).unwrap().id());

    let data = text(2000, 77);
    let f = zstd_ref::compress(&data, &Settings::new(3), Some(&dict));
    let e = zstd::decompress(&f).expect_err("no dictionary");
    assert!(
        matches!(lzkit_testkit::zstd_check::innermost(&e), Error::DictionaryRequired { dict_id } if *dict_id == id),
        "expected DictionaryRequired({id:#x}), got {e:?}"
    );
    assert!(zstd_ref::decompress(&f, None).is_err());
    let e = Decoder::new()
        .with_dictionary(Dictionary::new(&other).unwrap())
        .decompress(&f)
        .expect_err("another dictionary");
    assert!(
        matches!(
            lzkit_testkit::zstd_check::innermost(&e),
            Error::DictionaryRequired { .. }
        ),
        "expected DictionaryRequired, got {e:?}"
    );
    let both = Ways {
        dicts: &[&other, &dict],
        ..Ways::default()
    };
    let r = decode_every_way(&f, &both, "dictionary selected by ID");
    assert_eq!(r.expect("with its dictionary"), data);

    // A hand-built frame naming dictionary 0x1234 with only a raw block.
    let header = FrameHeader::single_segment(3).dict_id(0x1234);
    let f = frame(&header, &[raw_block(true, b"abc")], b"abc");
    let e = zstd::decompress(&f).expect_err("dictionary 0x1234 missing");
    assert!(
        matches!(
            lzkit_testkit::zstd_check::innermost(&e),
            Error::DictionaryRequired { dict_id: 0x1234 }
        ),
        "expected DictionaryRequired(0x1234), got {e:?}"
    );
    assert!(zstd_ref::decompress(&f, None).is_err());
}

/// Every strict prefix of a small valid frame (several blocks, checksum)
/// is an error, every way, never a panic; as is every prefix of a frame
/// followed by a partial second one.
#[test]
fn truncated_at_every_byte() {
    let data = text(3000, 3);
    let s = Settings::new(5).checksum(true).flush_every(Some(700));
    let f = zstd_ref::compress(&data, &s, None);
    expect_ok("whole frame", &f, &data);
    for n in 0..f.len() {
        let name = format!("frame truncated to {n} of {} bytes", f.len());
        if n == 0 {
            // Empty input (no frame at all): the ways must agree, on
            // whatever they say.
            let _ = decode_every_way(&[], &Ways::default(), &name);
            continue;
        }
        expect_err(&name, &f[..n]);
    }
    // A complete frame, then a partial one.
    let mut two = f.clone();
    two.extend_from_slice(&f);
    for n in f.len() + 1..two.len() {
        expect_err(
            &format!("second frame truncated to {}", n - f.len()),
            &two[..n],
        );
    }
    // A hand-built frame, truncated inside its header and blocks.
    let hand = frame(
        &FrameHeader::single_segment(12).checksum(true).dict_id(0),
        &[
            raw_block(false, b"abcd"),
            rle_block(false, b'e', 4),
            raw_block(true, b"fghi"),
        ],
        b"abcdeeeefghi",
    );
    expect_ok("hand-built", &hand, b"abcdeeeefghi");
    for n in 1..hand.len() {
        expect_err(&format!("hand-built truncated to {n}"), &hand[..n]);
    }
}

/// Skippable frames (all 16 magic numbers) alone, empty, between and
/// around data frames; truncated ones are errors.
#[test]
fn skippable_frames() {
    let a = text(1000, 1);
    let b = text(2000, 2);
    let fa = zstd_ref::compress(&a, &Settings::new(1), None);
    let fb = zstd_ref::compress(&b, &Settings::new(19).content_size(true), None);
    for nibble in 0..16u8 {
        let skip = skippable_frame(nibble, &text(37, u64::from(nibble)));
        expect_ok(&format!("skippable frame {nibble} alone"), &skip, &[]);
        let mut s = skip.clone();
        s.extend(&fa);
        s.extend(&skip);
        s.extend(&fb);
        s.extend(skippable_frame(15 - nibble, &[]));
        let mut expected = a.clone();
        expected.extend(&b);
        expect_ok(
            &format!("skippable frames ({nibble}) around data"),
            &s,
            &expected,
        );
    }
    expect_ok("empty skippable frame", &skippable_frame(0, &[]), &[]);
    let mut two = skippable_frame(3, b"x");
    two.extend(skippable_frame(4, b"yz"));
    expect_ok("two skippable frames", &two, &[]);

    let skip = skippable_frame(7, b"payload of a skippable frame");
    for n in 1..skip.len() {
        expect_err(&format!("skippable frame truncated to {n}"), &skip[..n]);
    }
    let mut s = fa.clone();
    s.extend(&skip[..skip.len() - 1]);
    expect_err("data frame, then a truncated skippable frame", &s);
}

/// Magic numbers that are neither zstd nor skippable are `NotZstd`, and
/// trailing garbage after a valid frame is an error.
#[test]
fn unknown_magic_and_trailing_bytes() {
    let e = expect_err(
        "LZ4 frame magic",
        &[0x04, 0x22, 0x4D, 0x18, 0x64, 0x40, 0xA7],
    );
    assert!(
        matches!(zstd_frame_fault(&e), Some(ZstdFrameFault::NotZstd { .. })),
        "expected NotZstd, got {e:?}"
    );
    let a = text(100, 9);
    let mut f = zstd_ref::compress(&a, &Settings::new(3), None);
    f.extend([0x00, 0x01, 0x02, 0x03, 0x04]);
    expect_err("garbage after a frame", &f);
}

/// A hand-built frame through `FrameDecoder::new` (default options) and
/// `list_frames`: the streaming entry points on the golden cases.
#[test]
fn streaming_entry_points() {
    let (f, expected) = rle_first_block_frame();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut FrameDecoder::new(&f[..]), &mut out).unwrap();
    assert_same(&out, &expected, "FrameDecoder::new");
    let frames = zstd::list_frames(&f[..]).expect("list_frames");
    assert_eq!(frames.len(), 1);
}

// ---------------------------------------------------------------------------
// Regressions found by the fuzz targets.
// ---------------------------------------------------------------------------

/// Bytes from a hex string (whitespace ignored).
fn unhex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// A libzstd frame (level 4, window 2^20 with long-distance matching, no
/// checksum, 567 bytes of data) with byte 40, inside the FSE-coded Huffman
/// weights of its 4-stream literals, XORed with 0x10 (found by
/// `zstd_mutate`). libzstd 1.5.7 on x86-64 (and the zstd 1.5.4 command)
/// decode it to 567 bytes, libzstd built for i686 rejects it; lzkit
/// rejects it: with the weights the description gives
/// (116 of them, table log 8), three of the four Huffman streams read past
/// their start (an independent decoder of the block finds 395 bits read
/// from a stream of 379, 372 of 364, 346 of 338). RFC 8878 requires each
/// stream to be consumed exactly; libzstd's double-symbol decoder is
/// permissive there. A known divergence, the one `zstd_mutate` allows.
#[test]
fn fuzz_mutated_huffman_weights() {
    let f = unhex(
        "28b52ffd00504d090066533720506bd401d841e4e8239ba237d14c2dcd5cc506437b8e8ae786ba3a89c9be843630002e
         002d0008c54180c02ca193598f07803ade8b8eebe7aecbdcb259a9f9b05830126609175156220a32099b9306936a7132
         5ff309ce7582e007620de6c820b3f73ca98e07100a431ab1431f0191e6b284ebd8acd47973599d7e93b2be49e68da18c
         1cd7e3bee1d08d82b219915830bcdec8f51bcec09a76d2cda17117d695bf78fd8b95ba037f31ae33e1cc3ac47016099d
         20ca9bbf58ef3c8ee348d8dc28bf2575ace94dce8528ab609355c1503627ecd07bb8de73b30ed749071c007dcc503319
         c0e001d64294d780aa7208034c4d816f45c3252c2a33dccde073f8847a6ba4600e999af7325fb01174e3ab5146a26ad0
         0cb9181e8c140981b320a81b70c3dc890205",
    );
    // libzstd's verdict depends on its build: on x86-64 it decodes 567
    // bytes; built for i686 (the CI's 32-bit step), whose Huffman decoder
    // takes the portable path, it rejects the frame too.
    let reference = zstd_ref::decompress(&f, None);
    assert!(
        reference.as_ref().map_or(true, |v| v.len() == 567),
        "libzstd changed its verdict: {:?}",
        reference.map(|v| v.len())
    );
    let e = zstd::decompress(&f).expect_err("the Huffman streams overrun");
    assert!(
        e.to_string()
            .contains("Huffman stream does not end where its symbols do"),
        "{e}"
    );
}

/// Frame_Content_Size 2^64 − 1 is libzstd's ZSTD_CONTENTSIZE_UNKNOWN: the
/// frame states no size, and decodes every way (not a content-size
/// mismatch), as libzstd decodes it; `list_frames` says unknown.
#[test]
fn content_size_all_ones_means_unknown() {
    let data = b"a frame whose content size field is all ones";
    for checksum in [false, true] {
        let header = FrameHeader::with_window_log(10)
            .content_size(Some(u64::MAX))
            .checksum(checksum);
        let f = frame(&header, &[raw_block(true, data)], data);
        expect_ok("Frame_Content_Size 2^64 - 1", &f, data);
        let info = zstd::list_frames(&f[..]).expect("listed");
        assert_eq!(info[0].content_size, None);
    }
    // One less is a size, which this frame does not match.
    let header = FrameHeader::with_window_log(10).content_size(Some(u64::MAX - 1));
    let f = frame(&header, &[raw_block(true, data)], data);
    let e = expect_err("Frame_Content_Size 2^64 - 2", &f);
    assert!(
        matches!(e, Error::Frame { ref source, .. } if matches!(**source, Error::ContentSize { .. })),
        "{e}"
    );
}

/// A frame of a 1 KiB window: `before` bytes of raw blocks (`A`..`Z`
/// repeated), then one sequence (no literals, match length 3) at
/// `offset`.
fn offset_frame(before: usize, offset: u64, dict_id: u32) -> Vec<u8> {
    let history: Vec<u8> = (0..before).map(|i| b'A' + (i % 26) as u8).collect();
    let mut blocks: Vec<Vec<u8>> = history.chunks(1024).map(|c| raw_block(false, c)).collect();
    // Offset_Value = offset + 3 = 2^of_code + extra bits.
    let value = offset + 3;
    let code = 63 - value.leading_zeros();
    let mut content = raw_literals(&[]);
    content.extend(rle_sequences(
        0,
        code as u8,
        0,
        &[SeqExtra {
            offset: value - (1 << code),
            ..SeqExtra::default()
        }],
    ));
    blocks.push(compressed_block(true, &content));
    frame(
        &FrameHeader::with_window_log(10).dict_id(dict_id),
        &blocks,
        &[],
    )
}

/// One frame, one verdict: a match offset beyond the frame's window is
/// rejected by every lzkit decoder (one-shot, into a buffer, every
/// variant, streaming), as RFC 8878 requires offsets within the window;
/// an offset of exactly the window decodes everywhere. libzstd's one-shot
/// decoder accepts offsets beyond the window (it checks only the output
/// so far): a deliberate difference (see `lzkit::zstd`'s notes).
#[test]
fn offsets_beyond_the_window_get_one_verdict() {
    // 1300 bytes of history, window 1024: offset 1024 decodes, 1025 and
    // 1200 (still inside the output) do not.
    let f = offset_frame(1300, 1024, 0);
    let mut want: Vec<u8> = (0..1300).map(|i| b'A' + (i % 26) as u8).collect();
    for _ in 0..3 {
        want.push(want[want.len() - 1024]);
    }
    expect_ok("offset = window", &f, &want);
    for offset in [1025u64, 1200] {
        let f = offset_frame(1300, offset, 0);
        let name = format!("offset {offset} beyond the 1 KiB window");
        let e = decode_every_way(&f, &Ways::default(), &name).expect_err(&name);
        assert_eq!(
            zstd_fault(&e),
            Some(ZstdFault::OffsetBeyondWindow {
                offset: offset as usize,
                window: 1024
            }),
            "{name}: {e}"
        );
        let one_shot = zstd_ref::decompress_one_shot(&f, None, 4096);
        assert!(
            one_shot.is_ok(),
            "libzstd's one-shot decoder now rejects offsets beyond the window: \
             update the notes on deliberate differences"
        );
    }
    // Offsets before the start stay OffsetBeforeStart.
    let f = offset_frame(100, 200, 0);
    let e = decode_every_way(&f, &Ways::default(), "before the start").expect_err("rejected");
    assert!(
        matches!(zstd_fault(&e), Some(ZstdFault::OffsetBeforeStart { .. })),
        "{e}"
    );
}

/// The dictionary is reachable while the frame's output is no longer than
/// the window, then no more (RFC 8878 §5), for every decoder alike.
#[test]
fn dictionary_reachable_within_the_window_only() {
    let dict_content: Vec<u8> = (0..2000u32).map(|i| (i * 7 % 251) as u8).collect();
    let ways = Ways {
        dicts: &[&dict_content],
        ..Ways::default()
    };
    // 1000 bytes of output (under the window): a match 1500 back reads
    // the dictionary, 500 bytes before its end.
    let f = offset_frame(1000, 1500, 0);
    let mut want: Vec<u8> = (0..1000).map(|i| b'A' + (i % 26) as u8).collect();
    want.extend_from_slice(&dict_content[1500..1503]);
    let got = decode_every_way(&f, &ways, "dictionary within the window").expect("decodes");
    assert_same(&got, &want, "dictionary within the window");
    // 1100 bytes of output (past the window): the dictionary is out of
    // reach.
    let f = offset_frame(1100, 1500, 0);
    let e = decode_every_way(&f, &ways, "dictionary past the window").expect_err("rejected");
    assert_eq!(
        zstd_fault(&e),
        Some(ZstdFault::OffsetBeyondWindow {
            offset: 1500,
            window: 1024
        }),
        "{e}"
    );
}

/// A frame whose header claims 1 GiB holding 4 MiB of raw blocks: one-shot
/// decoding reserves what the blocks can produce, not the claim, and
/// reports the content-size mismatch (not "out of memory" where the
/// system cannot give 1 GiB).
#[test]
fn one_shot_output_follows_the_blocks_not_the_claim() {
    let data = text(4 << 20, 14);
    let blocks: Vec<Vec<u8>> = data
        .chunks(128 << 10)
        .enumerate()
        .map(|(i, c)| raw_block(i == 31, c))
        .collect();
    assert_eq!(blocks.len(), 32);
    let header = FrameHeader::with_window_log(22).content_size(Some(1 << 30));
    let f = frame(&header, &blocks, &data);
    for (name, r) in [
        (
            "zstd::decompress",
            largest_allocation(|| zstd::decompress(&f)),
        ),
        (
            "Decoder::decompress",
            largest_allocation(|| Decoder::new().decompress(&f)),
        ),
    ] {
        let (r, largest) = r;
        let e = r.expect_err(name);
        assert!(
            matches!(e, Error::Frame { ref source, .. } if matches!(**source, Error::ContentSize { expected, actual } if expected == 1 << 30 && actual == 4 << 20)),
            "{name}: {e}"
        );
        assert!(
            largest < 16 << 20,
            "{name}: {largest} bytes allocated in one piece for 4 MiB of blocks"
        );
    }
}
