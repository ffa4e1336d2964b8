//! Regression tests of the command's hardening: ownership and set-ID bits,
//! special files as outputs, dictionaries from pipes, sizes that files
//! report wrongly, mixed inputs, unwritable standard error, broken and
//! closed standard output, clean error lines, a full disk in the middle of
//! a file; and the `lz4` (and `zstd`) habits: `-r`, `-o`, `--no-crc`,
//! `--threads N`, `-B` alone, `--help`, `-b#/-e#/-i#`, `-dcf`, the summary
//! line, `--[no-]progress` and `--exclude-compressed`.
//!
//! Tests that need root (ownership, device nodes, a small tmpfs) print a
//! note and check what they can without it.

#![cfg(unix)]

mod common;

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};

use common::*;
use lzkit_testkit::lz4_available;

/// The unprivileged user the ownership tests hand files to.
const NOBODY: u32 = 65534;

fn is_root() -> bool {
    let d = tmp();
    let p = write(d.path(), "probe", b"x");
    fs::metadata(p).expect("probe").uid() == 0
}

/// A null (`full == false`) or full device node to name as an output: a
/// node of our own in `dir` when we are root, so that a regression that
/// replaced its output could never replace the machine's `/dev/null`
/// (as root it could); else the system's, which we cannot replace.
fn device(dir: &Path, full: bool) -> String {
    let (name, minor) = if full { ("full", "7") } else { ("null", "3") };
    if is_root() {
        let made = Command::new("mknod")
            .args([name, "c", "1", minor])
            .current_dir(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if made {
            return dir.join(name).display().to_string();
        }
        eprintln!("note: mknod refused: the test uses /dev/{name} only without -f");
    }
    format!("/dev/{name}")
}

fn lz4_frame_of(data: &[u8]) -> Vec<u8> {
    lzkit::lz4::frame::compress(data, &lzkit::lz4::frame::FrameOptions::new())
}

// ------------------------------------------------------------ 1. set-ID bits

#[test]
fn setuid_goes_only_with_its_owner() {
    if !is_root() {
        eprintln!("note: not root: ownership cannot be changed, set-ID test skipped");
        return;
    }
    let d = tmp();
    let script = b"#!/bin/sh\nid\n";
    fs::write(d.path().join("e.lz4"), lz4_frame_of(script)).expect("write");
    let src = d.path().join("e.lz4");
    std::os::unix::fs::chown(&src, Some(NOBODY), Some(NOBODY)).expect("chown");
    fs::set_permissions(&src, fs::Permissions::from_mode(0o4755)).expect("chmod");

    // Root carries the owner, so the set-user-ID bit stays with it.
    assert_success(&lzkit(d.path(), &["-q", "-d", "e.lz4"]), "-d as root");
    let out = fs::metadata(d.path().join("e")).expect("output");
    assert_eq!(read(d.path(), "e"), script);
    assert_eq!(
        (out.uid(), out.gid()),
        (NOBODY, NOBODY),
        "root carries the owner"
    );
    assert_eq!(out.mode() & 0o7777, 0o4755);

    // A user who cannot give the file its owner gets no set-ID bits: root's
    // set-user-ID, set-group-ID, sticky program decompressed by nobody.
    let d2 = tmp();
    fs::set_permissions(d2.path(), fs::Permissions::from_mode(0o777)).expect("chmod dir");
    fs::write(d2.path().join("r.lz4"), lz4_frame_of(script)).expect("write");
    let src = d2.path().join("r.lz4");
    std::os::unix::fs::chown(&src, Some(0), Some(0)).expect("chown root");
    fs::set_permissions(&src, fs::Permissions::from_mode(0o7755)).expect("chmod");
    let out = {
        use std::os::unix::process::CommandExt;
        Command::new(BIN)
            .args(["-q", "-d", "r.lz4"])
            .current_dir(d2.path())
            .uid(NOBODY)
            .gid(NOBODY)
            .stdin(Stdio::null())
            .output()
            .expect("run as nobody")
    };
    assert_success(&out, "-d as nobody");
    let made = fs::metadata(d2.path().join("r")).expect("output");
    assert_eq!(made.uid(), NOBODY);
    assert_eq!(
        made.mode() & 0o7777,
        0o755,
        "set-ID and sticky bits dropped"
    );
}

// ------------------------------------------------------ 2. special outputs

#[test]
fn fifo_output_is_written_into_not_replaced() {
    let d = tmp();
    let data = sample(300_000, 21);
    write(d.path(), "in", &data);
    let fifo = d.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).expect("read fifo"))
    };
    for force in [true, false] {
        let args: &[&str] = if force {
            &["-q", "-f", "in", "pipe"]
        } else {
            &["-q", "in", "pipe"]
        };
        if !force {
            // A second reader for the second run.
            let fifo = fifo.clone();
            let again = std::thread::spawn(move || fs::read(fifo).expect("read fifo"));
            assert_success(&lzkit(d.path(), args), "write into a FIFO");
            let got =
                lzkit::lz4::frame::decompress(&again.join().expect("reader")).expect("valid frame");
            assert_same(&got, &data, "through the FIFO");
        } else {
            assert_success(&lzkit(d.path(), args), "-f into a FIFO");
            let got = lzkit::lz4::frame::decompress(&reader.join().expect("reader"))
                .expect("valid frame");
            assert_same(&got, &data, "through the FIFO with -f");
            let kind = fs::symlink_metadata(&fifo).expect("fifo").file_type();
            assert!(kind.is_fifo(), "the FIFO was replaced");
            break;
        }
    }
    let kind = fs::symlink_metadata(&fifo).expect("fifo").file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced");
}

