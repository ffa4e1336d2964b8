//! Arbitrary data and option bits: block and frame compression, then every
//! decoder variant (and C's) must give the data back.
//!
//! Input: 4 control bytes, then the data. Control bit 0x80 of byte 2
//! stretches the data (repeated, slightly varied) to up to 320 KiB so that
//! frames span several blocks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzkit::lz4::block;
use lzkit::lz4::frame::{self, BlockMode, FrameOptions};
use lzkit_fuzz::{CFrame, FRAME_DECODERS, block_decoders, c_frame_decode, dictionary};
use lzkit_testkit::{BLOCK_SIZES, c_ref};
use std::io::Write;
use std::sync::Arc;

const LEVELS: [i32; 8] = [-5, -1, 0, 1, 2, 9, 12, 3];

fuzz_target!(|input: &[u8]| {
    if input.len() < 4 {
        return;
    }
    let (ctl, body) = input.split_at(4);
    let level = LEVELS[(ctl[0] & 7) as usize];
    let data: Vec<u8> = if ctl[2] & 0x80 != 0 && !body.is_empty() {
        let max = if level >= 2 { 8 } else { 40 };
        let n = (((ctl[2] & 0x7F) as usize) % max + 1) * 8192;
        let mut v = Vec::with_capacity(n + body.len());
        let mut round = 0u8;
        while v.len() < n {
            v.extend_from_slice(body);
            if ctl[3] & 1 != 0 {
                v.push(round); // break exact periodicity
                round = round.wrapping_add(1);
            }
        }
        v.truncate(n);
        v
    } else {
        body.to_vec()
    };
    let dict = dictionary();
    let dict = &dict[dict.len() - [0, 100, 65_535, 70_000][(ctl[1] >> 4 & 3) as usize]..];

    // Blocks.
    let c = block::compress(&data, level);
    assert!(c.len() <= block::max_compressed_size(data.len()));
    let cd = block::compress_with_dict(&data, dict, level);
    for v in block_decoders() {
        let mut dst = vec![0xA5u8; data.len()];
        let n = v
            .decode(&c, &mut dst, &[])
            .unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert!(dst[..n] == data[..], "{}: block round trip", v.name);
        if v.dict {
            let mut dst = vec![0x5Au8; data.len() + 3];
            let n = v
                .decode(&cd, &mut dst, dict)
                .unwrap_or_else(|e| panic!("{} (dict): {e}", v.name));
            assert!(
                dst[..n] == data[..],
                "{}: dictionary block round trip",
                v.name
            );
        }
    }
    assert!(
        c_ref::decompress(&c, data.len(), &[], 0).as_deref() == Some(&data[..]),
        "C decode of our block"
    );
    assert!(
        c_ref::decompress(&cd, data.len(), dict, 0).as_deref() == Some(&data[..]),
        "C decode of our dictionary block"
    );

    // Frames.
    let use_dict = ctl[1] & 2 != 0 && !dict.is_empty();
    let legacy = ctl[1] & 8 != 0;
    let o = FrameOptions::new()
        .level(level)
        .block_size(BLOCK_SIZES[((ctl[0] >> 3) & 3) as usize])
        .block_mode(if ctl[0] & 0x20 != 0 {
            BlockMode::Linked
        } else {
            BlockMode::Independent
        })
        .block_checksum(ctl[0] & 0x40 != 0)
        .content_checksum(ctl[0] & 0x80 != 0)
        .content_size((ctl[1] & 1 != 0).then_some(data.len() as u64))
        .dict_id((use_dict && ctl[1] & 4 != 0).then_some(u32::from(ctl[3]) * 0x0101_0101))
        .dictionary_opt(use_dict.then(|| Arc::from(dict)))
        .legacy(legacy)
        .threads(1);
    let o = if legacy {
        FrameOptions::new().level(level).legacy(true)
    } else {
        o
    };
    let fdict: &[u8] = if use_dict && !legacy { dict } else { &[] };
    let f = frame::compress(&data, &o);
    for v in FRAME_DECODERS {
        let out = (v.decode)(&f, fdict).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert!(out == data, "{}: frame round trip", v.name);
    }
    if !legacy {
        match c_frame_decode(&f, fdict) {
            CFrame::Ok(out) => assert!(out == data, "C decodes our frame to different content"),
            CFrame::Rejected(why) => panic!("C does not decode our frame: {why}"),
            CFrame::Skipped => {}
        }
    }
    // Streaming encoder in pieces of ctl[3] + 1 bytes.
    let mut e = frame::FrameEncoder::new(Vec::new(), &o);
    for piece in data.chunks(ctl[3] as usize + 1) {
        e.write_all(piece).unwrap();
    }
    let g = e.finish().unwrap();
    let out = (FRAME_DECODERS[0].decode)(&g, fdict).unwrap();
    assert!(out == data, "streamed frame round trip");
});
