//! A frame whose header claims far more content than its blocks hold
//! (issue 31, item 14): 4 MiB of blocks under a header that says 1 GiB,
//! tested and decoded under `ulimit -v` of 1 GB. The verdict is the
//! content-size mismatch, never "out of memory": every decoder's output
//! follows the blocks, not the claim.

#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::*;
use lzkit::lz4::frame::{self, BlockSize, FrameOptions};
use lzkit_testkit::frames::fix_header_checksum;
use lzkit_testkit::zstd_frames::{FrameHeader, frame as zstd_frame, raw_block};

const CLAIM: u64 = 1 << 30;

/// `lzkit ARGS` in `dir` with at most 1,000,000 KiB of address space.
fn limited(dir: &Path, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1000000 && exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run lzkit under ulimit")
}

/// A zstd frame (window 4 MiB, not single-segment) of `data` in raw
/// blocks of 128 KiB, its header claiming [`CLAIM`] bytes.
fn zstd_claiming(data: &[u8]) -> Vec<u8> {
    let n = data.len().div_ceil(128 << 10);
    let blocks: Vec<Vec<u8>> = data
        .chunks(128 << 10)
        .enumerate()
        .map(|(i, c)| raw_block(i + 1 == n, c))
        .collect();
    let header = FrameHeader::with_window_log(22).content_size(Some(CLAIM));
    zstd_frame(&header, &blocks, data)
}

/// An LZ4 frame of `data` whose 8-byte content size is rewritten to
/// [`CLAIM`] (header checksum recomputed).
fn lz4_claiming(data: &[u8]) -> Vec<u8> {
    let opts = FrameOptions::new()
        .block_size(BlockSize::Max4MB)
        .content_size(Some(data.len() as u64));
    let mut f = frame::compress(data, &opts);
    assert!(f[4] & 0x08 != 0, "content size flag");
    f[6..14].copy_from_slice(&CLAIM.to_le_bytes());
    fix_header_checksum(&mut f);
    f
}

#[test]
fn a_claimed_content_size_is_never_allocated() {
    let dir = tmp();
    // 4.5 MiB of incompressible bytes: the LZ4 frame is longer than
    // 1 GiB / 255, where a bound of 255 bytes per input byte would let
    // the claim through.
    let data = lzkit_testkit::data::random(9 << 19, 0x9E37_79B9_7F4A_7C15);
    write(dir.path(), "claim.zst", &zstd_claiming(&data));
    write(dir.path(), "claim.lz4", &lz4_claiming(&data));
    for name in ["claim.zst", "claim.lz4"] {
        for args in [
            vec!["-t", name],
            vec!["-dc", name],
            vec!["-d", "-f", name, "out"],
            vec!["-d", "-f", "-T2", name, "out"],
        ] {
            let out = limited(dir.path(), &args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(
                err.contains("content size mismatch") && err.contains(&CLAIM.to_string()),
                "{args:?}: expected the content-size mismatch, got: {err}"
            );
            assert!(!err.to_lowercase().contains("memory"), "{args:?}: {err}");
            assert!(!dir.path().join("out").exists(), "{args:?}: output left");
        }
    }
}