#[test]
fn dev_null_and_devices_are_never_replaced() {
    let d = tmp();
    write(d.path(), "tiny.txt", b"hello world\n");
    let (null, full) = (device(d.path(), false), device(d.path(), true));
    let ours = null.starts_with(&*d.path().to_string_lossy());
    // Without -f first, and -f only on a node of our own: a regression
    // must not be able to replace the system's /dev/null.
    assert_success(&lzkit(d.path(), &["-q", "tiny.txt", &null]), "null");
    if ours {
        assert_success(
            &lzkit(d.path(), &["-q", "-f", "tiny.txt", &null]),
            "-f null",
        );
    }
    let kind = fs::symlink_metadata(&null).expect("null").file_type();
    assert!(kind.is_char_device(), "the null device was replaced");
    let out = lzkit(d.path(), &["tiny.txt", &full]);
    assert_failure_naming(&out, &full, "a full device");
    assert!(stderr(&out).contains("No space left"), "{}", stderr(&out));
    let kind = fs::symlink_metadata(&full).expect("full").file_type();
    assert!(kind.is_char_device(), "the full device was replaced");
    if !ours {
        eprintln!("note: no device nodes of our own (not root, or no mknod): -f not tried");
        return;
    }
    // A block device node of our own (a loop device's numbers; never opened).
    let made = Command::new("mknod")
        .args(["b", "b", "7", "200"])
        .current_dir(d.path())
        .status();
    if made.is_ok_and(|s| s.success()) {
        let out = lzkit(d.path(), &["-f", "tiny.txt", "b"]);
        assert_failure_naming(&out, "b", "block device");
        let kind = fs::symlink_metadata(d.path().join("b"))
            .expect("b")
            .file_type();
        assert!(kind.is_block_device(), "the block device was replaced");
    }
}

#[test]
fn symbolic_links_are_followed_never_replaced() {
    let d = tmp();
    let data = sample(50_000, 22);
    write(d.path(), "in", &data);
    write(d.path(), "target.lz4", b"old");
    std::os::unix::fs::symlink("target.lz4", d.path().join("link")).expect("symlink");
    assert_success(&lzkit(d.path(), &["-q", "-f", "in", "link"]), "-f link");
    let link = fs::symlink_metadata(d.path().join("link")).expect("link");
    assert!(link.file_type().is_symlink(), "the link was replaced");
    let got = lzkit::lz4::frame::decompress(&read(d.path(), "target.lz4")).expect("frame");
    assert_same(&got, &data, "the link's target");
    // Without -f the target is an existing file: refused.
    let out = lzkit(d.path(), &["-q", "in", "link"]);
    assert_failure_naming(&out, "link", "existing target without -f");

    std::os::unix::fs::symlink("nowhere", d.path().join("dangling")).expect("symlink");
    let out = lzkit(d.path(), &["-f", "in", "dangling"]);
    assert_failure_naming(&out, "dangling", "dangling link");
    assert!(!d.path().join("nowhere").exists());
    assert!(
        fs::symlink_metadata(d.path().join("dangling"))
            .expect("link")
            .file_type()
            .is_symlink()
    );
    let out = lzkit(d.path(), &["-f", "in", "."]);
    assert_eq!(out.status.code(), Some(1), "a directory as output");
}

// ------------------------------------------------- 3. dictionary from a pipe

