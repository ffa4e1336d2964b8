use super::*;
use proptest::prelude::*;

/// The byte shuffle as defined, one byte at a time.
fn ref_shuffle(w: usize, src: &[u8]) -> Vec<u8> {
    let n = src.len() / w;
    let mut dst = src.to_vec();
    for i in 0..n {
        for j in 0..w {
            dst[j * n + i] = src[i * w + j];
        }
    }
    dst
}

/// The inverse byte shuffle as defined, one byte at a time.
fn ref_unshuffle(w: usize, src: &[u8]) -> Vec<u8> {
    let n = src.len() / w;
    let mut dst = src.to_vec();
    for i in 0..n {
        for j in 0..w {
            dst[i * w + j] = src[j * n + i];
        }
    }
    dst
}

/// Element `i` of width `w`, little-endian, as a u64.
fn get(w: usize, bytes: &[u8], i: usize) -> u64 {
    let mut le = [0u8; 8];
    le[..w].copy_from_slice(&bytes[i * w..][..w]);
    u64::from_le_bytes(le)
}

/// Store the low `w` bytes of `v` as element `i`.
fn put(w: usize, bytes: &mut [u8], i: usize, v: u64) {
    bytes[i * w..][..w].copy_from_slice(&v.to_le_bytes()[..w]);
}

/// The delta as defined, in u64 arithmetic masked to the width.
fn ref_delta(w: usize, src: &[u8], decode: bool) -> Vec<u8> {
    let mut dst = src.to_vec();
    let mut prev = 0u64;
    for i in 0..src.len() / w {
        let v = get(w, src, i);
        if decode {
            prev = prev.wrapping_add(v);
            put(w, &mut dst, i, prev);
        } else {
            put(w, &mut dst, i, v.wrapping_sub(prev));
            prev = v;
        }
    }
    dst
}

fn ref_encode(f: Filter, src: &[u8]) -> Vec<u8> {
    match f.kind() {
        FilterKind::Shuffle => ref_shuffle(f.width(), src),
        FilterKind::Delta => ref_delta(f.width(), src, false),
    }
}

fn ref_decode(f: Filter, src: &[u8]) -> Vec<u8> {
    match f.kind() {
        FilterKind::Shuffle => ref_unshuffle(f.width(), src),
        FilterKind::Delta => ref_delta(f.width(), src, true),
    }
}

