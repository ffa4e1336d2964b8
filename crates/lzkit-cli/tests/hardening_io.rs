//! Regression tests of issue 31, items 13 and 16: closed standard streams
//! (`lzkit -c <&-`, `/dev/stdout` named with standard output closed) are
//! errors, not empty input or data sent nowhere; and lz4's habits
//! `--content-size < FILE` and `-D stdin`.

#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::*;

/// Run lzkit in `dir` with descriptor `fd` closed.
fn with_closed(dir: &Path, fd: libc::c_int, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: close(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        command.pre_exec(move || {
            libc::close(fd);
            Ok(())
        });
    }
    command.output().expect("run lzkit")
}

/// Run lzkit in `dir` with standard input (`fd` 0) or output (1) closed,
/// and check that it fails, saying the stream is closed.
#[track_caller]
fn refused_with_closed(dir: &Path, fd: libc::c_int, args: &[&str]) -> Output {
    let (short, long) = match fd {
        0 => ("stdin", "standard input"),
        _ => ("stdout", "standard output"),
    };
    let out = with_closed(dir, fd, args);
    assert!(
        !out.status.success(),
        "{args:?} with {short} closed succeeded"
    );
    assert!(
        stderr(&out).contains(&format!("{long} is closed")),
        "{args:?}: {}",
        stderr(&out)
    );
    out
}

#[test]
fn a_closed_standard_input_is_an_error() {
    let d = tmp();
    for args in [
        &["-c"][..],
        &["-dc"],
        &["-t"],
        &["--list"],
        &["-", "out.lz4"],
    ] {
        let out = refused_with_closed(d.path(), 0, args);
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
        assert!(
            !d.path().join("out.lz4").exists(),
            "{args:?} left an output"
        );
    }
}

#[test]
fn dev_stdout_with_standard_output_closed_is_an_error() {
    let d = tmp();
    write(d.path(), "in", &sample(10_000, 3));
    for args in [
        &["-f", "in", "/dev/stdout"][..],
        &["-f", "in", "-o", "/dev/fd/1"],
    ] {
        refused_with_closed(d.path(), 1, args);
    }
    // /dev/null named as such is still written into (discarded), as asked.
    let out = with_closed(d.path(), 1, &["-f", "in", "/dev/null"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::read_dir(d.path()).unwrap().count() == 1);
}

/// Run lzkit in `dir` with the file `input` as its standard input.
fn from_file(dir: &Path, args: &[&str], input: &str) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(fs::File::open(dir.join(input)).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run lzkit")
}

/// The content size in an LZ4 frame's header, if stored.
fn stored_content_size(frame: &[u8]) -> Option<u64> {
    let flg = frame[4];
    (flg & 0x08 != 0).then(|| u64::from_le_bytes(frame[6..14].try_into().unwrap()))
}

#[test]
fn content_size_of_standard_input_that_is_a_file() {
    let d = tmp();
    let data = sample(300_000, 5);
    write(d.path(), "in", &data);
    let out = from_file(d.path(), &["--content-size", "-c"], "in");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stored_content_size(&out.stdout), Some(data.len() as u64));
    assert_eq!(lzkit::lz4::frame::decompress(&out.stdout).unwrap(), data);
    // Without --content-size, none (lz4's default).
    let out = from_file(d.path(), &["-c"], "in");
    assert_eq!(stored_content_size(&out.stdout), None);
    // A pipe has no size known up front: none either.
    let out = with_stdin(BIN, d.path(), &["--content-size", "-c"], &data);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stored_content_size(&out.stdout), None);
}

#[test]
fn dictionary_from_standard_input() {
    let d = tmp();
    let data = sample(200_000, 6);
    write(d.path(), "data", &data);
    write(d.path(), "dict", &data[..80_000]);
    let out = from_file(d.path(), &["-D", "stdin", "data", "data.lz4"], "dict");
    assert!(out.status.success(), "{}", stderr(&out));
    // The same bytes as with the dictionary named as a file.
    let named = lzkit(d.path(), &["-D", "dict", "-c", "data"]);
    assert!(named.status.success(), "{}", stderr(&named));
    assert_eq!(fs::read(d.path().join("data.lz4")).unwrap(), named.stdout);
    // And back, the dictionary again from standard input.
    let back = from_file(d.path(), &["-d", "-c", "-D", "stdin", "data.lz4"], "dict");
    assert!(back.status.success(), "{}", stderr(&back));
    assert!(back.stdout == data, "decoded data differs");
    if lzkit_testkit::lz4_available() {
        let theirs = Command::new("lz4")
            .args(["-d", "-c", "-D", "dict", "data.lz4"])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(
            theirs.status.success() && theirs.stdout == data,
            "lz4 -d -D dict"
        );
    }
    // The data cannot come from standard input too.
    let out = from_file(d.path(), &["-D", "stdin", "-c"], "dict");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("-D stdin"), "{}", stderr(&out));
}