#[test]
fn a_dictionary_read_from_a_pipe_uses_its_last_64k() {
    let d = tmp();
    let data = sample(1_000_000, 23);
    // Over 64 KiB, the end of it shared with the data.
    let mut dict = sample(40_000, 24);
    dict.extend_from_slice(&data[..70_000]);
    write(d.path(), "small.txt", &data);
    write(d.path(), "dict.bin", &dict);
    let args = [
        "-q",
        "--no-frame-crc",
        "-D",
        "dict.bin",
        "small.txt",
        "k.lz4",
    ];
    assert_success(&lzkit(d.path(), &args), "compress with a dictionary");
    let out = with_stdin(BIN, d.path(), &["-dc", "-D", "/dev/stdin", "k.lz4"], &dict);
    assert_success(&out, "dictionary from a pipe");
    assert_same(&out.stdout, &data, "decoded with the piped dictionary");
    if lz4_available() {
        let out = lz4(
            d.path(),
            &["-q", "-f", "-D", "dict.bin", "small.txt", "c.lz4"],
        );
        assert_success(&out, "lz4 -D");
        let out = with_stdin(BIN, d.path(), &["-dc", "-D", "/dev/stdin", "c.lz4"], &dict);
        assert_success(&out, "lz4's frame, dictionary from a pipe");
        assert_same(&out.stdout, &data, "lz4's frame");
    }
}

// --------------------------------------------- 4. sizes reported wrongly

#[test]
fn content_size_of_files_that_report_a_wrong_size() {
    let d = tmp();
    for (src, dst) in [("/proc/self/status", "p.lz4"), ("/proc/cpuinfo", "c.lz4")] {
        if !Path::new(src).exists() {
            continue;
        }
        let out = lzkit(d.path(), &["-q", "--content-size", src, dst]);
        assert_success(&out, src);
        let t = lzkit(d.path(), &["-t", dst]);
        assert_success(&t, "the frame's content size matches its data");
        if lz4_available() {
            assert_success(&lz4(d.path(), &["-t", dst]), "lz4 -t");
        }
        // With -c nothing fails half-way.
        let out = lzkit(d.path(), &["-q", "-c", "--content-size", src]);
        assert_success(&out, "-c --content-size");
        lzkit::lz4::frame::decompress(&out.stdout).expect("stdout holds a complete frame");
    }
    // A FIFO named as an input has no size: no content-size field.
    let fifo = d.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::write(fifo, b"through a fifo").expect("write fifo"))
    };
    let out = lzkit(d.path(), &["-q", "--content-size", "fifo", "f.lz4"]);
    writer.join().expect("writer");
    assert_success(&out, "--content-size on a FIFO");
    let got = lzkit::lz4::frame::decompress(&read(d.path(), "f.lz4")).expect("frame");
    assert_eq!(got, b"through a fifo");
}

// -------------------------------------------------------- 5. mixed inputs

