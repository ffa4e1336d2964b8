//! `lzkit recompress`: files written by the reference commands (`lz4`,
//! `zstd`, `gzip`, `xz`) recompressed to LZ4 and zstd at several levels
//! decode with the reference commands to the original bytes; output names,
//! pipes, `-r`, `--rm` and `--verify`; bad input in the middle of a stream
//! fails with one line and leaves no output; the input is never replaced.
//!
//! Tests skip a reference command missing from PATH, except in CI (`CI`
//! set), where a missing one fails them.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

mod common;
use common::*;

/// Run `cmd args` in `dir`, standard input empty.
fn run(cmd: &str, dir: &Path, args: &[&str]) -> Output {
    Command::new(cmd)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {cmd}: {e}"))
}

/// Whether all of `lz4`, `zstd`, `gzip` and `xz` run.
fn references() -> bool {
    static LZ4: OnceLock<bool> = OnceLock::new();
    static ZSTD: OnceLock<bool> = OnceLock::new();
    static GZIP: OnceLock<bool> = OnceLock::new();
    static XZ: OnceLock<bool> = OnceLock::new();
    let have = |cmd: &str, cache: &OnceLock<bool>| lzkit_testkit::command_available(cmd, cache);
    have("lz4", &LZ4) && have("zstd", &ZSTD) && have("gzip", &GZIP) && have("xz", &XZ)
}

/// `data` compressed by the reference command of `ext` into `dir/src.EXT`.
fn reference_file(dir: &Path, ext: &str, data: &[u8]) -> String {
    write(dir, "src", data);
    let name = format!("src.{ext}");
    let out = match ext {
        "lz4" => run("lz4", dir, &["-q", "-f", "-9", "src", &name]),
        "zst" => run("zstd", dir, &["-q", "-f", "-3", "src", "-o", &name]),
        "gz" => run("gzip", dir, &["-f", "-k", "-6", "src"]),
        "xz" => run("xz", dir, &["-f", "-k", "-3", "src"]),
        _ => unreachable!(),
    };
    assert_success(&out, &format!("reference {ext}"));
    fs::remove_file(dir.join("src")).unwrap();
    name
}

/// What the reference command decodes `name` to.
fn reference_decode(dir: &Path, name: &str) -> Vec<u8> {
    let out = if name.ends_with(".lz4") {
        run("lz4", dir, &["-dc", name])
    } else {
        run("zstd", dir, &["-dc", name])
    };
    assert_success(&out, &format!("reference decode of {name}"));
    out.stdout
}

#[test]
fn every_reference_format_to_lz4_and_zstd() {
    if !references() {
        return;
    }
    let d = tmp();
    let data = sample(3 << 20, 41);
    for ext in ["lz4", "zst", "gz", "xz"] {
        let input = reference_file(d.path(), ext, &data);
        for args in [
            &["--to", "lz4"][..],
            &["--to", "lz4", "-9", "-BD", "-BX", "-T2"],
            &["--to", "zstd", "--verify"],
            &["--to=zstd", "-19", "-T2"],
        ] {
            let out_name = if args.iter().any(|a| a.contains("zstd")) {
                "out.zst"
            } else {
                "out.lz4"
            };
            let mut all = vec!["recompress"];
            all.extend_from_slice(args);
            all.extend_from_slice(&[&input, "-o", out_name, "-f"]);
            let what = format!("{input} with {args:?}");
            assert_success(&lzkit(d.path(), &all), &what);
            assert_same(&reference_decode(d.path(), out_name), &data, &what);
            assert!(d.path().join(&input).exists(), "{what}: input kept");
        }
    }
}

