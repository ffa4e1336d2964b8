//! Integration tests of the `lzkit` command: round trips, every option,
//! interoperability with the reference `lz4` command in both directions,
//! streaming, and error behaviour (exit status, message, no partial output).
//!
//! Test data is generated from fixed seeds. The interoperability checks
//! print a note and skip themselves when `lz4` is not on PATH, except in CI
//! (`CI` set), where a missing `lz4` fails them.

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

use lzkit_testkit::lz4_available;
use tempfile::TempDir;

mod common;
use common::*;

// ------------------------------------------------------------ round trips

#[test]
fn round_trip_of_various_sizes() {
    // Empty, tiny, just over 64 KiB, and over one 4 MiB block.
    for (i, len) in [0usize, 1, 100, 70_000, (5 << 20) + 123]
        .into_iter()
        .enumerate()
    {
        let d = tmp();
        let data = sample(len, 10 + i as u64);
        write(d.path(), "f", &data);
        assert_success(&lzkit(d.path(), &["f"]), "compress");
        assert_names(d.path(), &["f", "f.lz4"]);
        fs::rename(d.path().join("f"), d.path().join("orig")).unwrap();
        assert_success(&lzkit(d.path(), &["-d", "f.lz4"]), "decompress");
        assert_same(
            &read(d.path(), "f"),
            &data,
            &format!("round trip of {len} bytes"),
        );
        assert_names(d.path(), &["f", "f.lz4", "orig"]);
        if len > 1000 {
            assert!(fs::metadata(d.path().join("f.lz4")).unwrap().len() < len as u64);
        }
    }
}

#[test]
fn stdin_stdout_streaming() {
    let d = tmp();
    let data = sample(3 << 20, 2);
    let c = with_stdin(BIN, d.path(), &["-c"], &data);
    assert_success(&c, "lzkit -c < in");
    assert!(c.stdout.len() < data.len());
    let back = with_stdin(BIN, d.path(), &["-d", "-c"], &c.stdout);
    assert_success(&back, "lzkit -d -c < in.lz4");
    assert_same(&back.stdout, &data, "stdin/stdout round trip");

    // Pure pipe mode: no file names and no -c.
    let c2 = with_stdin(BIN, d.path(), &[], &data);
    assert_success(&c2, "lzkit < in");
    let back2 = with_stdin(BIN, d.path(), &["-d"], &c2.stdout);
    assert_success(&back2, "lzkit -d < in");
    assert_same(&back2.stdout, &data, "pipe mode round trip");

    // `-` as input, a file as output.
    let out = with_stdin(BIN, d.path(), &["-", "piped.lz4"], &data);
    assert_success(&out, "lzkit - piped.lz4");
    let back3 = lzkit(d.path(), &["-d", "-c", "piped.lz4"]);
    assert_success(&back3, "lzkit -d -c piped.lz4");
    assert_same(&back3.stdout, &data, "stdin to file");
    assert_names(d.path(), &["piped.lz4"]);

    if lz4_available() {
        let ref_out = with_stdin("lz4", d.path(), &["-d", "-c"], &c.stdout);
        assert_success(&ref_out, "lz4 -d of lzkit's stdout");
        assert_same(&ref_out.stdout, &data, "lz4 decodes lzkit stream");
    }
}

#[test]
fn explicit_output_and_suffix_rules() {
    let d = tmp();
    let data = sample(200_000, 3);
    write(d.path(), "f", &data);
    assert_success(&lzkit(d.path(), &["f", "out.bin"]), "lzkit f out.bin");
    // -d needs a .lz4 suffix to choose an output name.
    let out = lzkit(d.path(), &["-d", "out.bin"]);
    assert_failure_naming(&out, "out.bin", "-d on a name without .lz4");
    assert_names(d.path(), &["f", "out.bin"]);
    assert_success(
        &lzkit(d.path(), &["-d", "out.bin", "restored"]),
        "-d IN OUT",
    );
    assert_same(&read(d.path(), "restored"), &data, "explicit output");
    let out = lzkit(d.path(), &["-d", "-c", "out.bin"]);
    assert_success(&out, "-d -c");
    assert_same(&out.stdout, &data, "-d -c without suffix");

    // A single .lz4 input is decompressed without -d, as lz4 does.
    fs::rename(d.path().join("out.bin"), d.path().join("g.lz4")).unwrap();
    assert_success(&lzkit(d.path(), &["g.lz4"]), "auto-decompress");
    assert_same(&read(d.path(), "g"), &data, "auto-decompressed");
    // -z forces compression of a .lz4 name.
    assert_success(&lzkit(d.path(), &["-z", "g.lz4"]), "-z");
    assert!(d.path().join("g.lz4.lz4").exists());
    // Output name `null` discards.
    assert_success(&lzkit(d.path(), &["-d", "g.lz4", "null"]), "output null");
    assert!(!d.path().join("null").exists());
}