/// Every kernel of `f`, called directly (compiled for the baseline
/// target, not through the run-time choice of [`simd::run`]), each with
/// its output.
fn kernels(f: Filter, direction: Direction, src: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    type Kernel = fn(&[u8], &mut [u8]);
    let mut all: Vec<(&'static str, Kernel)> = Vec::new();
    use Direction::{Decode, Encode};
    match (f.kind(), f.width(), direction) {
        (FilterKind::Shuffle, 2, Encode) => {
            all.push(("transpose", shuffle::encode::<2>));
            all.push(("words", shuffle::words::encode2));
            #[cfg(target_arch = "x86_64")]
            all.push(("sse2", shuffle::sse2::encode::<2>));
        }
        (FilterKind::Shuffle, 4, Encode) => {
            all.push(("transpose", shuffle::encode::<4>));
            all.push(("words", shuffle::words::encode4));
            #[cfg(target_arch = "x86_64")]
            all.push(("sse2", shuffle::sse2::encode::<4>));
        }
        (FilterKind::Shuffle, 8, Encode) => {
            all.push(("transpose", shuffle::encode::<8>));
            all.push(("words", shuffle::words::encode8));
            #[cfg(target_arch = "x86_64")]
            all.push(("sse2", shuffle::sse2::encode::<8>));
        }
        (FilterKind::Shuffle, 2, Decode) => {
            all.push(("transpose", shuffle::decode::<2>));
            all.push(("words", shuffle::words::decode2));
            #[cfg(target_arch = "x86_64")]
            all.push(("sse2", shuffle::sse2::decode::<2>));
        }
        (FilterKind::Shuffle, 4, Decode) => {
            all.push(("transpose", shuffle::decode::<4>));
            all.push(("words", shuffle::words::decode4));
            #[cfg(target_arch = "x86_64")]
            all.push(("sse2", shuffle::sse2::decode::<4>));
        }
        (FilterKind::Shuffle, 8, Decode) => {
            all.push(("transpose", shuffle::decode::<8>));
            all.push(("words", shuffle::words::decode8));
            #[cfg(target_arch = "x86_64")]
            all.push(("sse2", shuffle::sse2::decode::<8>));
        }
        (FilterKind::Delta, 1, Encode) => all.push(("scalar", delta::d1::encode)),
        (FilterKind::Delta, 2, Encode) => all.push(("scalar", delta::d2::encode)),
        (FilterKind::Delta, 4, Encode) => all.push(("scalar", delta::d4::encode)),
        (FilterKind::Delta, 8, Encode) => all.push(("scalar", delta::d8::encode)),
        (FilterKind::Delta, 1, Decode) => {
            all.push(("scalar", delta::d1::decode));
            #[cfg(target_arch = "x86_64")]
            all.push(("sse2", delta::sse2::decode1));
        }
        (FilterKind::Delta, 2, Decode) => {
            all.push(("scalar", delta::d2::decode));
            #[cfg(target_arch = "x86_64")]
            all.push(("sse2", delta::sse2::decode2));
        }
        (FilterKind::Delta, 4, Decode) => all.push(("scalar", delta::d4::decode)),
        (FilterKind::Delta, 8, Decode) => all.push(("scalar", delta::d8::decode)),
        other => unreachable!("{other:?}"),
    }
    all.into_iter()
        .map(|(name, k)| {
            let mut dst = vec![0xA5; src.len()];
            k(src, &mut dst);
            (name, dst)
        })
        .collect()
}

/// Deterministic bytes (xorshift64*).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

fn filter(name: &str) -> Filter {
    name.parse().unwrap()
}

#[test]
fn known_answers_shuffle() {
    let src: Vec<u8> = (0..7).collect();
    assert_eq!(filter("shuffle2").encode(&src), [0, 2, 4, 1, 3, 5, 6]);
    let src: Vec<u8> = (0..10).collect();
    assert_eq!(
        filter("shuffle4").encode(&src),
        [0, 4, 1, 5, 2, 6, 3, 7, 8, 9]
    );
    let src: Vec<u8> = (0..19).collect();
    assert_eq!(
        filter("shuffle8").encode(&src),
        [
            0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 16, 17, 18
        ]
    );
    // Fewer bytes than one element: all tail.
    assert_eq!(filter("shuffle8").encode(&[1, 2, 3]), [1, 2, 3]);
    assert_eq!(
        filter("shuffle2").decode(&[0, 2, 4, 1, 3, 5, 6]),
        [0, 1, 2, 3, 4, 5, 6]
    );
}

#[test]
fn known_answers_delta() {
    assert_eq!(filter("delta1").encode(&[5, 3, 255, 0]), [5, 254, 252, 1]);
    assert_eq!(filter("delta1").decode(&[5, 254, 252, 1]), [5, 3, 255, 0]);
    // 0x0102, 0x0001, 0xFFFF and a tail byte.
    let src = [0x02, 0x01, 0x01, 0x00, 0xFF, 0xFF, 0xAA];
    let out = [0x02, 0x01, 0xFF, 0xFE, 0xFE, 0xFF, 0xAA];
    assert_eq!(filter("delta2").encode(&src), out);
    assert_eq!(filter("delta2").decode(&out), src);
    // 10, 7, u32::MAX and three tail bytes: 10, -3, u32::MAX - 7.
    let src = [10, 0, 0, 0, 7, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3];
    let out = [
        10, 0, 0, 0, 0xFD, 0xFF, 0xFF, 0xFF, 0xF8, 0xFF, 0xFF, 0xFF, 1, 2, 3,
    ];
    assert_eq!(filter("delta4").encode(&src), out);
    assert_eq!(filter("delta4").decode(&out), src);
    // 1, 0 and a tail byte: 1, -1.
    let src = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9];
    let mut out = src;
    out[8..16].fill(0xFF);
    assert_eq!(filter("delta8").encode(&src), out);
    assert_eq!(filter("delta8").decode(&out), src);
}

#[test]
fn empty_input() {
    for f in Filter::ALL {
        assert!(f.encode(&[]).is_empty(), "{f}");
        assert!(f.decode(&[]).is_empty(), "{f}");
        f.encode_into(&[], &mut []).unwrap();
    }
}

