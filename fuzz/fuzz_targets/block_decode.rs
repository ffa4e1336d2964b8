//! Arbitrary bytes as an LZ4 block, decoded by every block decoder variant
//! into a buffer whose capacity comes from the input, prefilled with stale
//! garbage. No panic; never accept what C's `LZ4_decompress_safe` rejects;
//! when both accept, the same bytes; the garbage never shows in the output
//! (two different fills decode identically); all variants agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit_fuzz::{block_decoders, dictionary};
use lzkit_testkit::c_ref;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let ctl = data[0];
    let raw = u16::from_le_bytes([data[1], data[2]]) as usize;
    let src = &data[3..];
    let cap = match ctl & 3 {
        0 => raw,                        // up to 64 KiB
        1 => raw % (src.len() * 8 + 32), // around the input size
        2 => raw * 16,                   // up to 1 MiB
        _ => raw % 64,                   // tiny
    };
    let dict: &[u8] = {
        let d = dictionary();
        let len = [0, 0, 0, 0, 1, 1000, 65_535, 70_000][((ctl >> 2) & 7) as usize];
        &d[d.len() - len..]
    };
    let fill = ctl ^ 0x5A;
    let reference = c_ref::decompress(src, cap, dict, fill);

    let mut first: Option<(&str, Option<Vec<u8>>)> = None;
    for v in block_decoders() {
        if !dict.is_empty() && !v.dict {
            continue;
        }
        let mut outcomes = Vec::new();
        for garbage in [fill, !fill] {
            let mut dst = vec![garbage; cap];
            let r = v.decode(src, &mut dst, dict);
            match (&reference, &r) {
                (None, Ok(n)) => {
                    panic!("{}: C rejects the block, we accept it ({n} bytes)", v.name)
                }
                (Some(c), Ok(n)) => {
                    assert_eq!(*n, c.len(), "{}: decoded length differs from C", v.name);
                    assert!(
                        dst[..*n] == c[..],
                        "{}: decoded bytes differ from C",
                        v.name
                    );
                }
                (_, Err(lzkit::Error::CorruptBlock { at, .. })) => {
                    assert!(
                        *at <= src.len(),
                        "{}: error position {at} > {}",
                        v.name,
                        src.len()
                    )
                }
                (_, Err(e)) => panic!("{}: unexpected error kind {e:?}", v.name),
            }
            outcomes.push(r.ok().map(|n| dst[..n].to_vec()));
        }
        assert_eq!(
            outcomes[0], outcomes[1],
            "{}: output depends on the buffer's old contents",
            v.name
        );
        let outcome = outcomes.pop().unwrap();
        match &first {
            None => first = Some((v.name.as_str(), outcome)),
            Some((name, o)) => assert_eq!(o, &outcome, "variants {name} and {} disagree", v.name),
        }
    }
});
