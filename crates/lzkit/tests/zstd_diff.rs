//! Differential tests of the zstd decoder against libzstd (the `zstd`
//! crate): frames made by libzstd from generated data (columns, text,
//! random, runs, periodic, mixtures) at levels −5…22, with and without
//! checksums and content sizes (single-segment and streaming frames), with
//! forced block boundaries, raw-content and trained dictionaries, long
//! windows, concatenated and skippable frames. Each input is decoded every
//! way lzkit offers (`zstd_check::decode_every_way`: one-shot, into an
//! exact and a too-small buffer, every variant forced, streaming over 1-,
//! 7- and 4096-byte reads), and a reused `Decoder` decodes many frames in
//! a row; every result must equal the original and libzstd's.
//!
//! Sizes are bounded so the file runs in well under a minute with
//! `cargo test` (profile.test has opt-level 2); the high levels get the
//! small inputs.

use lzkit::zstd::{self, Decoder, Dictionary, Variant};
use lzkit_testkit::zstd_check::{READ_SIZES, Ways, decode_every_way, stream};
use lzkit_testkit::zstd_frames::skippable_frame;
use lzkit_testkit::zstd_ref::{self, Settings};
use lzkit_testkit::{KINDS, Kind, assert_same, generate_kind, periodic, text};
use proptest::prelude::*;
use std::sync::OnceLock;

/// How a case's data is made: a [`Kind`] of the testkit, or a short
/// period (matches at offsets below the copy widths).
#[derive(Clone, Copy, Debug)]
enum Data {
    Kind(Kind),
    Period(usize),
}

fn data_strategy() -> impl Strategy<Value = Data> {
    prop_oneof![
        6 => proptest::sample::select(KINDS.to_vec()).prop_map(Data::Kind),
        1 => (1usize..=40).prop_map(Data::Period),
    ]
}

fn make(data: Data, len: usize, seed: u64) -> Vec<u8> {
    match data {
        Data::Kind(k) => generate_kind(k, len, seed),
        Data::Period(p) => periodic(len, p, seed),
    }
}

/// A length for `level`: up to 300 KB (several 128 KiB blocks) below level
/// 17, up to 48 KB above (the slow levels); small sizes are as likely.
fn length_for(level: i32, pick: usize) -> usize {
    let max = if level >= 17 { 48 << 10 } else { 300 << 10 };
    match pick % 4 {
        0 => pick % 200,
        1 => pick % 5000,
        _ => pick % max,
    }
}

/// libzstd settings from the strategy's draws.
fn settings(level: i32, checksum: bool, content_size: bool, flush: Option<usize>) -> Settings {
    Settings::new(level)
        .checksum(checksum)
        .content_size(content_size)
        .flush_every(flush)
}

/// Decode `f` every way and require `original` and libzstd's bytes.
#[track_caller]
fn check(f: &[u8], dicts: &[&[u8]], original: &[u8], what: &str) {
    let ways = Ways {
        dicts,
        ..Ways::default()
    };
    let ours = decode_every_way(f, &ways, what);
    let reference = zstd_ref::decompress(f, dicts.last().copied());
    assert!(reference.is_ok(), "{what}: libzstd rejects its own frame");
    zstd_ref::check_same_verdict(&ours, &reference, what);
    assert_same(&ours.unwrap(), original, what);
}

// ---------------------------------------------------------------------------
// Dictionaries, built once.
// ---------------------------------------------------------------------------

/// Samples like the data they will compress: text and column records.
fn samples() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = (0..300).map(|i| text(400, 5000 + i)).collect();
    v.extend((0..300).map(|i| generate_kind(Kind::Column, 256, 9000 + i)));
    v
}

/// A zstd-format dictionary trained by libzstd (entropy tables, content,
/// an ID).
fn trained() -> &'static [u8] {
    static D: OnceLock<Vec<u8>> = OnceLock::new();
    D.get_or_init(|| zstd_ref::train_dictionary(&samples(), 16 << 10).expect("training"))
}

/// A raw-content dictionary: 32 KB of text and columns (no magic number,
/// ID 0).
fn raw_content() -> &'static [u8] {
    static D: OnceLock<Vec<u8>> = OnceLock::new();
    D.get_or_init(|| {
        let mut d = text(20_000, 4242);
        d.extend(generate_kind(Kind::Column, 12_000, 4243));
        d
    })
}

#[derive(Clone, Copy, Debug)]
enum Dict {
    None,
    RawContent,
    Trained,
}

