//! Regression tests of issue 31, item 12: gzip input to `lzkit recompress`.
//! Trailing garbage after the last member is called trailing garbage (not
//! truncation), and a run of zero bytes after it (`tar`'s padding) is
//! accepted with a warning, as `gzip -d` accepts it.

#![cfg(unix)]

mod common;

use std::fs;
use std::path::Path;

use common::*;

fn gzip_of(data: &[u8]) -> Vec<u8> {
    let out = with_stdin("gzip", Path::new("."), &["-c"], data);
    assert!(out.status.success(), "gzip");
    out.stdout
}

#[test]
fn zero_padding_after_gzip_members_is_accepted_with_a_warning() {
    let d = tmp();
    let (a, b) = (sample(50_000, 1), sample(30_000, 2));
    for zeros in [1usize, 512, 10_240, 100_000] {
        let mut file = gzip_of(&a);
        file.extend_from_slice(&gzip_of(&b));
        file.resize(file.len() + zeros, 0);
        write(d.path(), "in.gz", &file);
        let out = lzkit(
            d.path(),
            &["recompress", "--to", "lz4", "--verify", "-f", "in.gz"],
        );
        assert!(out.status.success(), "{zeros} zeros: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("{zeros} zero bytes after the last gzip member")),
            "{zeros} zeros: {}",
            stderr(&out)
        );
        let got =
            lzkit::lz4::frame::decompress(&fs::read(d.path().join("in.lz4")).unwrap()).unwrap();
        let mut want = a.clone();
        want.extend_from_slice(&b);
        assert!(got == want, "{zeros} zeros: wrong content");
    }
}

#[test]
fn trailing_garbage_after_gzip_is_called_trailing_garbage() {
    let d = tmp();
    let data = sample(50_000, 3);
    let cases: [&[u8]; 5] = [
        b"x",
        b"garbage\n",
        b"\0\0\0junk",
        &[0x42; 100],
        b"1234567890abcdef",
    ];
    for garbage in cases {
        let mut file = gzip_of(&data);
        file.extend_from_slice(garbage);
        write(d.path(), "in.gz", &file);
        let out = lzkit(d.path(), &["recompress", "--to", "lz4", "-f", "in.gz"]);
        assert!(!out.status.success(), "{garbage:?} accepted");
        let err = stderr(&out);
        assert!(err.contains("trailing garbage"), "{garbage:?}: {err}");
        assert!(!err.contains("truncated"), "{garbage:?}: {err}");
        assert!(
            !d.path().join("in.lz4").exists(),
            "{garbage:?}: output left"
        );
    }
    // A member cut short is still truncation.
    let whole = gzip_of(&data);
    write(d.path(), "in.gz", &whole[..whole.len() - 4]);
    let out = lzkit(d.path(), &["recompress", "--to", "lz4", "-f", "in.gz"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("truncated gzip data"),
        "{}",
        stderr(&out)
    );
}