/// The fast paths (the run-time choice, and every kernel as built for the
/// baseline) against the references, at every length up to 300 (the
/// blocks are 16 and 32 elements) and around larger powers of two.
#[test]
fn fast_paths_match_reference() {
    let mut lens: Vec<usize> = (0..300).collect();
    for base in [512, 1024, 2048, 4096, 8192] {
        lens.extend(base - 9..base + 9);
    }
    if cfg!(miri) {
        // Every length up to three blocks of width 8 (32 elements), and a
        // few around bigger ones.
        lens = (0..100).chain([255, 256, 257, 519, 520, 521]).collect();
    }
    for f in Filter::ALL {
        for &len in &lens {
            let src = noise(len, len as u64 * 31 + f.width() as u64);
            let want = ref_encode(f, &src);
            assert_eq!(f.encode(&src), want, "{f} encode len {len}");
            for (name, got) in kernels(f, Direction::Encode, &src) {
                assert_eq!(got, want, "{f} {name} encode len {len}");
            }
            let want = ref_decode(f, &src);
            assert_eq!(f.decode(&src), want, "{f} decode len {len}");
            for (name, got) in kernels(f, Direction::Decode, &src) {
                assert_eq!(got, want, "{f} {name} decode len {len}");
            }
        }
    }
}

/// The reference really is a shuffle and a delta: not the identity, and
/// decode inverts encode (so that the comparison above means something).
#[test]
fn references_are_not_trivial() {
    let src = noise(1000, 7);
    for f in Filter::ALL {
        let enc = ref_encode(f, &src);
        assert_ne!(enc, src, "{f}");
        assert_eq!(ref_decode(f, &enc), src, "{f}");
    }
}

#[test]
fn length_mismatch_is_an_error() {
    for f in Filter::ALL {
        let src = [1u8; 16];
        let mut dst = [7u8; 15];
        let want = FilterError::LengthMismatch { src: 16, dst: 15 };
        assert_eq!(f.encode_into(&src, &mut dst), Err(want.clone()), "{f}");
        assert_eq!(f.decode_into(&src, &mut dst), Err(want), "{f}");
        assert_eq!(dst, [7u8; 15], "{f}: dst touched");
        let mut dst = [0u8; 17];
        assert!(f.decode_into(&src, &mut dst).is_err(), "{f}");
        assert!(f.encode_into(&[], &mut [0]).is_err(), "{f}");
    }
}

#[test]
fn names_round_trip() {
    let names = [
        "shuffle2", "shuffle4", "shuffle8", "delta1", "delta2", "delta4", "delta8",
    ];
    assert_eq!(Filter::ALL.len(), names.len());
    for (f, name) in Filter::ALL.iter().zip(names) {
        assert_eq!(f.to_string(), name);
        assert_eq!(Filter::parse(name), Ok(*f));
        assert_eq!(name.parse::<Filter>(), Ok(*f));
        assert_eq!(Filter::new(f.kind(), f.width()), Ok(*f));
    }
    assert_eq!(filter("shuffle4").kind(), FilterKind::Shuffle);
    assert_eq!(filter("shuffle4").width(), 4);
    assert_eq!(filter("delta2").kind(), FilterKind::Delta);
    assert_eq!(filter("delta2").width(), 2);
}

#[test]
fn bad_names_are_errors() {
    for name in [
        "",
        "shuffle",
        "delta",
        "Shuffle4",
        "lz4",
        "shuffle4 ",
        "delta-1",
        "delta+4",
        "shuffle 4",
    ] {
        assert_eq!(
            Filter::parse(name),
            Err(FilterError::UnknownName(name.to_string())),
            "{name:?}"
        );
    }
    let bad_widths = [
        ("shuffle1", FilterKind::Shuffle, 1),
        ("shuffle3", FilterKind::Shuffle, 3),
        ("shuffle16", FilterKind::Shuffle, 16),
        ("delta0", FilterKind::Delta, 0),
        ("delta3", FilterKind::Delta, 3),
        ("delta04", FilterKind::Delta, 4),
        (
            "delta99999999999999999999999",
            FilterKind::Delta,
            usize::MAX,
        ),
    ];
    for (name, kind, width) in bad_widths {
        let got = Filter::parse(name);
        if name == "delta04" {
            // A leading zero still names width 4.
            assert_eq!(got, Ok(filter("delta4")));
            continue;
        }
        assert_eq!(got, Err(FilterError::BadWidth { kind, width }), "{name}");
        assert_eq!(
            Filter::new(kind, width),
            Err(FilterError::BadWidth { kind, width })
        );
    }
}

