//! The `lzkit` command on zstd input: files written by the reference `zstd`
//! command (levels, long windows, dictionaries, no checksum, several
//! frames, skippable frames) decode byte for byte with `-d`, `-t`, `-c` and
//! list with `--list`; corrupt and truncated files, and files that mix LZ4
//! and zstd frames, fail with one line naming the file and leave no output.
//!
//! Compression with `--format=zstd` writes frames that `zstd -d` and lzkit
//! decode, with the options the `zstd` command has.
//!
//! The tests print a note and skip themselves when `zstd` is not on PATH,
//! except in CI (`CI` set), where a missing `zstd` fails them.

use lzkit_testkit::zstd_ref;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;
use common::*;

fn zstd(dir: &Path, args: &[&str]) -> Output {
    Command::new("zstd")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run zstd")
}

/// Compress `data` with `zstd ARGS` into `name` (through a file `src`).
fn zstd_file(dir: &Path, name: &str, data: &[u8], args: &[&str]) -> Vec<u8> {
    write(dir, "src", data);
    let mut all = vec!["-q", "-f"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["src", "-o", name]);
    assert_success(&zstd(dir, &all), &format!("zstd {args:?}"));
    fs::remove_file(dir.join("src")).unwrap();
    read(dir, name)
}

/// Compress `data` with `zstd ARGS` from standard input: no content size
/// is known, so the frame keeps the window it was asked for.
fn zstd_stream(dir: &Path, data: &[u8], args: &[&str]) -> Vec<u8> {
    let mut all = vec!["-q", "-c"];
    all.extend_from_slice(args);
    let out = with_stdin("zstd", dir, &all, data);
    assert_success(&out, &format!("zstd {args:?} < data"));
    out.stdout
}

/// A skippable frame holding `content`.
fn skippable(magic_low: u8, content: &[u8]) -> Vec<u8> {
    let mut f = (0x184D_2A50u32 | u32::from(magic_low & 0xF))
        .to_le_bytes()
        .to_vec();
    f.extend_from_slice(&(content.len() as u32).to_le_bytes());
    f.extend_from_slice(content);
    f
}

/// `name` (holding `data` compressed) decodes to `data` with `-d` (to the
/// name without `.zst`), `-t` and `-c`, and from standard input.
#[track_caller]
fn check_decodes(dir: &Path, name: &str, data: &[u8], extra: &[&str], what: &str) {
    let out_name = name.strip_suffix(".zst").expect("a .zst name");
    let mut args = vec!["-d"];
    args.extend_from_slice(extra);
    args.push(name);
    assert_success(&lzkit(dir, &args), &format!("lzkit -d {what}"));
    assert_same(&read(dir, out_name), data, &format!("lzkit -d {what}"));
    fs::remove_file(dir.join(out_name)).unwrap();

    let mut args = vec!["-t"];
    args.extend_from_slice(extra);
    args.push(name);
    assert_success(&lzkit(dir, &args), &format!("lzkit -t {what}"));

    let mut args = vec!["-dc"];
    args.extend_from_slice(extra);
    args.push(name);
    let out = lzkit(dir, &args);
    assert_success(&out, &format!("lzkit -dc {what}"));
    assert_same(&out.stdout, data, &format!("lzkit -dc {what}"));

    let mut args = vec!["-dc"];
    args.extend_from_slice(extra);
    let out = with_stdin(BIN, dir, &args, &read(dir, name));
    assert_success(&out, &format!("lzkit -dc < {what}"));
    assert_same(&out.stdout, data, &format!("lzkit -dc < {what}"));
}

/// Exit status 1, exactly one line on standard error, naming `file`.
#[track_caller]
fn assert_one_line_failure(out: &Output, file: &str, what: &str) -> String {
    assert_failure_naming(out, file, what);
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{what}: one line expected: {err}");
    let line = err.trim_end().to_string();
    assert!(
        line.len() > format!("lzkit: {file}: ").len(),
        "{what}: no fault named: {line}"
    );
    line
}