#[test]
fn output_names_pipes_and_directories() {
    if !references() {
        return;
    }
    let d = tmp();
    let data = sample(300_000, 42);
    let gz = reference_file(d.path(), "gz", &data);
    // x.gz -> x.zst, the summary line.
    let out = lzkit(d.path(), &["recompress", "--to", "zstd", &gz]);
    assert_success(&out, "recompress src.gz");
    assert!(
        stderr(&out).contains("(src.gz -> src.zst)"),
        "{}",
        stderr(&out)
    );
    assert_same(&reference_decode(d.path(), "src.zst"), &data, "src.zst");
    // An existing output is not replaced without -f.
    let again = lzkit(d.path(), &["recompress", "--to", "zstd", &gz]);
    assert_eq!(again.status.code(), Some(1), "src.zst exists");
    // The input itself is never the output.
    let same = lzkit(d.path(), &["recompress", "--to", "zstd", "src.zst"]);
    assert_failure_naming(&same, "src.zst", "output name equal to the input");
    assert!(stderr(&same).contains("-o"), "{}", stderr(&same));
    assert_same(
        &reference_decode(d.path(), "src.zst"),
        &data,
        "input intact",
    );
    // .tgz keeps its .tar.
    fs::copy(d.path().join(&gz), d.path().join("a.tgz")).unwrap();
    assert_success(
        &lzkit(d.path(), &["recompress", "--to", "lz4", "a.tgz"]),
        "a.tgz",
    );
    assert_same(&reference_decode(d.path(), "a.tar.lz4"), &data, "a.tar.lz4");
    // A pipe in, a pipe out.
    let piped = with_stdin(
        BIN,
        d.path(),
        &["recompress", "--to", "lz4", "-9"],
        &read(d.path(), &gz),
    );
    assert_success(&piped, "recompress from a pipe");
    write(d.path(), "piped.lz4", &piped.stdout);
    assert_same(&reference_decode(d.path(), "piped.lz4"), &data, "piped");
    // A directory: compressed files are recompressed, others skipped.
    let sub = d.path().join("dir");
    fs::create_dir(&sub).unwrap();
    fs::copy(d.path().join(&gz), sub.join("one.gz")).unwrap();
    fs::copy(d.path().join("src.zst"), sub.join("two.zst")).unwrap();
    write(&sub, "plain.txt", b"not compressed");
    fs::copy(d.path().join("a.tar.lz4"), sub.join("three.lz4")).unwrap();
    let out = lzkit(
        d.path(),
        &["recompress", "--to", "lz4", "-r", "--rm", "dir"],
    );
    assert_success(&out, "recompress -r --rm (three.lz4 skipped)");
    assert_names(&sub, &["one.lz4", "two.lz4", "three.lz4", "plain.txt"]);
    assert_same(&reference_decode(&sub, "one.lz4"), &data, "one.lz4");
}

#[test]
fn bad_input_leaves_no_output_and_keeps_the_source() {
    if !references() {
        return;
    }
    let d = tmp();
    let data = sample(2 << 20, 43);
    for ext in ["lz4", "zst", "gz", "xz"] {
        let input = reference_file(d.path(), ext, &data);
        let mut bytes = read(d.path(), &input);
        let mid = bytes.len() / 2;
        for b in &mut bytes[mid..mid + 64] {
            *b ^= 0x5A;
        }
        let bad = format!("bad.{ext}");
        write(d.path(), &bad, &bytes);
        fs::remove_file(d.path().join(&input)).unwrap();
        let out = lzkit(d.path(), &["recompress", "--to", "zstd", "--rm", &bad]);
        assert_failure_naming(&out, &bad, &format!("corrupt {ext}"));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
        assert_names(d.path(), &[&bad]);
        fs::remove_file(d.path().join(&bad)).unwrap();
    }
    // Several small files go several at a time: a bad one among good ones
    // fails alone.
    let sub = d.path().join("many");
    fs::create_dir(&sub).unwrap();
    for i in 0..6 {
        let name = reference_file(&sub, "gz", &data[i * 1000..]);
        fs::rename(sub.join(name), sub.join(format!("f{i}.gz"))).unwrap();
    }
    let mut bad = read(&sub, "f3.gz");
    let mid = bad.len() / 2;
    bad[mid] ^= 0xFF;
    write(&sub, "f3.gz", &bad);
    let out = lzkit(
        d.path(),
        &["recompress", "--to", "zstd", "-r", "-T3", "many"],
    );
    assert_failure_naming(&out, "many/f3.gz", "one bad file among six");
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    for i in [0, 1, 2, 4, 5] {
        let name = format!("f{i}.zst");
        assert_same(&reference_decode(&sub, &name), &data[i * 1000..], &name);
    }
    assert!(!sub.join("f3.zst").exists(), "no output for the bad file");
    fs::remove_dir_all(&sub).unwrap();
    write(d.path(), "text", b"plain text, not compressed at all");
    let out = lzkit(
        d.path(),
        &["recompress", "--to", "lz4", "text", "-o", "t.lz4"],
    );
    assert_failure_naming(&out, "text", "not compressed");
    assert!(
        stderr(&out).contains("not a compressed format"),
        "{}",
        stderr(&out)
    );
    assert_names(d.path(), &["text"]);
    // Usage errors.
    for args in [
        &["recompress", "text"][..],
        &["recompress", "--to", "gzip", "text"],
    ] {
        let out = lzkit(d.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
}