impl Dict {
    fn bytes(self) -> Option<&'static [u8]> {
        match self {
            Dict::None => None,
            Dict::RawContent => Some(raw_content()),
            Dict::Trained => Some(trained()),
        }
    }
}

/// Data that a dictionary helps: pieces of the dictionary's own kinds,
/// with the same seeds as some samples.
fn dict_data(len: usize, seed: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(len + 400);
    let mut s = seed;
    while v.len() < len {
        s = lzkit_testkit::rng::derive_seed(s, 1);
        if s.is_multiple_of(2) {
            v.extend(text(400, 5000 + s % 300));
        } else {
            v.extend(generate_kind(Kind::Column, 256, 9000 + s % 300));
        }
    }
    v.truncate(len);
    v
}

// ---------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------

// Case counts: together about 10 s here (2 cores); the runtime budget of
// this file is a minute.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// One frame of generated data at a sampled level, every flag.
    #[test]
    fn frames_match_libzstd(
        data in data_strategy(),
        pick in any::<usize>(),
        seed in any::<u64>(),
        level in zstd_ref::MIN_LEVEL..=zstd_ref::MAX_LEVEL,
        checksum in any::<bool>(),
        content_size in any::<bool>(),
        flush in prop_oneof![3 => Just(None), 1 => (1usize..40_000).prop_map(Some)],
    ) {
        let len = length_for(level, pick);
        let original = make(data, len, seed);
        let s = settings(level, checksum, content_size, flush);
        let f = zstd_ref::compress(&original, &s, None);
        check(&f, &[], &original, &format!("{data:?} len {len} {s:?}"));
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Frames with a raw-content or a trained dictionary (ID written or
    /// not); the decoder is given the dictionary, and a second unrelated
    /// one that it must not pick.
    #[test]
    fn dictionaries_match_libzstd(
        dict in prop_oneof![Just(Dict::RawContent), Just(Dict::Trained)],
        pick in any::<usize>(),
        seed in any::<u64>(),
        level in zstd_ref::MIN_LEVEL..=zstd_ref::MAX_LEVEL,
        checksum in any::<bool>(),
        content_size in any::<bool>(),
        dict_id in any::<bool>(),
    ) {
        let len = length_for(level, pick) / 4;
        let original = dict_data(len, seed);
        let s = settings(level, checksum, content_size, None).dict_id(dict_id);
        let d = dict.bytes().unwrap();
        let f = zstd_ref::compress(&original, &s, Some(d));
        let what = format!("{dict:?} len {len} {s:?}");
        check(&f, &[d], &original, &what);
        // With a trained dictionary whose ID is in the frame, an unrelated
        // raw-content dictionary beside it must not be chosen.
        if matches!(dict, Dict::Trained) && dict_id {
            check(&f, &[raw_content(), d], &original, &format!("{what}, two dictionaries"));
        }
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Several frames (each its own settings) concatenated, with skippable
    /// frames before, between and after.
    #[test]
    fn concatenated_and_skippable_frames(
        parts in proptest::collection::vec(
            (data_strategy(), 0usize..20_000, any::<u64>(), -5i32..=19, any::<bool>(), any::<bool>(), 0u8..4),
            1..5,
        ),
    ) {
        let mut input = Vec::new();
        let mut original = Vec::new();
        for (i, &(data, len, seed, level, checksum, content_size, skip)) in parts.iter().enumerate() {
            if skip == 0 {
                input.extend(skippable_frame(i as u8 % 16, &text(len % 300, seed)));
            }
            let d = make(data, len, seed);
            input.extend(zstd_ref::compress(&d, &settings(level, checksum, content_size, None), None));
            if skip == 1 {
                input.extend(skippable_frame(15, &[]));
            }
            original.extend(d);
        }
        check(&input, &[], &original, &format!("{} frames", parts.len()));
    }
}

/// Frames made in one call (`ZSTD_compress2`): always a content size,
/// single-segment when the data fits the window.
#[test]
fn one_shot_frames() {
    for (i, &kind) in KINDS.iter().enumerate() {
        for (j, &len) in [0usize, 1, 100, 4096, 70_000, 131_072, 131_073, 262_144]
            .iter()
            .enumerate()
        {
            let level = [-5, -1, 1, 3, 9, 19][(i + j) % 6];
            let original = generate_kind(kind, len, (i * 100 + j) as u64);
            let f = zstd_ref::compress_one_shot(&original, level, j.is_multiple_of(2));
            check(
                &f,
                &[],
                &original,
                &format!("one-shot {kind:?} len {len} level {level}"),
            );
        }
    }
}

/// Periods of 64 to 129 bytes: long matches at offsets around the 64-byte
/// kernel's width, which copies offsets below 128 in 32-byte chunks (each
/// variant forced, through `check`).
#[test]
fn offsets_around_the_widest_chunk() {
    for (k, period) in [64usize, 65, 70, 96, 100, 127, 128, 129]
        .into_iter()
        .enumerate()
    {
        // Random bytes around: the long match starts and ends well inside
        // the output (a buffer's first and last bytes are decoded by the
        // careful path).
        let mut original = lzkit_testkit::random(1000, 98);
        original.extend(periodic(40_000 + period, period, k as u64));
        original.extend(lzkit_testkit::random(300, 99));
        for level in [1, 19] {
            let f = zstd_ref::compress_one_shot(&original, level, true);
            check(
                &f,
                &[],
                &original,
                &format!("period {period} level {level}"),
            );
        }
    }
}

/// The extreme levels on data of each kind (deterministic, beside the
/// sampled levels above).
#[test]
fn every_level() {
    for level in zstd_ref::MIN_LEVEL..=zstd_ref::MAX_LEVEL {
        let kind = KINDS[level.rem_euclid(KINDS.len() as i32) as usize];
        let len = if level >= 17 { 40_000 } else { 150_000 };
        let original = generate_kind(kind, len, (level + 100) as u64);
        let s = Settings::new(level).checksum(level % 2 == 0);
        let f = zstd_ref::compress(&original, &s, None);
        check(&f, &[], &original, &format!("level {level} {kind:?}"));
    }
}

/// `--long` windows: matches farther back than the level's default window
/// (8 MiB of runs between 2 MiB of random bytes and their copy), window
/// logs 24 and 27 (the streaming limit), with long-distance matching.
#[test]
fn long_windows() {
    let first = generate_kind(Kind::Random, 2 << 20, 1);
    let mut original = first.clone();
    original.extend(generate_kind(Kind::Runs, 8 << 20, 2));
    original.extend(&first);
    original.extend(generate_kind(Kind::Column, 1 << 20, 3));
    for (log, level) in [(24u32, 1), (27, 3), (27, -3)] {
        let s = Settings::new(level).long(log);
        let f = zstd_ref::compress(&original, &s, None);
        // The copy must have been found: the frame is well under the 4 MiB
        // of random bytes.
        assert!(
            f.len() < (3 << 20),
            "window 2^{log}: {} bytes, the long match was not used",
            f.len()
        );
        let ways = Ways {
            read_sizes: &[4096, 65_539],
            ..Ways::default()
        };
        let what = format!("long window 2^{log} level {level}");
        let ours = decode_every_way(&f, &ways, &what);
        assert_same(&ours.expect("long window decodes"), &original, &what);
    }
}

/// One `Decoder` (and one per forced variant) decodes many frames in a
/// row: levels, sizes, dictionaries and flags change from frame to frame,
/// and each result must be exact (tables and buffers kept between frames
/// must not leak into the next).
#[test]
fn reused_decoder_across_frames() {
    let mut frames = Vec::new();
    for i in 0..60u64 {
        let kind = KINDS[i as usize % KINDS.len()];
        let level = [-5, 1, 3, 6, 12, 19, 22, -1][i as usize % 8];
        let len = [0usize, 10, 1000, 20_000, 140_000][(i as usize * 7) % 5];
        let len = if level >= 17 { len.min(30_000) } else { len };
        let dict = [Dict::None, Dict::Trained, Dict::RawContent][(i as usize / 3) % 3];
        let original = match dict {
            Dict::None => generate_kind(kind, len, i),
            _ => dict_data(len, i),
        };
        let s = Settings::new(level)
            .checksum(!i.is_multiple_of(3))
            .content_size(i.is_multiple_of(2))
            .flush_every(i.is_multiple_of(5).then_some(3000));
        let f = zstd_ref::compress(&original, &s, dict.bytes());
        frames.push((f, original, dict));
    }
    // A raw-content dictionary has no ID: frames made with it name none,
    // like frames made without a dictionary, so each kind of frame goes
    // to a decoder that holds only its own dictionary.
    let mut plain = Decoder::new();
    let mut trained_only = Decoder::new().with_dictionary(Dictionary::new(trained()).unwrap());
    let mut raw_only = Decoder::new().with_dictionary(Dictionary::new(raw_content()).unwrap());
    let mut forced: Vec<(Variant, Decoder, Decoder, Decoder)> = Variant::available()
        .iter()
        .map(|&v| {
            let d = || Decoder::with_variant(v).unwrap();
            (
                v,
                d(),
                d().with_dictionary(Dictionary::new(trained()).unwrap()),
                d().with_dictionary(Dictionary::new(raw_content()).unwrap()),
            )
        })
        .collect();
    for round in 0..2 {
        for (i, (f, original, dict)) in frames.iter().enumerate() {
            let what = format!(
                "round {round} frame {i} ({dict:?}, {} bytes)",
                original.len()
            );
            let pick = |a: &mut Decoder, b: &mut Decoder, c: &mut Decoder| -> Vec<u8> {
                let d = match dict {
                    Dict::None => a,
                    Dict::Trained => b,
                    Dict::RawContent => c,
                };
                if (i + round).is_multiple_of(2) {
                    d.decompress(f).unwrap_or_else(|e| panic!("{what}: {e}"))
                } else {
                    let mut out = vec![0xA5; original.len()];
                    let n = d
                        .decompress_into(f, &mut out)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    out.truncate(n);
                    out
                }
            };
            assert_same(
                &pick(&mut plain, &mut trained_only, &mut raw_only),
                original,
                &what,
            );
            for (v, a, b, c) in forced.iter_mut() {
                assert_same(
                    &pick(a, b, c),
                    original,
                    &format!("{what}, variant {}", v.name()),
                );
            }
        }
    }
    // And the whole sequence of frames without dictionaries through one
    // stream.
    let mut all = Vec::new();
    let mut expected = Vec::new();
    for (f, original, dict) in &frames {
        if matches!(dict, Dict::None) {
            all.extend_from_slice(f);
            expected.extend_from_slice(original);
        }
    }
    for k in READ_SIZES {
        let r = stream(&all, Decoder::new(), k).expect("stream of frames");
        assert_same(&r, &expected, &format!("all frames, {k}-byte reads"));
    }
    assert_same(
        &zstd::decompress(&all).unwrap(),
        &expected,
        "all frames, one shot",
    );
}

/// `decompress_into` with buffers smaller than the output, down to empty:
/// an error every time, never a panic and never a partial success.
#[test]
fn too_small_buffers() {
    let original = generate_kind(Kind::Mixed, 200_000, 5);
    for (level, content_size) in [(1, false), (3, true), (19, false)] {
        let f = zstd_ref::compress(
            &original,
            &Settings::new(level).content_size(content_size),
            None,
        );
        for cap in [0usize, 1, 100, 65_536, 131_072, 131_073, 199_999] {
            let mut out = vec![0u8; cap];
            assert!(
                zstd::decompress_into(&f, &mut out).is_err(),
                "level {level}: {cap} bytes accepted for 200000"
            );
            for &v in Variant::available() {
                assert!(
                    Decoder::with_variant(v)
                        .unwrap()
                        .decompress_into(&f, &mut out)
                        .is_err(),
                    "level {level}, variant {}: {cap} bytes accepted",
                    v.name()
                );
            }
        }
        let mut out = vec![0u8; 300_000];
        let n = zstd::decompress_into(&f, &mut out).unwrap();
        assert_same(&out[..n], &original, "larger buffer");
    }
}

/// The variant names round-trip, and every available variant is in `ALL`.
#[test]
fn variants_are_named() {
    assert!(!Variant::available().is_empty());
    for &v in Variant::available() {
        assert!(Variant::ALL.contains(&v));
        assert_eq!(Variant::from_name(v.name()), Some(v));
    }
}

/// An adaptive decoder trusts its prior (the default for this CPU) for
/// tens of MiB before it explores: 8 MiB of 128 KiB-block frames are all
/// decoded by that variant, none of them timed (LZ4's decoders start
/// exploring after 2 MiB).
#[test]
fn adaptive_decoder_trusts_its_prior_over_several_mib() {
    let original = generate_kind(Kind::Text, 1 << 20, 7);
    let frame = zstd_ref::compress(&original, &Settings::new(1), None);
    let mut d = Decoder::new();
    let mut out = vec![0u8; original.len()];
    for _ in 0..8 {
        assert_eq!(d.decompress_into(&frame, &mut out).unwrap(), original.len());
        assert_same(&out, &original, "a frame of 1 MiB");
    }
    let stats = d.stats();
    let used: Vec<_> = stats.iter().filter(|s| s.blocks > 0).collect();
    assert_eq!(used.len(), 1, "{stats:?}");
    assert_eq!(used[0].arm, Variant::default_for_cpu(), "{stats:?}");
    assert!(stats.iter().all(|s| s.timed == 0), "{stats:?}");
    assert!(used[0].blocks >= 64, "{stats:?}");
}
