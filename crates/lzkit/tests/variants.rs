//! Every decoder variant, forced explicitly, against the same data and the
//! same corrupt inputs: they must agree byte for byte and error for error.
//! (A fresh adaptive decoder only ever reaches its first arm, so the
//! adaptive path alone would leave most variants untested.)

use lzkit::lz4::block::{self, Decoder, Kernel, Variant};

/// Deterministic data shapes that exercise every copy path: runs (offset
/// 1), short periods 2..=70 (pattern fills below and above each width),
/// long matches, literal runs of every length around chunk sizes.
fn shapes() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut x = 0x1234_5678u32;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    for period in 1..=70usize {
        let pat: Vec<u8> = (0..period).map(|_| rnd() as u8).collect();
        let mut v = Vec::new();
        while v.len() < 3000 + period * 17 {
            // Alternate pattern stretches with literal runs of varying length.
            let run = (rnd() % 300) as usize;
            v.extend(pat.iter().cycle().take(run));
            let lits = (rnd() % 40) as usize;
            v.extend((0..lits).map(|_| rnd() as u8));
        }
        out.push(v);
    }
    // Integer-column-like data: small values in wide little-endian ints.
    for width in [1usize, 2, 4, 8] {
        let mut v = Vec::new();
        let mut val = 0u64;
        for i in 0..40_000 {
            if i % 97 == 0 {
                val = (rnd() % 50) as u64;
            }
            v.extend_from_slice(&val.to_le_bytes()[..width]);
        }
        out.push(v);
    }
    // Random (incompressible) and text-like.
    out.push((0..100_000).map(|_| rnd() as u8).collect());
    let words = [
        "lz4 ", "block ", "decoder ", "variant ", "a ", "the ", "pattern ", "\n",
    ];
    out.push(
        (0..20_000)
            .flat_map(|_| words[rnd() as usize % words.len()].bytes())
            .collect(),
    );
    // Sizes around the margins.
    for n in [
        0usize, 1, 4, 5, 12, 13, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200,
    ] {
        out.push((0..n).map(|i| (i % 3) as u8).collect());
    }
    out
}

#[test]
fn every_variant_round_trips_every_shape() {
    let variants = Variant::available();
    assert!(
        variants.contains(&Variant::plain(Kernel::Portable8))
            && variants.contains(&Variant::plain(Kernel::Portable64))
    );
    for data in shapes() {
        // Level 9 (HC) gives the long-match codes the medium shape copies
        // without a branch.
        for level in [1, -5, 9] {
            let c = block::compress(&data, level);
            for &v in variants {
                let mut d = Decoder::with_variant(v).unwrap();
                // Exact capacity, and a larger stale buffer.
                for extra in [0usize, 100] {
                    let mut out = vec![0xA5u8; data.len() + extra];
                    let n = d
                        .decompress_into(&c, &mut out)
                        .unwrap_or_else(|e| panic!("{v}: len {}: {e}", data.len()));
                    assert_eq!(&out[..n], &data[..], "{v} len {}", data.len());
                }
            }
        }
    }
}

#[test]
fn variants_agree_on_corrupt_input() {
    let mut x = 99u32;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let shapes = shapes();
    let variants = Variant::available();
    let mut decoders: Vec<Decoder> = variants
        .iter()
        .map(|&v| Decoder::with_variant(v).unwrap())
        .collect();
    // Blocks at level 1 and at HC level 9 (where the medium shape's
    // branch-free path decodes most matches).
    let compressed: Vec<[Vec<u8>; 2]> = shapes
        .iter()
        .map(|d| [block::compress(d, 1), block::compress(d, 9)])
        .collect();
    for round in 0..3000 {
        let k = round % shapes.len();
        let data = &shapes[k];
        let mut c = compressed[k][(round / shapes.len()) % 2].clone();
        if c.is_empty() {
            continue;
        }
        // Flip, truncate or overwrite a few bytes.
        match rnd() % 3 {
            0 => {
                for _ in 0..1 + rnd() % 4 {
                    let i = rnd() as usize % c.len();
                    c[i] ^= 1 << (rnd() % 8);
                }
            }
            1 => c.truncate(rnd() as usize % c.len()),
            _ => {
                let i = rnd() as usize % c.len();
                c[i] = rnd() as u8;
            }
        }
        let cap = data.len() + (rnd() % 64) as usize;
        let mut reference: Option<Result<Vec<u8>, String>> = None;
        for (d, v) in decoders.iter_mut().zip(variants) {
            let mut out = vec![0x5Au8; cap];
            let r = d
                .decompress_into(&c, &mut out)
                .map(|n| out[..n].to_vec())
                .map_err(|e| e.to_string());
            match &reference {
                None => reference = Some(r),
                Some(want) => assert_eq!(&r, want, "variant {v} disagrees in round {round}"),
            }
        }
    }
}