#[test]
fn zstd_levels_decode() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let data = sample(3 << 20, 21);
    for (i, level) in ["-1", "-3", "-19", "--fast=3", "--ultra -22"]
        .iter()
        .enumerate()
    {
        let name = format!("l{i}.zst");
        let args: Vec<&str> = level.split(' ').collect();
        zstd_file(d.path(), &name, &data, &args);
        check_decodes(d.path(), &name, &data, &[], &format!("zstd {level}"));
    }
    // Empty input, and a file made from a pipe (no content size).
    zstd_file(d.path(), "empty.zst", b"", &[]);
    check_decodes(d.path(), "empty.zst", b"", &[], "empty");
    let piped = zstd_stream(d.path(), &data, &["-5"]);
    write(d.path(), "piped.zst", &piped);
    check_decodes(d.path(), "piped.zst", &data, &[], "zstd -5 from a pipe");
}

#[test]
fn zstd_long_windows_and_memory_limit() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let data = sample(1 << 20, 22);
    // From a pipe the frame keeps its 128 MiB window: within the default.
    write(
        d.path(),
        "w27.zst",
        &zstd_stream(d.path(), &data, &["--long=27"]),
    );
    check_decodes(d.path(), "w27.zst", &data, &[], "--long=27");
    check_decodes(
        d.path(),
        "w27.zst",
        &data,
        &["--memory=128MiB"],
        "--long=27",
    );
    let out = lzkit(d.path(), &["-d", "--memory=64MiB", "w27.zst"]);
    let line = assert_one_line_failure(&out, "w27.zst", "--long=27 with --memory=64MiB");
    assert!(
        line.contains("window of 134217728 bytes exceeds the memory limit")
            && line.contains("--memory=128MiB"),
        "{line}"
    );
    assert_names(d.path(), &["w27.zst"]);

    // A 256 MiB window needs --memory.
    write(
        d.path(),
        "w28.zst",
        &zstd_stream(d.path(), &data, &["--long=28"]),
    );
    let out = lzkit(d.path(), &["-d", "w28.zst"]);
    let line = assert_one_line_failure(&out, "w28.zst", "--long=28 by default");
    assert!(
        line.contains("268435456") && line.contains("--memory=256MiB"),
        "{line}"
    );
    assert_names(d.path(), &["w27.zst", "w28.zst"]);
    check_decodes(
        d.path(),
        "w28.zst",
        &data,
        &["--memory=256MiB"],
        "--long=28",
    );
    check_decodes(
        d.path(),
        "w28.zst",
        &data,
        &["--memory", "1GB"],
        "--long=28",
    );
}

#[test]
fn zstd_dictionaries() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let samples = d.path().join("samples");
    fs::create_dir(&samples).unwrap();
    for i in 0..300u64 {
        fs::write(samples.join(format!("s{i}")), sample(2000, 100 + i % 7)).unwrap();
    }
    let train = Command::new("zstd")
        .args([
            "-q",
            "--train",
            "-r",
            "samples",
            "--maxdict=16384",
            "-o",
            "dict",
        ])
        .current_dir(d.path())
        .output()
        .expect("zstd --train");
    assert_success(&train, "zstd --train");
    fs::remove_dir_all(&samples).unwrap();

    let data = sample(100_000, 103);
    zstd_file(d.path(), "f.zst", &data, &["-3", "-D", "dict"]);
    check_decodes(
        d.path(),
        "f.zst",
        &data,
        &["-D", "dict"],
        "trained dictionary",
    );

    // Without the dictionary: refused, naming the file, no output.
    let out = lzkit(d.path(), &["-d", "f.zst"]);
    let line = assert_one_line_failure(&out, "f.zst", "no dictionary");
    assert!(line.contains("-D"), "{line}");
    assert_names(d.path(), &["dict", "f.zst"]);

    // A raw-content dictionary (any file that is not a zstd dictionary).
    write(d.path(), "raw", &sample(50_000, 103));
    zstd_file(d.path(), "r.zst", &data, &["-19", "-D", "raw"]);
    check_decodes(d.path(), "r.zst", &data, &["-D", "raw"], "raw dictionary");
}