#[test]
fn multiple_files_each_to_its_own_output() {
    let d = tmp();
    let datas: Vec<Vec<u8>> = (0..3)
        .map(|i| sample(50_000 + i * 1000, 20 + i as u64))
        .collect();
    for (i, data) in datas.iter().enumerate() {
        write(d.path(), &format!("f{i}"), data);
    }
    assert_success(&lzkit(d.path(), &["-m", "f0", "f1", "f2"]), "-m compress");
    for i in 0..3 {
        fs::remove_file(d.path().join(format!("f{i}"))).unwrap();
    }
    assert_success(
        &lzkit(d.path(), &["-d", "-m", "f0.lz4", "f1.lz4", "f2.lz4"]),
        "-m -d",
    );
    for (i, data) in datas.iter().enumerate() {
        assert_same(&read(d.path(), &format!("f{i}")), data, "-m round trip");
    }

    // -d -c of several files concatenates their contents.
    let out = lzkit(d.path(), &["-dc", "f0.lz4", "f1.lz4"]);
    assert_success(&out, "-dc of two files");
    assert_same(
        &out.stdout,
        &[datas[0].clone(), datas[1].clone()].concat(),
        "-dc concat",
    );
}

#[test]
fn multiple_continues_after_a_failure() {
    let d = tmp();
    write(d.path(), "a", &sample(1000, 4));
    write(d.path(), "b", &sample(1000, 5));
    let out = lzkit(d.path(), &["-m", "a", "missing", "b"]);
    assert_failure_naming(&out, "missing", "-m with a missing file");
    assert_names(d.path(), &["a", "a.lz4", "b", "b.lz4"]);
}

#[test]
fn rm_removes_the_source_only_after_success() {
    let d = tmp();
    let data = sample(300_000, 6);
    write(d.path(), "f", &data);
    assert_success(&lzkit(d.path(), &["--rm", "f"]), "--rm compress");
    assert_names(d.path(), &["f.lz4"]);
    assert_success(
        &lzkit(d.path(), &["-d", "--rm", "f.lz4"]),
        "--rm decompress",
    );
    assert_names(d.path(), &["f"]);
    assert_same(&read(d.path(), "f"), &data, "--rm round trip");

    // A failed decompression keeps its source.
    write(d.path(), "bad.lz4", b"this is not lz4 data at all");
    let out = lzkit(d.path(), &["-d", "--rm", "bad.lz4"]);
    assert_failure_naming(&out, "bad.lz4", "--rm on bad input");
    assert_names(d.path(), &["f", "bad.lz4"]);

    // -k after --rm keeps the source again.
    assert_success(&lzkit(d.path(), &["--rm", "-k", "f"]), "--rm -k");
    assert_names(d.path(), &["f", "f.lz4", "bad.lz4"]);
}

#[test]
fn test_mode_on_good_and_corrupt_files() {
    let d = tmp();
    let data = sample(500_000, 7);
    write(d.path(), "f", &data);
    assert_success(&lzkit(d.path(), &["f"]), "compress");
    let out = lzkit(d.path(), &["-t", "f.lz4"]);
    assert_success(&out, "-t good");
    assert!(out.stdout.is_empty(), "-t writes nothing to stdout");
    assert_names(d.path(), &["f", "f.lz4"]);

    let mut bad = read(d.path(), "f.lz4");
    let mid = bad.len() / 2;
    bad[mid] ^= 0x55;
    write(d.path(), "bad.lz4", &bad);
    let out = lzkit(d.path(), &["-t", "bad.lz4"]);
    assert_failure_naming(&out, "bad.lz4", "-t corrupt");
    // Several files: the good one passes, the status reports the bad one.
    let out = lzkit(d.path(), &["-t", "f.lz4", "bad.lz4"]);
    assert_failure_naming(&out, "bad.lz4", "-t good and corrupt");
    assert_names(d.path(), &["f", "f.lz4", "bad.lz4"]);
}