#[test]
fn error_messages_say_what_is_valid() {
    let msg = Filter::parse("zigzag").unwrap_err().to_string();
    assert_eq!(
        msg,
        "unknown filter 'zigzag': the filters are shuffle2, shuffle4, shuffle8, delta1, delta2, delta4, delta8"
    );
    let msg = Filter::parse("shuffle1").unwrap_err().to_string();
    assert!(
        msg.starts_with("shuffle has no element width 1: shuffle takes widths [2, 4, 8]"),
        "{msg}"
    );
    let msg = Filter::parse("delta3").unwrap_err().to_string();
    assert!(
        msg.starts_with("delta has no element width 3: delta takes widths [1, 2, 4, 8]"),
        "{msg}"
    );
    let msg = filter("delta1")
        .encode_into(&[1, 2], &mut [0])
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("output buffer of 1 bytes for an input of 2 bytes"),
        "{msg}"
    );
}

#[test]
fn clickhouse_codecs() {
    let codecs: Vec<_> = Filter::ALL.iter().map(Filter::clickhouse_codec).collect();
    assert_eq!(
        codecs,
        [
            None,
            None,
            None,
            Some("Delta(1)".to_string()),
            Some("Delta(2)".to_string()),
            Some("Delta(4)".to_string()),
            Some("Delta(8)".to_string()),
        ]
    );
}

fn any_filter() -> impl Strategy<Value = Filter> {
    proptest::sample::select(Filter::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 4 } else { 256 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn round_trip(f in any_filter(), src in proptest::collection::vec(any::<u8>(), 0..5000)) {
        let enc = f.encode(&src);
        prop_assert_eq!(enc.len(), src.len());
        prop_assert_eq!(&enc, &ref_encode(f, &src));
        prop_assert_eq!(f.decode(&enc), src);
    }

    #[test]
    fn round_trip_into(f in any_filter(), src in proptest::collection::vec(any::<u8>(), 0..5000)) {
        let mut enc = vec![0xEE; src.len()];
        f.encode_into(&src, &mut enc).unwrap();
        let mut dec = vec![0x11; src.len()];
        f.decode_into(&enc, &mut dec).unwrap();
        prop_assert_eq!(dec, src);
    }
}

/// A reader that hands out its bytes in pieces of the sizes given (in
/// turn, 0 taken as 1).
struct Pieces<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    next: usize,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes[self.next % self.sizes.len()].max(1);
        self.next += 1;
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Write `src` through a [`FilterWriter`] in pieces of `sizes`.
fn write_in_pieces(f: Filter, src: &[u8], sizes: &[usize]) -> Vec<u8> {
    use std::io::Write;
    let mut w = FilterWriter::new(Vec::new(), f);
    let mut rest = src;
    let mut i = 0;
    while !rest.is_empty() {
        let n = sizes[i % sizes.len()].min(rest.len());
        i += 1;
        w.write_all(&rest[..n]).unwrap();
        rest = &rest[n..];
    }
    w.finish().unwrap()
}

/// Read `filtered` through a [`FilterReader`], the inner reader handing
/// out pieces of `sizes`, into buffers of `buf` bytes.
fn read_in_pieces(f: Filter, filtered: &[u8], sizes: Vec<usize>, buf: usize) -> Vec<u8> {
    use std::io::Read;
    let inner = Pieces {
        data: filtered,
        sizes,
        next: 0,
    };
    let mut r = FilterReader::new(inner, f);
    let mut out = Vec::new();
    let mut b = vec![0u8; buf.max(1)];
    loop {
        let n = r.read(&mut b).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[..n]);
    }
}