#[test]
fn zstd_frames_without_checksum_concatenated_and_skippable() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let a = sample(300_000, 24);
    let b = sample(200_000, 25);
    let fa = zstd_file(d.path(), "a.zst", &a, &["--no-check"]);
    check_decodes(d.path(), "a.zst", &a, &[], "--no-check");
    let fb = zstd_file(d.path(), "b.zst", &b, &["-9"]);
    let expected = [a.clone(), b.clone()].concat();

    write(d.path(), "ab.zst", &[fa.clone(), fb.clone()].concat());
    check_decodes(d.path(), "ab.zst", &expected, &[], "two frames");

    let with_skips = [
        skippable(0, b"index"),
        fa.clone(),
        skippable(15, &[0u8; 1000]),
        fb.clone(),
        skippable(3, b""),
    ]
    .concat();
    write(d.path(), "skip.zst", &with_skips);
    check_decodes(d.path(), "skip.zst", &expected, &[], "skippable frames");
    let theirs = zstd(d.path(), &["-dc", "skip.zst"]);
    assert_success(&theirs, "zstd -dc skip.zst");
    assert_same(&theirs.stdout, &expected, "zstd on skip.zst");

    // --list: one line per file after zstd's column names.
    let out = lzkit(d.path(), &["--list", "a.zst", "skip.zst"]);
    assert_success(&out, "--list");
    let text = stdout_text(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].contains("Frames") && lines[0].contains("Skips"),
        "{text}"
    );
    assert!(
        lines[1].ends_with("a.zst") && lines[1].contains("None"),
        "{text}"
    );
    let cols: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(&cols[..2], &["2", "3"], "{text}");
    assert!(lines[2].contains("Mixed"), "{text}");
    // -v: one line per frame.
    let out = lzkit(d.path(), &["--list", "-v", "skip.zst"]);
    assert_success(&out, "--list -v");
    let text = stdout_text(&out);
    assert!(text.contains("2 zstd frames, 3 skippable frames"), "{text}");
    assert!(
        text.contains("XXH64") && text.contains("Skippable"),
        "{text}"
    );
}

#[test]
fn corrupt_and_truncated_zstd_files_fail_cleanly() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let data = sample(400_000, 26);
    let good = zstd_file(d.path(), "good.zst", &data, &["-3"]);
    fs::remove_file(d.path().join("good.zst")).unwrap();
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for cut in [5, 12, good.len() / 2, good.len() - 4, good.len() - 1] {
        cases.push((format!("truncated at {cut}"), good[..cut].to_vec()));
    }
    for at in [6, good.len() / 3, good.len() / 2, good.len() - 2] {
        let mut bad = good.clone();
        bad[at] ^= 0x55;
        cases.push((format!("byte {at} changed"), bad));
    }
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"garbage after the frame");
    cases.push(("garbage after the frame".into(), trailing));

    for (what, bytes) in &cases {
        write(d.path(), "bad.zst", bytes);
        let out = lzkit(d.path(), &["-d", "bad.zst"]);
        assert_one_line_failure(&out, "bad.zst", what);
        assert_names(d.path(), &["bad.zst"]);
        let out = lzkit(d.path(), &["-t", "bad.zst"]);
        assert_one_line_failure(&out, "bad.zst", &format!("-t, {what}"));
        let out = lzkit(d.path(), &["-d", "-o", "named", "bad.zst"]);
        assert_one_line_failure(&out, "bad.zst", &format!("-o, {what}"));
        assert_names(d.path(), &["bad.zst"]);
        let out = lzkit(d.path(), &["-dc", "bad.zst"]);
        assert_eq!(out.status.code(), Some(1), "-dc, {what}");
    }
}

#[test]
fn mixed_lz4_and_zstd_frames_are_refused() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let data = sample(100_000, 27);
    let z = zstd_file(d.path(), "z.zst", &data, &[]);
    write(d.path(), "f", &data);
    assert_success(&lzkit(d.path(), &["f"]), "compress");
    fs::remove_file(d.path().join("f")).unwrap();
    let l = read(d.path(), "f.lz4");
    for (name, bytes) in [
        ("zl.zst", [z.clone(), l.clone()].concat()),
        ("lz.lz4", [l.clone(), z.clone()].concat()),
        (
            "slz.lz4",
            [skippable(1, b"x"), l.clone(), z.clone()].concat(),
        ),
    ] {
        write(d.path(), name, &bytes);
        let out = lzkit(d.path(), &["-d", name]);
        let line = assert_one_line_failure(&out, name, "mixed frames");
        assert!(line.contains("mixed codecs"), "{line}");
        let out = lzkit(d.path(), &["--list", name]);
        let line = assert_one_line_failure(&out, name, "--list of mixed frames");
        assert!(line.contains("mixed codecs"), "{line}");
        fs::remove_file(d.path().join(name)).unwrap();
    }
    assert_names(d.path(), &["f.lz4", "z.zst"]);
}