// ------------------------------------------------------------------ errors

/// Damaged versions of a valid compressed file, by name.
fn damaged_inputs(valid: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut flipped = valid.to_vec();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xFF;
    let mut bad_magic = valid.to_vec();
    bad_magic[0] ^= 0x01;
    let mut bad_header_checksum = valid.to_vec();
    bad_header_checksum[6] ^= 0x01; // FLG BD then HC at byte 6 (no optional fields)
    vec![
        ("flipped.lz4", flipped),
        ("truncated.lz4", valid[..valid.len() / 2].to_vec()),
        ("truncated_end.lz4", valid[..valid.len() - 3].to_vec()),
        ("header_only.lz4", valid[..5].to_vec()),
        (
            "foreign.lz4",
            b"#!/bin/sh\necho this is a shell script, not LZ4\n".repeat(50),
        ),
        ("bad_magic.lz4", bad_magic),
        ("bad_header_checksum.lz4", bad_header_checksum),
    ]
}

#[test]
fn corrupt_truncated_or_foreign_input_fails_cleanly() {
    let d = tmp();
    let data = sample(1 << 20, 8);
    write(d.path(), "src", &data);
    assert_success(&lzkit(d.path(), &["-B4", "src", "valid.lz4"]), "compress");
    let valid = read(d.path(), "valid.lz4");
    fs::remove_file(d.path().join("src")).unwrap();
    fs::remove_file(d.path().join("valid.lz4")).unwrap();

    for (name, bytes) in damaged_inputs(&valid) {
        write(d.path(), name, &bytes);
        let stem = name.trim_end_matches(".lz4");
        // Default output name, explicit output name, and test mode.
        for args in [
            vec!["-d", name],
            vec!["-d", name, "explicit.out"],
            vec!["-t", name],
        ] {
            let out = lzkit(d.path(), &args);
            assert_failure_naming(&out, name, &format!("lzkit {args:?}"));
            assert_eq!(
                stderr(&out).lines().count(),
                1,
                "one-line message: {}",
                stderr(&out)
            );
            assert_names(d.path(), &[name]);
        }
        assert!(!d.path().join(stem).exists());
        fs::remove_file(d.path().join(name)).unwrap();
    }
}

#[test]
fn missing_input_is_an_error() {
    let d = tmp();
    let out = lzkit(d.path(), &["nope"]);
    assert_failure_naming(&out, "nope", "missing input");
    let out = lzkit(d.path(), &["-d", "nope.lz4"]);
    assert_failure_naming(&out, "nope.lz4", "missing compressed input");
    assert_names(d.path(), &[]);
}

#[test]
fn missing_dictionary_is_an_error() {
    let d = tmp();
    write(d.path(), "f", b"data");
    let out = lzkit(d.path(), &["-D", "nodict", "f"]);
    assert_failure_naming(&out, "nodict", "missing dictionary");
    assert_names(d.path(), &["f"]);
}

#[test]
fn no_silent_overwrite_without_force() {
    let d = tmp();
    let data = sample(100_000, 9);
    write(d.path(), "f", &data);
    write(d.path(), "f.lz4", b"old content");
    let out = lzkit(d.path(), &["f"]);
    assert_failure_naming(&out, "f.lz4", "existing output");
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(read(d.path(), "f.lz4"), b"old content");
    assert_names(d.path(), &["f", "f.lz4"]);

    assert_success(&lzkit(d.path(), &["-f", "f"]), "-f overwrite");
    assert_ne!(read(d.path(), "f.lz4"), b"old content");

    // The same on decompression, including with an explicit output name.
    let out = lzkit(d.path(), &["-d", "f.lz4"]);
    assert_failure_naming(&out, "f", "existing decompressed output");
    assert_same(&read(d.path(), "f"), &data, "untouched");
    write(d.path(), "g", b"keep me");
    let out = lzkit(d.path(), &["-d", "f.lz4", "g"]);
    assert_failure_naming(&out, "g", "existing explicit output");
    assert_eq!(read(d.path(), "g"), b"keep me");
    assert_success(&lzkit(d.path(), &["-d", "-f", "f.lz4", "g"]), "-d -f");
    assert_same(&read(d.path(), "g"), &data, "-d -f overwrote");
    assert_names(d.path(), &["f", "f.lz4", "g"]);
}