#[test]
fn lz4_inputs_decompress_and_mixed_inputs_are_refused() {
    let d = tmp();
    let (a, b) = (sample(20_000, 25), sample(30_000, 26));
    fs::write(d.path().join("a.lz4"), lz4_frame_of(&a)).expect("write");
    fs::write(d.path().join("b.lz4"), lz4_frame_of(&b)).expect("write");
    write(d.path(), "t.txt", b"text");
    assert_success(
        &lzkit(d.path(), &["-q", "-m", "a.lz4", "b.lz4"]),
        "-m *.lz4",
    );
    assert_eq!(read(d.path(), "a"), a);
    assert_eq!(read(d.path(), "b"), b);
    assert!(!d.path().join("a.lz4.lz4").exists());

    for args in [&["-m", "a.lz4", "t.txt"][..], &["-c", "a.lz4", "t.txt"]] {
        let out = lzkit(d.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains("mixed inputs"), "{}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    }
    assert!(!d.path().join("t.txt.lz4").exists());
    // Saying which is enough.
    assert_success(
        &lzkit(d.path(), &["-q", "-z", "-m", "-f", "a.lz4", "t.txt"]),
        "-z",
    );
    assert!(d.path().join("a.lz4.lz4").exists() && d.path().join("t.txt.lz4").exists());
}

// ------------------------------------------------- 6. unwritable stderr

#[test]
fn an_unwritable_stderr_is_never_a_panic() {
    let d = tmp();
    write(d.path(), "tiny.txt", b"hello world\n");
    let run = |args: &[&str], stderr: Stdio| {
        Command::new(BIN)
            .args(args)
            .current_dir(d.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .status()
            .expect("run")
    };
    let full = || {
        Stdio::from(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full"),
        )
    };
    assert_eq!(run(&["-v", "-f", "tiny.txt"], full()).code(), Some(0));
    assert_eq!(run(&["-f", "missing"], full()).code(), Some(1));
    assert_eq!(run(&["--nope"], full()).code(), Some(1));
    assert_eq!(run(&["bench", "--nope"], full()).code(), Some(1));
    // A stderr pipe whose reader has gone.
    let mut child = Command::new(BIN)
        .args(["-v", "-f", "missing", "tiny.txt"])
        .current_dir(d.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stderr.take());
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(1), "a closed stderr pipe: {status}");
}

// --------------------------------------------- 7. broken and closed stdout

#[test]
fn a_broken_stdout_pipe_ends_quietly() {
    let d = tmp();
    let data = sample(8 << 20, 27);
    fs::write(d.path().join("big.lz4"), lz4_frame_of(&data)).expect("write");
    write(d.path(), "big", &data);
    for args in [
        &["-dc", "big.lz4"][..],
        &["-c", "big"],
        &["-c", "-m", "big", "big"],
    ] {
        stop_reading_after_one_byte(d.path(), args);
    }
}

/// Run lzkit with `args`, read one byte of its stdout and close the pipe:
/// it must end quietly with the status of SIGPIPE.
fn stop_reading_after_one_byte(dir: &Path, args: &[&str]) {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut one = [0u8; 1];
    stdout.read_exact(&mut one).expect("first byte");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.stderr.is_empty(),
        "{args:?}: a broken pipe is not an error message: {}",
        stderr(&out)
    );
    assert_eq!(
        out.status.code(),
        Some(141),
        "{args:?}: the status of SIGPIPE"
    );
}

#[test]
fn a_closed_stdout_is_an_error_not_lost_data() {
    let d = tmp();
    write(d.path(), "tiny.txt", b"hello world\n");
    fs::write(d.path().join("t.lz4"), lz4_frame_of(b"x")).expect("write");
    for args in [
        &["-c", "tiny.txt"][..],
        &["-dc", "t.lz4"],
        &["--list", "t.lz4"],
    ] {
        let out = Command::new("sh")
            .args(["-c", "exec \"$0\" \"$@\" >&-", BIN])
            .args(args)
            .current_dir(d.path())
            .output()
            .expect("sh");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
    }
    let out = Command::new("sh")
        .args(["-c", "exec \"$0\" -c tiny.txt >&-", BIN])
        .current_dir(d.path())
        .output()
        .expect("sh");
    assert!(stderr(&out).contains("stdout"), "{}", stderr(&out));
    // /dev/null is not "closed", however it was opened (Python's
    // subprocess.DEVNULL opens it read-write).
    for redirect in ["> /dev/null", "1<>/dev/null"] {
        let out = Command::new("sh")
            .args(["-c", &format!("exec \"$0\" -c tiny.txt {redirect}"), BIN])
            .current_dir(d.path())
            .output()
            .expect("sh");
        assert_success(&out, redirect);
    }
}

// ------------------------------------------------------ 8. error lines

#[test]
fn error_lines_name_the_users_path_and_the_problem() {
    let d = tmp();
    write(d.path(), "tiny.txt", b"hello world\n");
    let out = lzkit(d.path(), &["tiny.txt", "nodir/out.lz4"]);
    assert_failure_naming(&out, "nodir/out.lz4", "missing directory");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("os error") && !err.contains(".tmp"), "{err}");
    assert!(err.contains("'nodir' does not exist"), "{err}");
    let out = lzkit(d.path(), &["missing.txt"]);
    assert!(!stderr(&out).contains("os error"), "{}", stderr(&out));

    // Dictionaries: missing, and wrong.
    let data = sample(200_000, 28);
    let dict = sample(60_000, 29);
    let mut with_dict = dict.clone();
    with_dict.extend_from_slice(&data);
    write(d.path(), "d.bin", &with_dict[..60_000 + 30_000]);
    write(d.path(), "data", &data);
    write(d.path(), "other.bin", &sample(60_000, 30));
    assert_success(
        &lzkit(d.path(), &["-q", "-D", "d.bin", "data", "k.lz4"]),
        "-D",
    );
    let out = lzkit(d.path(), &["-dc", "k.lz4"]);
    assert_failure_naming(&out, "k.lz4", "no dictionary");
    // The frame names no dictionary ID (lz4 -D writes none either): the
    // error says what is wrong, without guessing at a dictionary (issue
    // 31, item 21; frames that name one get the -D hint).
    assert!(
        stderr(&out).contains("points before the start"),
        "{}",
        stderr(&out)
    );
    let out = lzkit(d.path(), &["-dc", "-D", "other.bin", "k.lz4"]);
    assert_failure_naming(&out, "k.lz4", "wrong dictionary");
    assert!(
        stderr(&out).contains("compressed with the dictionary other.bin"),
        "{}",
        stderr(&out)
    );
}

