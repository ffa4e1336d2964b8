//! Every decoder variant, forced explicitly, against the same data and the
//! same corrupt inputs: they must agree byte for byte and error for error.
//! (A fresh adaptive decoder only ever reaches its first arm, so the
//! adaptive path alone would leave most variants untested.)

use lzkit::lz4::block::{self, Decoder, Kernel, Variant};
use lzkit_testkit::adaptive::{big_blocks, decode_until, shape_blocks};
use lzkit_testkit::{Rng, decoder_shapes as shapes};

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

/// Periods of 64 to 129 bytes, every variant: matches at offsets around
/// the 64-byte kernel's width (it copies offsets below 128 in 32-byte
/// chunks), longer than their offset.
#[test]
fn every_variant_copies_offsets_around_the_widest_chunk() {
    for (k, period) in [64usize, 65, 70, 96, 100, 127, 128, 129]
        .into_iter()
        .enumerate()
    {
        // Random bytes around: the long match starts and ends well inside
        // the output (a buffer's first and last bytes are decoded by the
        // careful path).
        let mut data = lzkit_testkit::random(1000, 98);
        data.extend(lzkit_testkit::periodic(20_000 + period, period, k as u64));
        data.extend(lzkit_testkit::random(300, 99));
        for level in [1, 9] {
            let c = block::compress(&data, level);
            for &v in Variant::available() {
                let mut out = vec![0u8; data.len()];
                let n = Decoder::with_variant(v)
                    .unwrap()
                    .decompress_into(&c, &mut out)
                    .unwrap_or_else(|e| panic!("{v}: period {period}: {e}"));
                assert_eq!(&out[..n], &data[..], "{v} period {period} level {level}");
            }
        }
    }
}

#[test]
fn variants_agree_on_corrupt_input() {
    let mut rng = Rng::for_data(99);
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
        match rng.index(3) {
            0 => {
                for _ in 0..1 + rng.index(4) {
                    let i = rng.index(c.len());
                    c[i] ^= 1 << rng.index(8);
                }
            }
            1 => c.truncate(rng.index(c.len())),
            _ => {
                let i = rng.index(c.len());
                c[i] = rng.byte();
            }
        }
        let cap = data.len() + rng.index(64);
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

/// Long matches (19 bytes and more) at offsets 1 to 15 after literal runs
/// of 0 to 20 bytes, every variant against the reference decoder: the
/// pattern copies of a run-length column (one literal, then a run), after
/// a match and after literals, at the block's start (less history than a
/// kernel's window) and further in.
#[test]
fn every_variant_fills_long_short_offset_matches_after_literals() {
    use lzkit_testkit::{push_last, push_seq, ref_decode};
    let mut rng = Rng::for_data(36);
    let variants = Variant::available();
    let mut decoders: Vec<Decoder> = variants
        .iter()
        .map(|&v| Decoder::with_variant(v).unwrap())
        .collect();
    for lead in [0usize, 3, 17, 40] {
        for round in 0..40 {
            let mut block = Vec::new();
            let mut produced = 0usize;
            if lead > 0 {
                // History first: `lead` literals and a match, so the run
                // below may follow a match (no literals of its own).
                let lits = lzkit_testkit::random(lead, round);
                let offset = 1 + rng.below(lead as u64) as usize;
                push_seq(&mut block, &lits, offset as u16, 4 + rng.below(30) as usize);
                produced = lead;
            }
            for _ in 0..12 {
                let run = rng.below(21) as usize;
                let lits = lzkit_testkit::random(run, rng.below(1 << 20));
                let history = produced + run;
                if history == 0 {
                    continue;
                }
                let offset = 1 + rng.below(15.min(history) as u64) as usize;
                let len = [19, 20, 23, 33, 47, 64, 65, 100, 300][rng.below(9) as usize];
                push_seq(&mut block, &lits, offset as u16, len);
                produced = history + len;
            }
            push_last(&mut block, &lzkit_testkit::random(16, round + 1000));
            let (want, _) = ref_decode(&block, 1 << 16).expect("a valid block");
            for (d, v) in decoders.iter_mut().zip(variants) {
                let mut out = vec![0xA5u8; want.len() + 64];
                let n = d
                    .decompress_into(&block, &mut out)
                    .unwrap_or_else(|e| panic!("{v}: lead {lead} round {round}: {e}"));
                assert_eq!(&out[..n], &want[..], "{v}: lead {lead} round {round}");
            }
        }
    }
}
