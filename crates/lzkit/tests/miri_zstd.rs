//! The zstd decoder's portable paths on small frames, sized for Miri
//! (`scripts/miri.sh`): every portable variant of the sequence loop, the
//! 1- and 4-stream Huffman decoders, FSE tables, repeat offsets, exact and
//! roomy output buffers, streaming with small reads, and every truncation
//! of a frame. Also an ordinary test (fast natively).
//!
//! The frames were made by the `zstd` command (1.5.4) from the data the
//! generators below rebuild: `col` at levels 1 and 19, `text` at 19, `rand`
//! (4-stream Huffman literals) at 1.

use lzkit::zstd::{self, Decoder, FrameDecoder, Kernel, Variant};
use std::io::Read;

/// 600 little-endian u32 counting up every 7 values (offsets 4 and 28).
fn col() -> Vec<u8> {
    (0u32..600).flat_map(|i| (i / 7).to_le_bytes()).collect()
}

/// Repeated sentences and the printable ASCII range.
fn text() -> Vec<u8> {
    let mut line = b"the quick brown fox jumps over the lazy dog; ".repeat(3);
    line.extend(32u8..127);
    line.push(b'\n');
    line.repeat(8)
}

/// 3000 letters `a`..`p` from a linear congruential generator.
fn rand() -> Vec<u8> {
    let mut x: u32 = 12345;
    (0..3000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345) & 0x7fff_ffff;
            b'a' + ((x >> 16) % 16) as u8
        })
        .collect()
}

fn cases() -> Vec<(&'static str, &'static [u8], Vec<u8>)> {
    vec![
        ("col-1", include_bytes!("data/zstd/col-1.zst"), col()),
        ("col-19", include_bytes!("data/zstd/col-19.zst"), col()),
        ("text-19", include_bytes!("data/zstd/text-19.zst"), text()),
        ("rand-1", include_bytes!("data/zstd/rand-1.zst"), rand()),
    ]
}

const PORTABLE: [Kernel; 4] = [
    Kernel::Portable8,
    Kernel::Portable16,
    Kernel::Portable32,
    Kernel::Portable64,
];

#[test]
fn every_portable_variant_decodes_the_frames() {
    for (name, frame, want) in cases() {
        for kernel in PORTABLE {
            let mut d = Decoder::with_variant(Variant::new(kernel)).unwrap();
            // Exact room: the careful path at the end of the buffer.
            let mut exact = vec![0u8; want.len()];
            let n = d.decompress_into(frame, &mut exact).unwrap();
            assert_eq!(&exact[..n], &want[..], "{name} {kernel:?} exact");
            // Room to spare: the fast path.
            let mut roomy = vec![0xAAu8; want.len() + 256];
            let n = d.decompress_into(frame, &mut roomy).unwrap();
            assert_eq!(&roomy[..n], &want[..], "{name} {kernel:?} roomy");
            assert_eq!(d.decompress(frame).unwrap(), want, "{name} {kernel:?}");
            // One byte short: an error, no panic.
            assert!(
                d.decompress_into(frame, &mut exact[..want.len() - 1])
                    .is_err()
            );
        }
    }
}

#[test]
fn streaming_with_small_reads() {
    for (name, frame, want) in cases() {
        // A fixed variant: an adaptive decoder reads the clock, which Miri
        // does not allow.
        let d = Decoder::with_variant(Variant::new(Kernel::Portable16)).unwrap();
        let mut r = FrameDecoder::with_decoder(frame, d);
        let mut got = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn every_truncation_is_an_error() {
    for (name, frame, _) in cases().into_iter().take(2) {
        for cut in 0..frame.len() {
            let r = zstd::decompress(&frame[..cut]);
            // An empty input is no frame at all: nothing to decode.
            assert_eq!(r.is_ok(), cut == 0, "{name} cut at {cut}");
        }
    }
}

#[test]
fn corrupt_bytes_never_panic() {
    let (_, frame, _) = &cases()[3];
    for at in (4..frame.len()).step_by(if cfg!(miri) { 97 } else { 1 }) {
        let mut f = frame.to_vec();
        f[at] ^= 0x5A;
        for kernel in PORTABLE {
            let mut d = Decoder::with_variant(Variant::new(kernel)).unwrap();
            let mut out = vec![0u8; 4096];
            let _ = d.decompress_into(&f, &mut out);
        }
    }
}
