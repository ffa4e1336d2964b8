//! The process prior: a converged adaptive decoder votes for the variant it
//! settled on. The vote counters are global to the process, so this test
//! has a test binary of its own: no other test's decoders vote meanwhile.

use lzkit::lz4::block::{Decoder, Variant};
use lzkit_testkit::adaptive::{big_blocks, decode_until};

#[test]
fn a_converged_decoder_votes_for_the_process_prior() {
    let work = big_blocks();
    let sum = || -> u32 { Decoder::process_votes().iter().map(|v| v.1).sum() };
    // Alone in its process: no decoder has voted yet.
    let before = sum();
    assert_eq!(before, 0, "{:?}", Decoder::process_votes());
    assert_eq!(Decoder::process_prior(), None);
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
    // This decoder voted, once, and its vote makes the prior.
    let after = sum();
    assert_eq!(after, 1, "{:?}", Decoder::process_votes());
    let prior = Decoder::process_prior().expect("a decoder has voted");
    assert!(Variant::candidates().contains(&prior));
    let votes = Decoder::process_votes();
    assert_eq!(votes.len(), Variant::candidates().len());
    assert!(
        votes.iter().any(|&(v, n)| v == prior && n == 1),
        "{votes:?}"
    );
}