#[test]
fn zstd_told_by_magic_number_not_name() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let data = sample(50_000, 28);
    let z = zstd_file(d.path(), "z.zst", &data, &[]);
    // Named .lz4, or with no known suffix: still zstd.
    write(d.path(), "x.lz4", &z);
    assert_success(&lzkit(d.path(), &["-d", "x.lz4"]), "zstd named .lz4");
    assert_same(&read(d.path(), "x"), &data, "zstd named .lz4");
    write(d.path(), "data.bin", &z);
    let out = lzkit(d.path(), &["-d", "data.bin"]);
    assert_failure_naming(&out, "data.bin", "no suffix to strip");
    let out = lzkit(d.path(), &["-dc", "data.bin"]);
    assert_success(&out, "-dc data.bin");
    assert_same(&out.stdout, &data, "-dc data.bin");
    // -dcf decodes zstd and passes anything else through.
    let out = lzkit(d.path(), &["-dcf", "z.zst", "x"]);
    assert_success(&out, "-dcf");
    assert_same(&out.stdout, &[data.clone(), data.clone()].concat(), "-dcf");
    // -d -r takes .zst files too.
    fs::create_dir(d.path().join("dir")).unwrap();
    write(&d.path().join("dir"), "in.zst", &z);
    assert_success(&lzkit(d.path(), &["-d", "-r", "dir"]), "-d -r");
    assert_same(&read(&d.path().join("dir"), "in"), &data, "-d -r");
}

