//! A corpus made by the `zstd` command, decoded by lzkit: levels 1, 3,
//! 19, `--ultra -22`, `--fast=5`, `--long=27`, multithreaded jobs (`-T2
//! -B`), `--no-check`, small target blocks, `--rsyncable`, input from a
//! pipe (no content size), concatenated files, and `-D` with a dictionary
//! trained by `zstd --train` on generated samples.
//!
//! Without the `zstd` command the test is skipped with a note; in CI
//! (environment variable `CI` set) it fails instead (see
//! `zstd_ref::cli_available`).

use lzkit::zstd::{self, Decoder, Dictionary};
use lzkit_testkit::zstd_check::{Ways, decode_every_way};
use lzkit_testkit::zstd_ref;
use lzkit_testkit::{Kind, assert_same, generate_kind, random, text};
use std::path::Path;

/// The originals: every kind of data, empty and one-byte files.
fn originals() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("empty", Vec::new()),
        ("one-byte", b"x".to_vec()),
        ("text", text(400_000, 1)),
        ("columns", generate_kind(Kind::Column, 600_000, 2)),
        ("mixed", generate_kind(Kind::Mixed, 300_000, 3)),
        ("random", random(100_000, 4)),
        ("runs", generate_kind(Kind::Runs, 500_000, 5)),
    ]
}

/// The command-line options of each corpus file.
const OPTIONS: &[&[&str]] = &[
    &["-1"],
    &["-3"],
    &["-19"],
    &["--ultra", "-22"],
    &["--fast=5"],
    &["--long=27"],
    &["-T2", "-B1048576"],
    &["--no-check"],
    &["--target-compressed-block-size=2048"],
    &["--rsyncable"],
];

fn write(dir: &Path, name: &str, data: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

/// Decode `f` every way (streaming with the page-sized reads only: the
/// files are large) and require `original`.
#[track_caller]
fn check(f: &[u8], dicts: &[&[u8]], original: &[u8], what: &str) {
    let ways = Ways {
        dicts,
        read_sizes: &[4096],
        ..Ways::default()
    };
    let r = decode_every_way(f, &ways, what);
    match r {
        Ok(v) => assert_same(&v, original, what),
        Err(e) => panic!("{what}: lzkit rejects a file made by the zstd command: {e}"),
    }
}

#[test]
fn zstd_command_corpus() {
    if !zstd_ref::cli_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    let mut all_original = Vec::new();
    for (name, data) in originals() {
        let src = write(dir.path(), name, &data);
        for opts in OPTIONS {
            let mut args: Vec<&std::ffi::OsStr> = opts.iter().map(|o| o.as_ref()).collect();
            args.extend(["-c".as_ref(), src.as_os_str()]);
            let f = zstd_ref::cli(&args, None);
            check(&f, &[], &data, &format!("{name}, zstd {}", opts.join(" ")));
            if opts[0] == "-19" {
                all.extend_from_slice(&f);
                all_original.extend_from_slice(&data);
            }
        }
        // From a pipe: a streaming frame without a content size.
        let f = zstd_ref::cli(&["-3", "-c"], Some(&data));
        check(&f, &[], &data, &format!("{name}, zstd -3 from a pipe"));
    }
    // The -19 files, concatenated (as `cat a.zst b.zst`).
    check(&all, &[], &all_original, "concatenated files");
}

/// `--long=27` on a file whose repeat lies 8 MiB back, beyond the
/// default windows: decodes with the default streaming limit (2^27).
#[test]
fn zstd_command_long_window() {
    if !zstd_ref::cli_available() {
        return;
    }
    let first = random(2 << 20, 10);
    let mut data = first.clone();
    data.extend(generate_kind(Kind::Runs, 8 << 20, 11));
    data.extend(&first);
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "long", &data);
    for level in ["-1", "-3"] {
        let f = zstd_ref::cli(
            &[
                "--long=27".as_ref(),
                level.as_ref(),
                "-c".as_ref(),
                src.as_os_str(),
            ],
            None,
        );
        assert!(
            f.len() < 3 << 20,
            "--long=27 {level}: the repeat was not found"
        );
        check(&f, &[], &data, &format!("--long=27 {level}"));
    }
}

/// `-D` with a dictionary trained by `zstd --train` on generated samples
/// (text and column records), at several levels; the dictionary's ID is
/// in each frame, and decoding without it is an error.
#[test]
fn zstd_command_dictionary() {
    if !zstd_ref::cli_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let samples = dir.path().join("samples");
    std::fs::create_dir(&samples).unwrap();
    let mut paths = Vec::new();
    for i in 0..400u64 {
        let data = if i.is_multiple_of(2) {
            text(600, 100 + i)
        } else {
            generate_kind(Kind::Column, 400, 100 + i)
        };
        paths.push(write(&samples, &format!("s{i}"), &data));
    }
    let dict_path = dir.path().join("dict");
    let mut args: Vec<&std::ffi::OsStr> = vec!["--train".as_ref(), "--maxdict=16384".as_ref()];
    args.extend(paths.iter().map(|p| p.as_os_str()));
    args.extend(["-o".as_ref(), dict_path.as_os_str()]);
    zstd_ref::cli(&args, None);
    let dict = std::fs::read(&dict_path).unwrap();
    let id = Dictionary::new(&dict)
        .expect("a zstd-format dictionary")
        .id();
    assert_ne!(id, 0);

    // Data like the samples (some of them verbatim).
    let mut data = Vec::new();
    for i in 0..200u64 {
        data.extend(if i.is_multiple_of(3) {
            text(600, 100 + 2 * i)
        } else {
            generate_kind(Kind::Column, 400, 101 + 2 * i)
        });
    }
    let src = write(dir.path(), "data", &data);
    let small = write(dir.path(), "small", &data[..700]);
    for level in ["-1", "-3", "-19", "--fast=3"] {
        for (what, input, original) in [("data", &src, &data[..]), ("small", &small, &data[..700])]
        {
            let f = zstd_ref::cli(
                &[
                    "-D".as_ref(),
                    dict_path.as_os_str(),
                    level.as_ref(),
                    "-c".as_ref(),
                    input.as_os_str(),
                ],
                None,
            );
            let name = format!("-D dict {level}, {what}");
            check(&f, &[&dict], original, &name);
            assert!(
                zstd::decompress(&f).is_err(),
                "{name}: decoded without its dictionary"
            );
            let r = Decoder::new()
                .with_dictionary(Dictionary::new(&dict).unwrap())
                .decompress(&f)
                .unwrap();
            assert_same(&r, original, &name);
        }
    }
}