/// The byte an error line names ("at byte N").
fn byte_named(err: &str) -> Option<u64> {
    let rest = &err[err.find("at byte ")? + 8..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
fn list_and_decompress_name_the_same_byte_of_a_truncated_file() {
    let d = tmp();
    let data = sample(600_000, 31);
    write(d.path(), "in", &data);
    assert_success(
        &lzkit(d.path(), &["-q", "-B4", "-BX", "in", "s.lz4"]),
        "-B4",
    );
    assert_success(&lzkit(d.path(), &["-q", "-l", "in", "l.lz4"]), "-l");
    for name in ["s.lz4", "l.lz4"] {
        let whole = read(d.path(), name);
        for cut in [1, 3, 5, 6, 9, 13, 100, 70_000, whole.len() - 2] {
            write(d.path(), "cut.lz4", &whole[..cut]);
            let dec = lzkit(d.path(), &["-dc", "cut.lz4"]);
            let list = lzkit(d.path(), &["--list", "cut.lz4"]);
            let test = lzkit(d.path(), &["-t", "cut.lz4"]);
            let at = byte_named(&stderr(&dec));
            assert!(at.is_some(), "{name} cut at {cut}: {}", stderr(&dec));
            assert_eq!(
                at,
                byte_named(&stderr(&list)),
                "{name} cut at {cut}: --list"
            );
            assert_eq!(at, byte_named(&stderr(&test)), "{name} cut at {cut}: -t");
        }
    }
}

// ------------------------------------------------ 9. a file named bench

#[test]
fn a_file_named_bench_after_double_dash() {
    let d = tmp();
    for name in ["bench", "index"] {
        write(d.path(), name, b"not a subcommand");
        assert_success(&lzkit(d.path(), &["-q", "--", name]), "-- NAME");
        assert!(d.path().join(format!("{name}.lz4")).exists());
    }
    let help = stdout_text(&lzkit(d.path(), &["-h"]));
    assert!(
        help.contains(
            "A file named bench, index, probe or\nrecompress is written ./NAME or -- NAME"
        ),
        "{help}"
    );
}

// ---------------------------------------------- full disk in the middle

#[test]
fn a_full_disk_leaves_the_source_and_no_partial_output() {
    let d = tmp();
    // Incompressible, so the output outgrows the small file system.
    let mut data = vec![0u8; 6 << 20];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for b in data.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    write(d.path(), "big", &data);
    // The output device is full from the first write.
    let full = device(d.path(), true);
    let out = lzkit(d.path(), &["--rm", "big", &full]);
    assert_failure_naming(&out, &full, "a full device");
    assert_eq!(read(d.path(), "big"), data, "the source survives");

    let small = d.path().join("small");
    fs::create_dir(&small).expect("mkdir");
    let Some(_fs) = SmallFs::mount(&small, "2m") else {
        eprintln!("note: cannot mount a tmpfs here; the small-disk test is skipped");
        return;
    };
    for args in [
        &["--rm", "big", "small/big.lz4"][..],
        &["-BD", "-9", "--rm", "big", "small/big.lz4"],
        &["-T1", "--rm", "big", "small/big.lz4"],
    ] {
        let out = lzkit(d.path(), args);
        assert_failure_naming(&out, "small/big.lz4", "a full tmpfs");
        assert!(stderr(&out).contains("No space left"), "{}", stderr(&out));
        assert_eq!(read(d.path(), "big"), data, "{args:?}: the source survives");
        assert_names(&small, &[]);
    }
    // Decompression into the full disk too.
    fs::write(d.path().join("big.lz4"), lz4_frame_of(&data)).expect("write");
    let out = lzkit(d.path(), &["-d", "--rm", "big.lz4", "small/big"]);
    assert_failure_naming(&out, "small/big", "decompressing to a full tmpfs");
    assert!(d.path().join("big.lz4").exists());
    assert_names(&small, &[]);
}

// ----------------------------------------------------------- the habits

#[test]
fn recursive_walks_directories() {
    let d = tmp();
    let tree = d.path().join("tree");
    fs::create_dir_all(tree.join("sub/deeper")).expect("mkdir");
    let files = [("a", 11), ("sub/b", 12), ("sub/deeper/c", 13)];
    for (name, seed) in files {
        fs::write(tree.join(name), sample(10_000, seed)).expect("write");
    }
    fs::write(tree.join("sub/old.lz4"), lz4_frame_of(b"old")).expect("write");
    // A link to a directory outside the tree: never followed.
    let outside = d.path().join("outside");
    fs::create_dir(&outside).expect("mkdir");
    fs::write(outside.join("o"), b"outside").expect("write");
    std::os::unix::fs::symlink(&outside, tree.join("link")).expect("symlink");
    assert_success(&lzkit(d.path(), &["-q", "-r", "tree"]), "-r");
    assert_names(&outside, &["o"]);
    for (name, _) in files {
        assert!(tree.join(format!("{name}.lz4")).exists(), "{name}.lz4");
    }
    assert!(
        !tree.join("sub/old.lz4.lz4").exists(),
        "a .lz4 file is skipped"
    );
    for (name, _) in files {
        fs::remove_file(tree.join(name)).expect("rm");
    }
    assert_success(&lzkit(d.path(), &["-q", "-d", "-r", "tree"]), "-d -r");
    for (name, seed) in files {
        assert_eq!(
            fs::read(tree.join(name)).expect("read"),
            sample(10_000, seed)
        );
    }
    assert_eq!(fs::read(tree.join("sub/old")).expect("old"), b"old");
    assert_names(&outside, &["o"]);
    // --recursive is the same option; a directory without it is an error.
    let out = lzkit(d.path(), &["-m", "tree"]);
    assert!(stderr(&out).contains("use -r"), "{}", stderr(&out));
    // -o names one output: not for the files of a tree.
    let out = lzkit(d.path(), &["-f", "-r", "tree", "-o", "all.lz4"]);
    assert_eq!(out.status.code(), Some(1), "-r with -o");
    assert!(!d.path().join("all.lz4").exists());
    // A directory that cannot be read is a failure of the run.
    if is_root() {
        use std::os::unix::process::CommandExt;
        fs::set_permissions(d.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        fs::set_permissions(&tree, fs::Permissions::from_mode(0o777)).expect("chmod");
        let locked = tree.join("locked");
        fs::create_dir(&locked).expect("mkdir");
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o700)).expect("chmod");
        let out = Command::new(BIN)
            .args(["-q", "-t", "-r", "tree"])
            .current_dir(d.path())
            .uid(NOBODY)
            .stdin(Stdio::null())
            .output()
            .expect("run as nobody");
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains("locked"), "{}", stderr(&out));
    }
}