/// `zstd -lv` of `name`: its "Key: value" lines.
fn zstd_list(dir: &Path, name: &str) -> String {
    let out = zstd(dir, &["-lv", name]);
    assert_success(&out, &format!("zstd -lv {name}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn zstd_compression_is_read_by_zstd_and_lzkit() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let data = sample(3 << 20, 31);
    write(d.path(), "f", &data);
    for (i, args) in [
        &["--zstd"][..],
        &["--format=zstd", "-1"],
        &["--zstd", "-19", "-T2"],
        &["--zstd", "--ultra", "-22", "-T1"],
        &["--zstd", "--fast=4"],
        &["--format", "zstd", "--long=24", "-T2"],
        &["--zstd", "--no-check", "--no-content-size"],
    ]
    .iter()
    .enumerate()
    {
        let name = format!("o{i}.zst");
        let mut all = args.to_vec();
        all.extend_from_slice(&["f", "-o", &name]);
        assert_success(&lzkit(d.path(), &all), &format!("lzkit {args:?}"));
        let out = zstd(d.path(), &["-dc", &name]);
        assert_success(&out, &format!("zstd -dc after lzkit {args:?}"));
        assert_same(
            &out.stdout,
            &data,
            &format!("zstd -dc after lzkit {args:?}"),
        );
        let listing = zstd_list(d.path(), &name);
        let plain = args.contains(&"--no-check");
        assert_eq!(
            listing.contains("Check: XXH64"),
            !plain,
            "{args:?}: {listing}"
        );
        assert_eq!(
            listing.contains(&format!("Decompressed Size: 3.00 MiB ({} B)", data.len())),
            !plain,
            "{args:?}: {listing}"
        );
        check_decodes(d.path(), &name, &data, &[], &format!("lzkit {args:?}"));
    }
    // Levels order the sizes; --ultra -22 without --ultra is 19, with a warning.
    let size = |name: &str| fs::metadata(d.path().join(name)).unwrap().len();
    assert!(size("o4.zst") > size("o1.zst") && size("o1.zst") > size("o2.zst"));
    let out = lzkit(d.path(), &["--zstd", "-22", "-T1", "-c", "f"]);
    assert_success(&out, "-22 without --ultra");
    assert!(stderr(&out).contains("--ultra"), "{}", stderr(&out));
    let at19 = lzkit(d.path(), &["--zstd", "-19", "-T1", "-c", "f"]);
    assert_eq!(out.stdout, at19.stdout, "-22 without --ultra is -19");
}

#[test]
fn zstd_compression_names_pipes_and_dictionaries() {
    if !zstd_ref::cli_available() {
        return;
    }
    let d = tmp();
    let data = sample(200_000, 32);
    write(d.path(), "f", &data);
    // The default output name, and the summary line.
    let out = lzkit(d.path(), &["--zstd", "f"]);
    assert_success(&out, "lzkit --zstd f");
    assert!(stderr(&out).contains("(f -> f.zst)"), "{}", stderr(&out));
    // No overwrite without -f.
    let again = lzkit(d.path(), &["--zstd", "f"]);
    assert_eq!(again.status.code(), Some(1), "existing f.zst refused");
    fs::remove_file(d.path().join("f")).unwrap();
    check_decodes(d.path(), "f.zst", &data, &[], "f.zst");
    write(d.path(), "f", &data);
    // From a pipe: no content size, still decodable by both.
    let out = with_stdin(BIN, d.path(), &["--zstd", "-5"], &data);
    assert_success(&out, "lzkit --zstd < data");
    write(d.path(), "p.zst", &out.stdout);
    assert!(!zstd_list(d.path(), "p.zst").contains("Decompressed Size: 195"));
    check_decodes(d.path(), "p.zst", &data, &[], "from a pipe");
    // A raw-content dictionary: needed by zstd -d and by lzkit -d.
    write(d.path(), "dict", &sample(100_000, 33));
    let mut both = sample(100_000, 33);
    both.extend_from_slice(&data[..50_000]);
    write(d.path(), "g", &both);
    assert_success(
        &lzkit(d.path(), &["--zstd", "-D", "dict", "g", "-o", "g.zst"]),
        "--zstd -D",
    );
    let plain = lzkit(d.path(), &["--zstd", "-c", "g"]);
    assert!(
        (fs::metadata(d.path().join("g.zst")).unwrap().len() as usize) < plain.stdout.len() / 2
    );
    let out = zstd(d.path(), &["-D", "dict", "-dc", "g.zst"]);
    assert_same(&out.stdout, &both, "zstd -D dict -d");
    fs::remove_file(d.path().join("g")).unwrap();
    check_decodes(
        d.path(),
        "g.zst",
        &both,
        &["-D", "dict"],
        "lzkit -d -D dict",
    );
    // The legacy format is LZ4's.
    let out = lzkit(d.path(), &["--zstd", "-l", "-c", "f"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("legacy"), "{}", stderr(&out));
}

#[test]
fn options_of_the_other_format_are_refused_and_long_decodes() {
    let d = tmp();
    let data = sample(300_000, 34);
    write(d.path(), "f", &data);
    for (args, named) in [
        (&["--zstd", "-BD", "-c", "f"][..], "-B"),
        (&["--zstd", "-B5", "-c", "f"], "-B"),
        (&["--zstd", "-BX", "-c", "f"], "-B"),
        (&["--long", "-c", "f"], "--long"),
        (&["--ultra", "-22", "-c", "f"], "--ultra"),
        (
            &["recompress", "--to", "lz4", "--long=24", "-c", "f"],
            "--long",
        ),
    ] {
        let out = lzkit(d.path(), args);
        assert_one_line_failure(&out, named, &format!("{args:?}"));
    }
    // From a pipe, --long=30 keeps its 1 GiB window: refused by default,
    // decoded with zstd's -d --long=30 (or --memory).
    let piped = with_stdin(BIN, d.path(), &["--zstd", "--long=30"], &data);
    assert_success(&piped, "--zstd --long=30 < data");
    write(d.path(), "big.zst", &piped.stdout);
    let refused = lzkit(d.path(), &["-dc", "big.zst"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let out = lzkit(d.path(), &["-dc", "--long=30", "big.zst"]);
    assert_success(&out, "-dc --long=30");
    assert_same(&out.stdout, &data, "-dc --long=30");
}