#[test]
fn streams_known_answers() {
    // Delta across pieces and chunks, with a partial element at the end.
    let f = filter("delta4");
    let src: Vec<u8> = (0..1001u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .flat_map(u32::to_le_bytes)
        .chain([1, 2, 3])
        .collect();
    let enc = f.encode(&src);
    for sizes in [vec![1], vec![3], vec![4], vec![5, 7], vec![100_000]] {
        assert_eq!(write_in_pieces(f, &src, &sizes), enc, "{sizes:?}");
        assert_eq!(read_in_pieces(f, &enc, sizes.clone(), 9), src, "{sizes:?}");
    }
    for f in Filter::ALL {
        assert!(write_in_pieces(f, &[], &[1]).is_empty());
        assert!(read_in_pieces(f, &[], vec![1], 1).is_empty());
    }
}

#[test]
fn frames() {
    for f in Filter::ALL {
        let header = f.frame();
        assert_eq!(read_frame(&header), Ok(Some((f, header.len()))));
        assert!(is_filter_frame(&header));
        // The frame is a skippable frame whose size covers the rest.
        assert!(crate::format::is_skippable(u32::from_le_bytes(
            header[..4].try_into().unwrap()
        )));
        let size = u32::from_le_bytes(header[4..8].try_into().unwrap()) as usize;
        assert_eq!(size + 8, header.len());
        // Every byte after the tag matters: a change is an error, never
        // another filter or no filter.
        for i in 12..header.len() {
            for bit in 0..8 {
                let mut bad = header.clone();
                bad[i] ^= 1 << bit;
                assert!(read_frame(&bad).is_err(), "{f} byte {i} bit {bit}");
            }
        }
        // Cut short.
        for len in 12..header.len() {
            assert!(
                matches!(
                    read_frame(&header[..len]),
                    Err(FilterError::CorruptFrame { .. })
                ),
                "{f} cut at {len}"
            );
        }
        // A change of size (and only of size) is an error too.
        let mut bad = header.clone();
        bad[4] += 1;
        bad.push(0);
        assert!(matches!(
            read_frame(&bad),
            Err(FilterError::CorruptFrame { .. })
        ));
    }
    // Not a filter frame: None.
    let header = filter("delta2").frame();
    for i in (0..4).chain(8..12) {
        let mut other = header.clone();
        other[i] ^= 0x20;
        assert_eq!(read_frame(&other), Ok(None), "byte {i}");
    }
    assert_eq!(read_frame(&[]), Ok(None));
    assert_eq!(read_frame(&header[..11]), Ok(None));
}

#[test]
fn frame_of_another_version_is_refused() {
    let mut header = filter("shuffle8").frame();
    header[12] = 2;
    let e = read_frame(&header).unwrap_err();
    assert_eq!(e, FilterError::UnsupportedVersion { version: 2 });
    let msg = e.to_string();
    assert!(
        msg.contains("version 2") && msg.contains("newer lzkit"),
        "{msg}"
    );
    // A name no filter has, with a valid checksum: refused by name.
    let mut header = filter("shuffle8").frame();
    header[14..22].copy_from_slice(b"shuffle9");
    let sum = xxhash_rust::xxh32::xxh32(&header[8..22], 0);
    header[22..26].copy_from_slice(&sum.to_le_bytes());
    let msg = read_frame(&header).unwrap_err().to_string();
    assert!(msg.contains("'shuffle9'"), "{msg}");
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 4 } else { 256 },
        ..ProptestConfig::default()
    })]

    /// The stream forms give the whole-buffer result however the stream
    /// is cut.
    #[test]
    fn streams_match_whole(
        f in any_filter(),
        src in proptest::collection::vec(any::<u8>(), 0..700),
        sizes in proptest::collection::vec(1usize..150, 1..6),
        buf in 1usize..200,
    ) {
        let enc = f.encode(&src);
        prop_assert_eq!(&write_in_pieces(f, &src, &sizes), &enc);
        prop_assert_eq!(read_in_pieces(f, &enc, sizes, buf), src);
    }
}

/// Throughput of every filter on 1 MiB hot in cache, best of 300 passes,
/// through [`Filter::encode_into`] and [`Filter::decode_into`] (the
/// run-time choice) and through each build of the kernels this CPU runs:
/// `cargo test -p lzkit --release --lib filter::tests::speed -- --ignored --nocapture`.
/// A zstd frame of `data` (under 256 bytes) in one raw block.
fn raw_zstd_frame(data: &[u8]) -> Vec<u8> {
    assert!(data.len() < 256);
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x20, data.len() as u8];
    let header = (data.len() << 3) | 1;
    f.extend([header as u8, (header >> 8) as u8, (header >> 16) as u8]);
    f.extend_from_slice(data);
    f
}

/// Decode `src` with the streaming decoder of `zstd` or LZ4, refusing
/// joined filtered streams if `check`.
fn stream_decode(zstd: bool, src: &[u8], check: bool) -> crate::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    let r = if zstd {
        let opts = crate::zstd::DecodeOptions::new().filtered_streams(check);
        crate::zstd::FrameDecoder::with_decoder(src, crate::zstd::Decoder::with_options(opts))
            .read_to_end(&mut out)
    } else {
        let opts = crate::lz4::frame::DecodeOptions::new().filtered_streams(check);
        crate::lz4::frame::FrameDecoder::with_options(src, &opts).read_to_end(&mut out)
    };
    r.map(|_| out).map_err(crate::Error::from_io)
}