#[test]
fn adaptive_and_round_robin_decoders_decode_correctly() {
    let data: Vec<u8> = shapes().concat();
    let blocks: Vec<&[u8]> = data.chunks(64 << 10).collect();
    let compressed: Vec<Vec<u8>> = blocks.iter().map(|b| block::compress(b, 1)).collect();
    let mut adaptive = Decoder::with_seed(42);
    let mut rr = Decoder::round_robin();
    let mut out = vec![0u8; 64 << 10];
    for _ in 0..20 {
        for (b, c) in blocks.iter().zip(&compressed) {
            for d in [&mut adaptive, &mut rr] {
                let n = d.decompress_into(c, &mut out).unwrap();
                assert_eq!(&out[..n], *b);
            }
        }
    }
    // Round robin reached every variant.
    assert!(rr.stats().iter().all(|s| s.blocks > 0));
    // The adaptive decoder tried every variant and timed the big blocks.
    let stats = adaptive.stats();
    assert!(stats.iter().all(|s| s.blocks > 0), "{stats:?}");
    assert!(stats.iter().any(|s| s.timed > 0), "{stats:?}");
}

#[test]
fn every_variant_has_one_kernel_in_three_shapes() {
    use lzkit::lz4::block::Shape;
    for &v in Variant::ALL {
        let plain = v.with_shape(Shape::Plain);
        assert_eq!(plain.shape(), Shape::Plain, "{v}");
        for (shape, suffix) in [(Shape::MatchOnly, "m"), (Shape::Medium, "h")] {
            let w = plain.with_shape(shape);
            assert_eq!(w.shape(), shape, "{v}");
            assert_eq!(w.name(), format!("{}{suffix}", plain.name()), "{v}");
            assert_eq!(w.width(), plain.width(), "{v}");
            assert_eq!(w.is_portable(), plain.is_portable(), "{v}");
            assert_eq!(w.with_shape(Shape::Plain), plain, "{v}");
        }
        assert_eq!(v.with_shape(v.shape()), v, "{v}");
        assert_eq!(Variant::from_name(v.name()), Some(v));
    }
    let plain = Variant::ALL.iter().filter(|v| v.shape() == Shape::Plain);
    assert_eq!(plain.count() * 3, Variant::ALL.len());
}

#[test]
fn unavailable_variant_is_an_error() {
    for &v in Variant::ALL {
        assert_eq!(Decoder::with_variant(v).is_ok(), v.is_available(), "{v}");
    }
}

#[test]
fn small_blocks_are_timed_in_batches() {
    // 4 KiB blocks, each far below MIN_TIMED_BYTES: the adaptive decoder
    // times runs of them together, so it still learns.
    let work = shape_blocks(4 << 10);
    let mut d = Decoder::with_seed(3);
    // A converged decoder times small blocks rarely (its untimed share
    // grows with the blocks per timing), so go on until every arm has
    // been timed, within a bound of 40 passes.
    let passes = 40 * work.0.iter().map(Vec::len).sum::<usize>();
    let total = decode_until(&mut d, &work, passes, |d, _| {
        d.stats().iter().all(|s| s.timed > 0)
    });
    let stats = d.stats();
    let timed: u64 = stats.iter().map(|s| u64::from(s.timed)).sum();
    // Every candidate was timed, and no timing covered less than the
    // threshold (the first timing of each arm is discarded).
    assert!(stats.iter().all(|s| s.timed > 0), "{stats:?}");
    let timings = timed + stats.len() as u64;
    assert!(
        timings <= (total / block::MIN_TIMED_BYTES) as u64,
        "{timings} timings for {total} bytes"
    );
}

#[test]
fn a_corrupt_block_in_a_batch_is_an_error_and_decoding_goes_on() {
    let data: Vec<u8> = shapes().concat();
    let blocks: Vec<&[u8]> = data.chunks(2 << 10).take(64).collect();
    let compressed: Vec<Vec<u8>> = blocks.iter().map(|b| block::compress(b, 1)).collect();
    let mut d = Decoder::with_seed(5);
    let mut out = vec![0u8; 2 << 10];
    for (i, (b, c)) in blocks.iter().zip(&compressed).enumerate() {
        if i % 5 == 2 {
            // Truncated: rejected, whatever arm or batch it lands in.
            let cut = &c[..c.len() / 2];
            assert!(d.decompress_into(cut, &mut out).is_err(), "block {i}");
        }
        let n = d.decompress_into(c, &mut out).unwrap();
        assert_eq!(&out[..n], *b, "block {i}");
    }
}