#[test]
fn output_option_threads_space_form_and_bare_b() {
    let d = tmp();
    let data = sample(300_000, 32);
    write(d.path(), "in", &data);
    assert_success(&lzkit(d.path(), &["-q", "in", "-o", "x.lz4"]), "-o");
    assert_success(&lzkit(d.path(), &["-q", "-d", "x.lz4", "-o", "x"]), "-d -o");
    assert_eq!(read(d.path(), "x"), data);
    assert_success(
        &lzkit(d.path(), &["-q", "--output=y.lz4", "in"]),
        "--output=",
    );
    let out = lzkit(d.path(), &["-o", "z.lz4", "in", "x"]);
    assert_eq!(out.status.code(), Some(1), "-o with two inputs");
    let plain = lzkit(d.path(), &["-c", "in"]).stdout;
    let bare_b = lzkit(d.path(), &["-B", "-c", "in"]);
    assert_success(&bare_b, "-B alone");
    assert_eq!(bare_b.stdout, plain, "-B alone changes nothing");
    let spaced = lzkit(d.path(), &["--threads", "2", "-c", "in"]);
    assert_success(&spaced, "--threads 2");
    assert_eq!(spaced.stdout, plain, "same output on 2 threads");
    if lz4_available() {
        let theirs = lz4(d.path(), &["-B", "-c", "in"]);
        assert_success(&theirs, "lz4 -B");
        assert!(
            theirs.stdout == lz4(d.path(), &["-c", "in"]).stdout,
            "lz4 -B alone changes nothing either"
        );
    }
}

#[test]
fn no_crc_writes_and_checks_no_checksums() {
    let d = tmp();
    let data = sample(200_000, 33);
    write(d.path(), "in", &data);
    let ours = lzkit(d.path(), &["-BX", "--no-crc", "-c", "in"]);
    assert_success(&ours, "--no-crc");
    let info = lzkit::lz4::frame::list_frames(&ours.stdout[..]).expect("list");
    assert!(!info[0].content_checksum && !info[0].block_checksum);
    if lz4_available() {
        // Both decode each other's output; neither has a checksum.
        let theirs = lz4(d.path(), &["--no-crc", "-c", "in"]);
        let info = lzkit::lz4::frame::list_frames(&theirs.stdout[..]).expect("list");
        assert!(!info[0].content_checksum && !info[0].block_checksum);
        let out = with_stdin("lz4", d.path(), &["-dc"], &ours.stdout);
        assert_same(&out.stdout, &data, "lz4 decodes lzkit --no-crc");
    }
    // A damaged content checksum: an error, unless --no-crc.
    let mut framed = lz4_frame_of(&data);
    let last = framed.len() - 1;
    framed[last] ^= 0xFF;
    fs::write(d.path().join("bad.lz4"), &framed).expect("write");
    assert_eq!(lzkit(d.path(), &["-dc", "bad.lz4"]).status.code(), Some(1));
    let out = lzkit(d.path(), &["--no-crc", "-dc", "bad.lz4"]);
    assert_success(&out, "--no-crc -d");
    assert_same(&out.stdout, &data, "decoded without checking");
}

#[test]
fn help_is_the_long_help() {
    let d = tmp();
    let long = stdout_text(&lzkit(d.path(), &["--help"]));
    assert_eq!(long, stdout_text(&lzkit(d.path(), &["-H"])));
    assert!(long.contains("Safety:"), "{long}");
    assert!(
        long.contains("1.10"),
        "the note on implicit stdout names lz4 1.10"
    );
    let short = stdout_text(&lzkit(d.path(), &["-h"]));
    assert!(short.len() < long.len());
}