#[test]
fn joined_filtered_streams_are_refused_when_asked() {
    let filter: Filter = "delta2".parse().unwrap();
    let content: Vec<u8> = (0u16..60).flat_map(|i| (i * 3).to_le_bytes()).collect();
    let other = b"another file, not filtered".to_vec();
    // Someone else's skippable frame with the filter frame's magic number,
    // and a seek-table-like one: never a filter frame.
    let mut foreign = FRAME_MAGIC.to_le_bytes().to_vec();
    foreign.extend([4, 0, 0, 0]);
    foreign.extend(b"ABCD");
    let mut table = 0x184D_2A5Eu32.to_le_bytes().to_vec();
    table.extend([4, 0, 0, 0, 1, 2, 3, 4]);
    for zstd in [false, true] {
        let frame = |d: &[u8]| {
            if zstd {
                raw_zstd_frame(d)
            } else {
                crate::lz4::frame::compress(d, &Default::default())
            }
        };
        let filtered = [filter.frame(), frame(&filter.encode(&content))].concat();
        let plain = frame(&other);
        let joined = |parts: &[&[u8]]| parts.concat();
        // Accepted: a filtered stream alone, with other skippable frames
        // around it; plain streams joined, with someone else's frame.
        for ok in [
            filtered.clone(),
            joined(&[&foreign, &filtered, &table]),
            joined(&[&plain, &foreign, &plain]),
        ] {
            assert!(stream_decode(zstd, &ok, true).is_ok(), "zstd {zstd}");
        }
        // Refused: a frame after the filtered one, a filter frame after a
        // frame, two filtered streams; all decode without the check.
        for bad in [
            joined(&[&filtered, &plain]),
            joined(&[&plain, &filtered]),
            joined(&[&filtered, &filtered]),
        ] {
            match stream_decode(zstd, &bad, true) {
                Err(e) => assert!(e.to_string().contains("filtered stream"), "{e}"),
                Ok(_) => panic!("zstd {zstd}: a joined filtered stream decoded"),
            }
            assert!(stream_decode(zstd, &bad, false).is_ok());
        }
    }
}

#[test]
#[ignore = "a measurement, not a test"]
fn speed() {
    use std::time::{Duration, Instant};
    type Build = fn(Filter, Direction, &[u8], &mut [u8]);
    const LEN: usize = 1 << 20;
    let src = noise(LEN, 42);
    let mut enc = vec![0; LEN];
    let mut dec = vec![0; LEN];
    let best = |f: &mut dyn FnMut()| {
        let mut best = Duration::MAX;
        for _ in 0..300 {
            let t = Instant::now();
            f();
            best = best.min(t.elapsed());
        }
        LEN as f64 / best.as_secs_f64() / 1e9
    };
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut builds: Vec<(&str, Build)> = vec![
        ("chosen", |f, d, s, o| match d {
            Direction::Encode => f.encode_into(s, o).unwrap(),
            Direction::Decode => f.decode_into(s, o).unwrap(),
        }),
        ("baseline", kernel::<BASELINE>),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::{Isa, has};
        if has(Isa::Avx2) {
            // SAFETY: AVX2 was just detected.
            builds.push(("avx2", |f, d, s, o| unsafe { simd::avx2(f, d, s, o) }));
        }
        if has(Isa::Avx512Vbmi) {
            // SAFETY: AVX-512 F, BW and VBMI were just detected.
            builds.push(("avx512", |f, d, s, o| unsafe { simd::avx512(f, d, s, o) }));
        }
    }
    for f in Filter::ALL {
        for &(name, build) in &builds {
            let e = best(&mut || build(f, Direction::Encode, std::hint::black_box(&src), &mut enc));
            let d = best(&mut || build(f, Direction::Decode, std::hint::black_box(&enc), &mut dec));
            assert_eq!(enc, ref_encode(f, &src), "{f} {name}");
            assert_eq!(dec, src, "{f} {name}");
            println!("{f:>8} {name:>8}: encode {e:6.2} GB/s, decode {d:6.2} GB/s");
        }
    }
}