#[test]
fn refuses_to_overwrite_its_own_input() {
    let d = tmp();
    write(d.path(), "f.lz4", b"not compressed");
    let out = lzkit(d.path(), &["-z", "-f", "f.lz4", "f.lz4"]);
    assert_failure_naming(&out, "f.lz4", "same input and output");
    assert_eq!(read(d.path(), "f.lz4"), b"not compressed");
    assert_names(d.path(), &["f.lz4"]);
}

#[cfg(unix)]
#[test]
fn output_gets_source_permissions_and_mtime() {
    use std::os::unix::fs::PermissionsExt;
    let d = tmp();
    let p = write(d.path(), "f", &sample(10_000, 11));
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(old)
        .unwrap();
    assert_success(&lzkit(d.path(), &["f"]), "compress");
    let meta = fs::metadata(d.path().join("f.lz4")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o640);
    assert_eq!(meta.modified().unwrap(), old);
}

#[test]
fn usage_errors_help_and_version() {
    let d = tmp();
    write(d.path(), "a", b"a");
    for args in [
        &["-x"][..],
        &["--nope"],
        &["-B9", "a"],
        &["a", "b", "c"],
        &["--fast=0"],
    ] {
        let out = lzkit(d.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("lzkit: "),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_names(d.path(), &["a"]);
    let help = lzkit(d.path(), &["-h"]);
    assert_success(&help, "-h");
    assert!(stdout_text(&help).contains("Usage"));
    let long = lzkit(d.path(), &["-H"]);
    assert!(stdout_text(&long).len() > stdout_text(&help).len());
    let version = lzkit(d.path(), &["-V"]);
    assert_success(&version, "-V");
    assert!(stdout_text(&version).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn verbose_summary_and_quiet() {
    let d = tmp();
    write(d.path(), "f", &sample(100_000, 12));
    let out = lzkit(d.path(), &["-v", "f"]);
    assert_success(&out, "-v");
    let err = stderr(&out);
    assert!(err.contains("Compressed 100000 bytes into "), "{err}");
    assert!(err.contains("==> "), "{err}");
    let out = lzkit(d.path(), &["-vd", "-c", "f.lz4"]);
    assert_success(&out, "-vd -c");
    assert!(stderr(&out).contains("100000 bytes"), "{}", stderr(&out));
    // Default: one summary line for a single file, as lz4; -q: silent;
    // -qq: silent on failure too.
    let out = lzkit(d.path(), &["-f", "f"]);
    assert!(
        stderr(&out).starts_with("Compressed 100000 bytes into "),
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    let out = lzkit(d.path(), &["-q", "-f", "f"]);
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    let out = lzkit(d.path(), &["-qq", "missing"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn level_from_environment() {
    let d = tmp();
    let data = sample(200_000, 13);
    write(d.path(), "f", &data);
    assert_success(
        &lzkit_env(d.path(), &["f"], "LZ4_CLEVEL", "9"),
        "LZ4_CLEVEL=9",
    );
    let out = lzkit_env(d.path(), &["-f", "f", "g.lz4"], "LZ4_CLEVEL", "high");
    assert_success(&out, "bad LZ4_CLEVEL still works");
    assert!(
        stderr(&out).contains("LZ4_CLEVEL"),
        "warning expected: {}",
        stderr(&out)
    );
    for name in ["f.lz4", "g.lz4"] {
        let back = lzkit(d.path(), &["-dc", name]);
        assert_success(&back, "decode");
        assert_same(&back.stdout, &data, name);
    }
}

#[cfg(unix)]
#[test]
fn invoked_as_lz4cat_or_unlz4() {
    let d = tmp();
    let data = sample(50_000, 14);
    write(d.path(), "f", &data);
    assert_success(&lzkit(d.path(), &["f"]), "compress");
    std::os::unix::fs::symlink(BIN, d.path().join("lz4cat")).unwrap();
    std::os::unix::fs::symlink(BIN, d.path().join("unlz4")).unwrap();
    let out = Command::new(d.path().join("lz4cat"))
        .arg("f.lz4")
        .current_dir(d.path())
        .output();
    let out = out.expect("run lz4cat");
    assert_success(&out, "lz4cat");
    assert_same(&out.stdout, &data, "lz4cat");
    let out = Command::new(d.path().join("unlz4"))
        .args(["f.lz4", "g"])
        .current_dir(d.path())
        .output()
        .expect("run unlz4");
    assert_success(&out, "unlz4");
    assert_same(&read(d.path(), "g"), &data, "unlz4");
}

// ------------------------------------------------------------------ --list

#[test]
fn list_reports_block_size_and_settings() {
    let d = tmp();
    let data = sample(300_000, 15);
    write(d.path(), "f", &data);
    assert_success(&lzkit(d.path(), &["-B4", "f", "b4.lz4"]), "-B4");
    assert_success(
        &lzkit(d.path(), &["-B5", "-BD", "-BX", "f", "b5.lz4"]),
        "-B5D",
    );
    assert_success(
        &lzkit(d.path(), &["--content-size", "f", "cs.lz4"]),
        "--content-size",
    );
    assert_success(&lzkit(d.path(), &["-l", "f", "legacy.lz4"]), "-l");

    let out = lzkit(
        d.path(),
        &["--list", "b4.lz4", "b5.lz4", "cs.lz4", "legacy.lz4"],
    );
    assert_success(&out, "--list");
    let text = stdout_text(&out);
    let line = |name: &str| -> String {
        text.lines()
            .find(|l| l.ends_with(name))
            .unwrap_or_else(|| panic!("{name}: {text}"))
            .into()
    };
    assert!(line("b4.lz4").contains("B4I"), "{text}");
    let b5 = line("b5.lz4");
    assert!(b5.contains("B5D") && b5.contains("content,block"), "{text}");
    // Content size stored: the uncompressed size and a ratio are shown.
    let cs = line("cs.lz4");
    assert!(
        // B6: the smallest block size that holds 300,000 bytes, as lz4 picks.
        cs.contains("B6I") && cs.contains("292.97 KiB") && cs.contains('%'),
        "{text}"
    );
    assert!(line("legacy.lz4").contains("LegacyFrame"), "{text}");

    let out = lzkit(d.path(), &["--list", "-v", "b4.lz4", "cs.lz4"]);
    assert_success(&out, "--list -v");
    let text = stdout_text(&out);
    assert!(
        text.contains("64 KiB") && text.contains("independent"),
        "{text}"
    );
    assert!(text.contains("300000"), "exact content size in -v: {text}");

    // Frames written by lz4 are described the same way.
    if lz4_available() {
        assert_success(
            &lz4(d.path(), &["-q", "-B4", "-BD", "-BX", "f", "ref.lz4"]),
            "lz4",
        );
        let out = lzkit(d.path(), &["--list", "ref.lz4"]);
        assert_success(&out, "--list of lz4 output");
        let text = stdout_text(&out);
        assert!(
            text.contains("B4D") && text.contains("content,block"),
            "{text}"
        );
    }

    // A foreign file is an error naming it; the others are still listed.
    write(d.path(), "x.lz4", b"plain text, definitely not lz4");
    let out = lzkit(d.path(), &["--list", "x.lz4", "b4.lz4"]);
    assert_failure_naming(&out, "x.lz4", "--list of a foreign file");
    assert!(stdout_text(&out).contains("b4.lz4"));
}

// --------------------------------------------------- options and interop

/// Files of one option test: the input data and the dictionary, if any.
struct Case {
    dir: TempDir,
    data: Vec<u8>,
    dict: bool,
}

impl Case {
    fn new(dict: bool) -> Case {
        let dir = tmp();
        let mut data = shared_data().to_vec();
        if dict {
            // The dictionary shares long stretches with the data, so a frame
            // compressed with it cannot be decoded without it.
            let dictionary = sample(100_000, 77);
            write(dir.path(), "dict", &dictionary);
            data = [
                &dictionary[60_000..],
                &data[..500_000],
                &dictionary[40_000..],
            ]
            .concat();
        }
        write(dir.path(), "data", &data);
        Case { dir, data, dict }
    }

    fn args<'a>(&self, base: &[&'a str]) -> Vec<&'a str> {
        let mut v = base.to_vec();
        if self.dict {
            v.extend(["-D", "dict"]);
        }
        v
    }

    #[track_caller]
    fn check_output(&self, name: &str, what: &str) {
        assert_same(&read(self.dir.path(), name), &self.data, what);
    }
}

/// Round trip `opts` through lzkit, then through lz4 in both directions.
fn check_options(opts: &[&str]) {
    let dict = opts.contains(&"-D");
    let opts: Vec<&str> = opts.iter().copied().filter(|o| *o != "-D").collect();
    let case = Case::new(dict);
    let p = case.dir.path();

    let mut compress = case.args(&opts);
    compress.extend(["data", "k.lz4"]);
    assert_success(&lzkit(p, &compress), &format!("lzkit {compress:?}"));
    let k_size = fs::metadata(p.join("k.lz4")).unwrap().len();
    assert!(
        k_size < case.data.len() as u64,
        "{opts:?}: output not smaller"
    );

    let decompress = case.args(&["-d", "k.lz4", "k.out"]);
    assert_success(&lzkit(p, &decompress), &format!("lzkit {decompress:?}"));
    case.check_output("k.out", &format!("lzkit round trip with {opts:?}"));
    let test = case.args(&["-t", "k.lz4"]);
    assert_success(&lzkit(p, &test), &format!("lzkit {test:?}"));

    if !lz4_available() {
        return;
    }
    // lzkit -> lz4
    let ref_decompress = case.args(&["-d", "-f", "k.lz4", "r.out"]);
    assert_success(&lz4(p, &ref_decompress), &format!("lz4 {ref_decompress:?}"));
    case.check_output("r.out", &format!("lz4 decodes lzkit output with {opts:?}"));

    // lz4 -> lzkit
    let mut ref_compress = case.args(&opts);
    ref_compress.extend(["-f", "data", "r.lz4"]);
    assert_success(&lz4(p, &ref_compress), &format!("lz4 {ref_compress:?}"));
    let decompress = case.args(&["-d", "r.lz4", "k2.out"]);
    assert_success(
        &lzkit(p, &decompress),
        &format!("lzkit {decompress:?} of lz4 output"),
    );
    case.check_output("k2.out", &format!("lzkit decodes lz4 output with {opts:?}"));
}

macro_rules! option_tests {
    ($($name:ident: [$($opt:expr),*];)*) => {$(
        #[test]
        fn $name() {
            check_options(&[$($opt),*]);
        }
    )*};
}

option_tests! {
    opt_default: [];
    opt_level_1: ["-1"];
    opt_level_9: ["-9"];
    opt_level_12: ["-12"];
    opt_best: ["--best"];
    opt_fast_3: ["--fast=3"];
    opt_fast: ["--fast"];
    opt_b4: ["-B4"];
    opt_b5: ["-B5"];
    opt_b6: ["-B6"];
    opt_b7: ["-B7"];
    opt_linked: ["-BD"];
    opt_linked_b4: ["-B4", "-BD"];
    opt_independent: ["-BI"];
    opt_block_checksum: ["-BX"];
    opt_no_frame_crc: ["--no-frame-crc"];
    opt_content_size: ["--content-size"];
    opt_legacy: ["-l"];
    opt_dict: ["-D"];
    opt_dict_linked_b4: ["-D", "-B4", "-BD"];
    opt_combined: ["-9", "-B5", "-BD", "-BX", "--content-size", "--no-frame-crc"];
    opt_aggregated: ["-9B4DX"];
}

#[test]
fn concatenated_and_skippable_frames() {
    let d = tmp();
    let a = sample(300_000, 16);
    let b = sample(100_000, 17);
    write(d.path(), "a", &a);
    write(d.path(), "b", &b);
    let expected = [a.clone(), b.clone()].concat();

    // lzkit -c of two files writes two frames back to back.
    let out = lzkit(d.path(), &["-c", "a", "b"]);
    assert_success(&out, "lzkit -c a b");
    write(d.path(), "kk.lz4", &out.stdout);
    let back = lzkit(d.path(), &["-dc", "kk.lz4"]);
    assert_success(&back, "decode lzkit concatenation");
    assert_same(&back.stdout, &expected, "lzkit concatenation");

    // A skippable frame between two frames is skipped.
    let fa = lzkit(d.path(), &["-c", "a"]).stdout;
    let fb = lzkit(d.path(), &["-c", "-B4", "-BD", "b"]).stdout;
    let mut skippable = 0x184D_2A53u32.to_le_bytes().to_vec();
    skippable.extend(7u32.to_le_bytes());
    skippable.extend(b"ignored");
    write(d.path(), "skip.lz4", &[fa, skippable, fb].concat());
    let back = lzkit(d.path(), &["-dc", "skip.lz4"]);
    assert_success(&back, "decode with skippable frame");
    assert_same(&back.stdout, &expected, "skippable frame");

    if !lz4_available() {
        return;
    }
    let ra = lz4(d.path(), &["-c", "a"]);
    let rb = lz4(d.path(), &["-c", "-BD", "-BX", "b"]);
    assert_success(&ra, "lz4 -c a");
    assert_success(&rb, "lz4 -c b");
    write(d.path(), "rr.lz4", &[ra.stdout, rb.stdout].concat());
    let back = lzkit(d.path(), &["-d", "rr.lz4"]);
    assert_success(&back, "lzkit -d of lz4 concatenation");
    assert_same(&read(d.path(), "rr"), &expected, "lz4 concatenation");
    let theirs = lz4(d.path(), &["-d", "-c", "skip.lz4"]);
    assert_success(&theirs, "lz4 decodes lzkit frames with a skippable frame");
    assert_same(&theirs.stdout, &expected, "lz4 on skip.lz4");
}

/// An interrupt (Ctrl-C, or `SIGTERM` from a supervisor) while output is
/// being written deletes the temporary file and exits with status 130:
/// neither the output name nor a `.lzkit-*.tmp` file is left behind.
#[cfg(unix)]
#[test]
fn an_interrupt_leaves_no_files() {
    use std::time::{Duration, Instant};
    for signal in ["INT", "TERM"] {
        let d = TempDir::new().unwrap();
        let mut child = Command::new(BIN)
            .args(["-", "out.lz4"])
            .current_dir(d.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Some input, with standard input kept open: lzkit waits for more.
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(&sample(3 << 20, 7)).unwrap();
        stdin.flush().unwrap();
        let entries = || fs::read_dir(d.path()).unwrap().count();
        let start = Instant::now();
        while entries() == 0 && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(entries(), 1, "the temporary file exists while writing");
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(killed.success());
        let out = child.wait_with_output().expect("wait");
        drop(stdin);
        assert_eq!(out.status.code(), Some(130), "SIG{signal}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
        let left: Vec<_> = fs::read_dir(d.path()).unwrap().collect();
        assert!(left.is_empty(), "SIG{signal} left {left:?}");
    }
}

/// `--favor-decSpeed`: at levels 10 to 12 it changes which matches are
/// chosen (as in lz4) and the output still decodes; -1 ignores it.
#[test]
fn favor_dec_speed_changes_hc_output_and_round_trips() {
    let d = TempDir::new().unwrap();
    // Many short-offset and medium-length matches, the ones the flag avoids.
    let data: Vec<u8> = (0..400_000u32)
        .map(|i| (i % 7 + (i / 1000) % 13 + (i >> 3) % 5) as u8)
        .collect();
    let run = |args: &[&str], input: &[u8]| {
        let out = with_stdin(BIN, d.path(), args, input);
        assert_success(&out, &format!("{args:?}"));
        out.stdout
    };
    for level in ["-10", "-12"] {
        let plain = run(&[level, "-c"], &data);
        let favored = run(&[level, "--favor-decSpeed", "-c"], &data);
        assert!(plain != favored, "{level}: the flag must change the output");
        assert_same(&run(&["-d", "-c"], &favored), &data, level);
    }
    let plain = run(&["-1", "-c"], &data);
    let favored = run(&["-1", "--favor-decSpeed", "-c"], &data);
    assert!(plain == favored, "-1 ignores the flag, as lz4 does");
}
