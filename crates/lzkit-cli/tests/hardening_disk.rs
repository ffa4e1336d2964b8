//! Regression tests of issue 31, item 11 (and item 21's "a full disk names
//! the hidden temporary file"): a full disk is reported as "No space left
//! on device", for the user's output file, never as a failed verification
//! and never under the hidden temporary file's name.
//!
//! `/dev/full` always; a small tmpfs when this process may mount one (as
//! root), else a note says the part is skipped.

#![cfg(unix)]

mod common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::*;

/// Incompressible data.
fn noise(len: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn gzip_of(data: &[u8]) -> Vec<u8> {
    let out = with_stdin("gzip", Path::new("."), &["-1", "-c"], data);
    assert!(out.status.success(), "gzip");
    out.stdout
}

/// `out` failed with "No space left on device" on a line naming `name`,
/// with no temporary file's name and no verification verdict.
fn assert_disk_full(out: &Output, name: &str, what: &str) {
    let err = stderr(out);
    assert!(!out.status.success(), "{what}: succeeded");
    assert!(
        err.contains(&format!("{name}: No space left on device")),
        "{what}: {err}"
    );
    assert!(
        !err.contains(".lzkit-"),
        "{what} names the temporary file: {err}"
    );
    assert!(!err.contains("verification"), "{what}: {err}");
}

#[test]
fn recompress_verify_to_a_full_device_says_the_disk_is_full() {
    let d = tmp();
    write(d.path(), "in.gz", &gzip_of(&noise(3 << 20)));
    for to in ["lz4", "zstd"] {
        for verify in [true, false] {
            let mut args = vec!["recompress", "--to", to, "-f", "in.gz", "-o", "/dev/full"];
            if verify {
                args.push("--verify");
            }
            let out = lzkit(d.path(), &args);
            assert_disk_full(&out, "/dev/full", &format!("{args:?}"));
        }
    }
}

#[test]
fn a_full_file_system_names_the_output_file() {
    let d = tmp();
    let data = noise(3 << 20);
    write(d.path(), "big", &data);
    write(d.path(), "big.gz", &gzip_of(&data));
    fs::write(
        d.path().join("big.lz4"),
        lzkit::lz4::frame::compress(&data, &lzkit::lz4::frame::FrameOptions::new()),
    )
    .unwrap();
    let small = d.path().join("small");
    fs::create_dir(&small).unwrap();
    let Some(_fs) = SmallFs::mount(&small, "1m") else {
        eprintln!("note: cannot mount a tmpfs here; the small-file-system test is skipped");
        return;
    };
    let cases: [(&[&str], &str); 6] = [
        (&["big", "small/big.lz4"], "small/big.lz4"),
        (&["--zstd", "big", "small/big.zst"], "small/big.zst"),
        (&["-d", "big.lz4", "small/big"], "small/big"),
        (
            &["recompress", "--to", "lz4", "big.gz", "-o", "small/r.lz4"],
            "small/r.lz4",
        ),
        (
            &[
                "recompress",
                "--to",
                "lz4",
                "--verify",
                "big.gz",
                "-o",
                "small/r.lz4",
            ],
            "small/r.lz4",
        ),
        (
            &[
                "recompress",
                "--to",
                "zstd",
                "--verify",
                "big.gz",
                "-o",
                "small/r.zst",
            ],
            "small/r.zst",
        ),
    ];
    for (args, name) in cases {
        let out = lzkit(d.path(), args);
        assert_disk_full(&out, name, &format!("{args:?}"));
        assert_eq!(
            fs::read_dir(&small).unwrap().count(),
            0,
            "{args:?} left files"
        );
    }
    // A file found by -r, written next to it on the full file system.
    fs::write(small.join("in"), &data[..600 << 10]).unwrap();
    let out = lzkit(d.path(), &["-r", "small"]);
    assert_disk_full(&out, "small/in.lz4", "-r");
    let left: Vec<_> = fs::read_dir(&small)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["in"], "-r left files");
}