#[test]
fn benchmark_options_run_the_compression_benchmark() {
    let d = tmp();
    write(d.path(), "in", &sample(200_000, 34));
    let out = lzkit(d.path(), &["-q", "-b1", "-e2", "-i1", "in"]);
    assert_success(&out, "-b1 -e2 -i1");
    let text = stdout_text(&out);
    // lz4's shape: one line per level, " 1#in ...".
    assert!(text.contains(" 1#in ") && text.contains(" 2#in "), "{text}");
    assert!(!text.contains(" 3#"), "{text}");
    assert!(
        !d.path().join("in.lz4").exists(),
        "a benchmark writes no file"
    );
    if lz4_available() {
        assert_success(&lz4(d.path(), &["-q", "-b1", "-e2", "-i1", "in"]), "lz4 -b");
    }
}

#[test]
fn dcf_passes_other_data_through() {
    let d = tmp();
    let plain = b"plain text, not LZ4\n".repeat(1000);
    let data = sample(100_000, 35);
    write(d.path(), "plain.txt", &plain);
    fs::write(d.path().join("x.lz4"), lz4_frame_of(&data)).expect("write");
    let out = lzkit(d.path(), &["-dcf", "plain.txt"]);
    assert_success(&out, "-dcf plain");
    assert_same(&out.stdout, &plain, "passed through");
    let out = lzkit(d.path(), &["-dcf", "x.lz4"]);
    assert_same(&out.stdout, &data, "-dcf still decodes LZ4");
    assert_eq!(
        lzkit(d.path(), &["-dc", "plain.txt"]).status.code(),
        Some(1),
        "without -f: an error"
    );
    let link = d.path().join("lz4cat");
    std::os::unix::fs::symlink(BIN, &link).expect("symlink");
    let out = Command::new(&link)
        .args(["plain.txt", "x.lz4"])
        .current_dir(d.path())
        .output()
        .expect("lz4cat");
    assert_success(&out, "lz4cat");
    let mut both = plain.clone();
    both.extend_from_slice(&data);
    assert_same(&out.stdout, &both, "lz4cat passes through and decodes");
    if lz4_available() {
        let theirs = lz4(d.path(), &["-dcf", "plain.txt"]);
        assert_same(&theirs.stdout, &plain, "lz4 -dcf does the same");
    }
}

#[test]
fn summary_line_at_the_default_level() {
    let d = tmp();
    write(d.path(), "tiny.txt", b"hello world\n");
    let out = lzkit(d.path(), &["tiny.txt"]);
    assert_success(&out, "compress");
    let line = stderr(&out);
    assert!(
        line.starts_with("Compressed 12 bytes into 31 bytes ==> 258.33%"),
        "{line}"
    );
    if lz4_available() {
        let theirs = stderr(&lz4(d.path(), &["-f", "tiny.txt", "theirs.lz4"]));
        assert!(
            theirs.contains("Compressed 12 bytes into 31 bytes ==> 258.33%"),
            "lz4 prints the same numbers: {theirs}"
        );
    }
    let out = lzkit(d.path(), &["-d", "-f", "tiny.txt.lz4"]);
    assert!(
        stderr(&out).contains("decoded 12 bytes"),
        "{}",
        stderr(&out)
    );
    for quiet in [
        &["-q", "-f", "tiny.txt"][..],
        &["-c", "tiny.txt"],
        &["-m", "-f", "tiny.txt"],
    ] {
        let out = lzkit(d.path(), quiet);
        assert!(out.stderr.is_empty(), "{quiet:?}: {}", stderr(&out));
    }
}

#[test]
fn progress_is_forced_or_silenced() {
    let d = tmp();
    write(d.path(), "in", &sample(3 << 20, 36));
    let out = lzkit(d.path(), &["--progress", "-f", "in"]);
    assert_success(&out, "--progress");
    assert!(stderr(&out).contains("==>"), "a ratio: {}", stderr(&out));
    assert!(stderr(&out).contains("in:"), "the file: {}", stderr(&out));
    // The last of the two wins: only the summary line is left.
    let out = lzkit(d.path(), &["--progress", "--no-progress", "-f", "in"]);
    assert!(!stderr(&out).contains("in: "), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}

#[test]
fn exclude_compressed_skips_compressed_formats() {
    let d = tmp();
    write(d.path(), "a.txt", b"text");
    write(d.path(), "b.gz", b"\x1f\x8bnot really");
    write(d.path(), "c.JPG", b"jpeg");
    let out = lzkit(
        d.path(),
        &[
            "-q",
            "-z",
            "-m",
            "--exclude-compressed",
            "a.txt",
            "b.gz",
            "c.JPG",
        ],
    );
    assert_success(&out, "--exclude-compressed");
    assert_names(d.path(), &["a.txt", "a.txt.lz4", "b.gz", "c.JPG"]);
}

#[test]
fn stdout_help_survives_a_full_stdout() {
    let d = tmp();
    let out = Command::new(BIN)
        .arg("-h")
        .current_dir(d.path())
        .stdout(Stdio::from(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full"),
        ))
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(1),
        "-h to a full stdout fails cleanly"
    );
    let mut child = Command::new(BIN)
        .args(["-c", "-"])
        .current_dir(d.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::from(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full"),
        ))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(&sample(100_000, 37));
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("No space left"), "{}", stderr(&out));
}