/// The test shapes in blocks of `size` bytes, and their compressed forms.
fn shape_blocks(size: usize) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let data: Vec<u8> = shapes().concat();
    let blocks: Vec<Vec<u8>> = data.chunks(size).map(<[u8]>::to_vec).collect();
    let compressed = blocks.iter().map(|b| block::compress(b, 1)).collect();
    (blocks, compressed)
}

/// 64 KiB blocks of the test shapes and their compressed forms.
fn big_blocks() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    shape_blocks(64 << 10)
}

/// Decode `blocks` over and over with `d`, checking each, until `done`
/// says so after a block (or `limit` bytes are out); returns the bytes
/// decoded.
fn decode_until(
    d: &mut Decoder,
    (blocks, compressed): &(Vec<Vec<u8>>, Vec<Vec<u8>>),
    limit: usize,
    mut done: impl FnMut(&Decoder, usize) -> bool,
) -> usize {
    let mut out = vec![0u8; blocks.iter().map(Vec::len).max().unwrap_or(0)];
    let mut total = 0;
    while total < limit {
        for (b, c) in blocks.iter().zip(compressed) {
            let n = d.decompress_into(c, &mut out).unwrap();
            assert_eq!(&out[..n], &b[..]);
            total += n;
            if done(d, total) {
                return total;
            }
        }
    }
    total
}

#[test]
fn a_decoder_started_on_a_prior_trusts_it_then_explores() {
    let work = big_blocks();
    let candidates = Variant::candidates();
    // The last candidate: never the CPU default, so what runs first is
    // the prior's doing.
    let prior = *candidates.last().unwrap();
    let mut d = Decoder::with_seed(9).with_prior(Some(prior));
    assert_eq!(d.preferred(), prior);
    // Up to the trust limit, the prior decodes every block, untimed.
    let trusted = decode_until(&mut d, &work, usize::MAX, |d, total| {
        let next_block = 64 << 10;
        if total + next_block > block::PRIOR_TRUST_BYTES {
            return true;
        }
        assert_eq!(d.last_variant(), prior);
        false
    });
    let stats = d.stats();
    for s in &stats {
        assert_eq!(s.timed, 0, "{stats:?}");
        assert_eq!(s.blocks > 0, s.variant == prior, "{stats:?}");
    }
    // After it, the decoder explores every candidate.
    decode_until(&mut d, &work, trusted + (32 << 20), |d, _| {
        d.stats().iter().all(|s| s.timed > 0)
    });
    let stats = d.stats();
    assert!(stats.iter().all(|s| s.timed > 0), "{stats:?}");
}

#[test]
fn a_prior_that_is_no_candidate_or_none_changes_nothing() {
    let work = big_blocks();
    let fixed = Variant::plain(Kernel::Portable8);
    let other = *Variant::candidates().last().unwrap();
    // A fixed decoder stays fixed.
    let mut d = Decoder::with_variant(fixed)
        .unwrap()
        .with_prior(Some(other));
    decode_until(&mut d, &work, 1 << 20, |_, _| false);
    assert_eq!(d.stats().len(), 1);
    assert_eq!(d.last_variant(), fixed);
    // A variant that is not a candidate, or none: the adaptive decoder
    // explores from its first blocks, as without a prior.
    for prior in [Some(fixed), None] {
        let mut d = Decoder::with_seed(4).with_prior(prior);
        decode_until(&mut d, &work, 1 << 20, |_, _| false);
        let stats = d.stats();
        // The premise: the fixed variant is no candidate of this CPU.
        assert!(stats.iter().all(|s| s.variant != fixed), "{stats:?}");
        assert!(
            stats.iter().filter(|s| s.blocks > 0).count() > 1,
            "{stats:?}"
        );
    }
}

#[test]
fn a_converged_decoder_votes_for_the_process_prior() {
    let work = big_blocks();
    let sum = || -> u32 { Decoder::process_votes().iter().map(|v| v.1).sum() };
    let before = sum();
    let mut d = Decoder::with_seed(11);
    // Converged: the variant it settled on (the preferred one) has 32
    // timings (CONVERGED_SAMPLES); another arm's timings do not count.
    let converged = |d: &Decoder| {
        let preferred = d.preferred();
        d.stats()
            .iter()
            .any(|s| s.variant == preferred && s.timed >= 32)
    };
    decode_until(&mut d, &work, 256 << 20, |d, _| converged(d));
    assert!(converged(&d), "{:?}", d.stats());
    // Other tests' decoders may vote meanwhile, so the total only grows;
    // this decoder's vote is in it, and a prior exists.
    let after = sum();
    assert!(after > before, "{before} -> {after}");
    let prior = Decoder::process_prior().expect("a decoder has voted");
    assert!(Variant::candidates().contains(&prior));
    let votes = Decoder::process_votes();
    assert_eq!(votes.len(), Variant::candidates().len());
    assert!(votes.iter().any(|&(v, n)| v == prior && n > 0), "{votes:?}");
}