#[test]
fn dcf_waits_for_a_whole_magic_number_from_a_slow_pipe() {
    let d = tmp();
    let mut child = Command::new(BIN)
        .args(["-dcf"])
        .current_dir(d.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    // 0x04 is the LZ4 magic number's first byte: one byte, then the rest.
    stdin.write_all(b"\x04").expect("write");
    stdin.flush().expect("flush");
    std::thread::sleep(std::time::Duration::from_millis(300));
    stdin.write_all(b"hello world").expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_success(&out, "-dcf over a slow pipe");
    assert_eq!(out.stdout, b"\x04hello world");
    // Short inputs that are not LZ4 pass through too.
    for short in [&b"a"[..], b"ab", b"\x04\x22"] {
        let out = with_stdin(BIN, d.path(), &["-dcf"], short);
        if short == b"\x04\x22" {
            // A magic number's start, cut short: truncated LZ4.
            assert_eq!(out.status.code(), Some(1), "{short:?}");
        } else {
            assert_success(&out, "short input");
            assert_eq!(out.stdout, short);
        }
    }
}

#[test]
fn a_derived_output_name_that_is_a_fifo_needs_f() {
    let d = tmp();
    fs::write(d.path().join("x.lz4"), lz4_frame_of(b"data")).expect("write");
    assert!(
        Command::new("mkfifo")
            .arg(d.path().join("x"))
            .status()
            .expect("mkfifo")
            .success()
    );
    // No reader: a run that wrote into the FIFO would hang; kill it then.
    let mut child = Command::new(BIN)
        .args(["-d", "x.lz4"])
        .current_dir(d.path())
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("lzkit -d x.lz4 hangs on the FIFO x");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(1));
    assert!(
        fs::symlink_metadata(d.path().join("x"))
            .expect("x")
            .file_type()
            .is_fifo()
    );
}

#[test]
fn output_name_rules() {
    let d = tmp();
    let data = sample(100_000, 38);
    write(d.path(), "in", &data);
    // -c and -o both name the output.
    let out = lzkit(d.path(), &["-c", "in", "-o", "x.lz4"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty() && !d.path().join("x.lz4").exists());
    // --output FILE, as --threads N.
    assert_success(
        &lzkit(d.path(), &["-q", "--output", "y.lz4", "in"]),
        "--output FILE",
    );
    let got = lzkit::lz4::frame::decompress(&read(d.path(), "y.lz4")).expect("frame");
    assert_same(&got, &data, "--output FILE");
    // /dev/stdout when stdout is a pipe: written into.
    fs::write(d.path().join("z.lz4"), lz4_frame_of(&data)).expect("write");
    let out = lzkit(d.path(), &["-q", "-d", "-f", "z.lz4", "/dev/stdout"]);
    assert_success(&out, "/dev/stdout to a pipe");
    assert_same(&out.stdout, &data, "/dev/stdout");
    // -e# and -i# alone do not start a benchmark: they compress, as lz4.
    let out = lzkit(d.path(), &["-q", "-e9", "-i1", "in", "e.lz4"]);
    assert_success(&out, "-e9 alone");
    assert!(d.path().join("e.lz4").exists(), "-e9 alone compresses");
}

#[test]
fn compressed_outputs_never_keep_set_id_bits() {
    let d = tmp();
    write(d.path(), "prog", b"#!/bin/sh\nid\n");
    fs::set_permissions(d.path().join("prog"), fs::Permissions::from_mode(0o6755)).expect("chmod");
    assert_success(&lzkit(d.path(), &["-q", "prog"]), "compress");
    let mode = fs::metadata(d.path().join("prog.lz4")).expect("out").mode() & 0o7777;
    assert_eq!(mode, 0o755, "a compressed file is data");
    // Decompressed by its owner: the program's bits come back.
    fs::remove_file(d.path().join("prog")).expect("rm");
    fs::set_permissions(
        d.path().join("prog.lz4"),
        fs::Permissions::from_mode(0o6755),
    )
    .expect("chmod");
    assert_success(&lzkit(d.path(), &["-q", "-d", "prog.lz4"]), "decompress");
    let mode = fs::metadata(d.path().join("prog")).expect("out").mode() & 0o7777;
    assert_eq!(mode, 0o6755, "same owner and group: kept");
}
