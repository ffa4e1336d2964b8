//! Seekable files from the command line: `--seekable` output that `lz4 -d`
//! and `zstd -d` decode, the same bytes for any `-T`, `--range` against
//! the original bytes (chunk boundaries, the ends, past the end), `--list`,
//! `lzkit index` on files made by `lz4` and `zstd`, `recompress
//! --seekable`, and refusals: a lying table, pipes with `--range`, files
//! with nothing to seek to.
//!
//! Tests skip a reference command missing from PATH, except in CI (`CI`
//! set), where a missing one fails them.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

mod common;
use common::*;

fn run(cmd: &str, dir: &Path, args: &[&str]) -> Output {
    Command::new(cmd)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {cmd}: {e}"))
}

fn have(cmd: &str) -> bool {
    static LZ4: OnceLock<bool> = OnceLock::new();
    static ZSTD: OnceLock<bool> = OnceLock::new();
    lzkit_testkit::command_available(cmd, if cmd == "lz4" { &LZ4 } else { &ZSTD })
}

/// 3 MiB of column-like data and prose.
fn data() -> Vec<u8> {
    let mut d: Vec<u8> = (0..400_000u32)
        .flat_map(|i| (i / 7 % 1000).to_le_bytes())
        .collect();
    d.extend(sample((3 << 20) - d.len(), 5));
    d
}

fn range(dir: &Path, file: &str, spec: &str) -> Vec<u8> {
    let out = lzkit(dir, &["-d", "-c", &format!("--range={spec}"), file]);
    assert_success(&out, &format!("--range={spec} {file}"));
    out.stdout
}

/// The bytes `--range=OFFSET:LENGTH` must give.
fn expected(data: &[u8], offset: usize, length: usize) -> &[u8] {
    let start = offset.min(data.len());
    &data[start..offset.saturating_add(length).min(data.len())]
}

#[test]
fn seekable_output_decodes_everywhere_and_reads_at_random() {
    let dir = tmp();
    let data = data();
    write(dir.path(), "in", &data);
    for (flags, name) in [
        (&["--seekable=100K"][..], "in.lz4"),
        (&["--seekable=256K", "-9", "-BX"], "in.lz4"),
        (&["--zstd", "--seekable=300000"], "in.zst"),
        (&["--zstd", "--seekable", "--no-check"], "in.zst"),
    ] {
        let what = format!("{flags:?}");
        let mut args = vec!["-f", "-q", "-T1"];
        args.extend_from_slice(flags);
        args.push("in");
        assert_success(&lzkit(dir.path(), &args), &what);
        let one = read(dir.path(), name);
        // Byte-identical for any thread count.
        args[2] = "-T3";
        assert_success(&lzkit(dir.path(), &args), &what);
        assert!(
            read(dir.path(), name) == one,
            "{what}: -T3 differs from -T1"
        );

        let reference = if name.ends_with(".lz4") {
            "lz4"
        } else {
            "zstd"
        };
        if have(reference) {
            let out = run(reference, dir.path(), &["-dc", name]);
            assert_success(&out, &format!("{reference} -dc, {what}"));
            assert_same(&out.stdout, &data, &format!("{reference} -dc, {what}"));
        }
        for t in ["-T1", "-T2"] {
            let out = lzkit(dir.path(), &["-d", "-c", t, name]);
            assert_success(&out, &what);
            assert_same(&out.stdout, &data, &format!("lzkit -d {t}, {what}"));
        }
        let chunk = if what.contains("100K") {
            100 << 10
        } else if what.contains("256K") {
            256 << 10
        } else if what.contains("300000") {
            300_000
        } else {
            1 << 20
        };
        let n = data.len();
        for (offset, length) in [
            (0, 1),
            (0, 4096),
            (chunk - 1, 2),
            (chunk, chunk),
            (chunk * 2 - 10, chunk + 20),
            (n - 1, 1),
            (n - 100, 1000),
            (n, 10),
            (n + 5000, 10),
            (12_345, 0),
            (0, n),
        ] {
            assert_same(
                &range(dir.path(), name, &format!("{offset}:{length}")),
                expected(&data, offset, length),
                &format!("{what} --range={offset}:{length}"),
            );
        }
        assert_same(
            &range(dir.path(), name, "1M:"),
            &data[1 << 20..],
            &format!("{what} --range=1M:"),
        );
        assert_same(
            &range(dir.path(), name, "1K:2K"),
            &data[1024..3072],
            &format!("{what} --range=1K:2K"),
        );
        let list = lzkit(dir.path(), &["--list", name]);
        assert_success(&list, "--list");
        let text = stdout_text(&list);
        let frames = n.div_ceil(chunk);
        assert!(
            text.contains(&format!("seek table: {frames} frames")),
            "{what}: {text}"
        );
        let checks = if what.contains("no-check") {
            "no checksums"
        } else {
            ", checksums"
        };
        assert!(text.contains(checks), "{what}: {text}");
    }
}

#[test]
fn index_appends_a_table_to_reference_files() {
    let dir = tmp();
    let data = data();
    write(dir.path(), "in", &data);
    let mut cases: Vec<(&str, Vec<&str>)> = Vec::new();
    if have("lz4") {
        // lz4's default: independent blocks, one frame.
        assert_success(
            &run("lz4", dir.path(), &["-q", "-f", "-B4", "in", "a.lz4"]),
            "lz4",
        );
        assert_success(
            &run(
                "lz4",
                dir.path(),
                &["-q", "-f", "-B5", "-BX", "-9", "in", "b.lz4"],
            ),
            "lz4",
        );
        cases.push(("a.lz4", vec!["blocks"]));
        cases.push(("b.lz4", vec!["blocks"]));
    }
    if have("zstd") {
        // Several frames: concatenated pieces.
        let mut cat = Vec::new();
        for (i, piece) in data.chunks(700_000).enumerate() {
            let p = format!("p{i}");
            write(dir.path(), &p, piece);
            let out = run("zstd", dir.path(), &["-q", "-c", "-5", &p]);
            assert_success(&out, "zstd");
            cat.extend_from_slice(&out.stdout);
        }
        write(dir.path(), "c.zst", &cat);
        cases.push(("c.zst", vec!["frames", "zstd seekable format"]));
    }
    for (name, words) in cases {
        let before = read(dir.path(), name);
        let out = lzkit(dir.path(), &["index", name]);
        assert_success(&out, &format!("index {name}"));
        for w in words {
            assert!(stderr(&out).contains(w), "{name}: {}", stderr(&out));
        }
        let after = read(dir.path(), name);
        assert!(
            after.len() > before.len() && after[..before.len()] == before[..],
            "{name}: the data bytes were changed"
        );
        // Again: nothing to do.
        let again = lzkit(dir.path(), &["index", name]);
        assert_success(&again, "index twice");
        assert!(stderr(&again).contains("already has a seek table"));
        assert_eq!(read(dir.path(), name), after);
        let reference = if name.ends_with(".lz4") {
            "lz4"
        } else {
            "zstd"
        };
        let out = run(reference, dir.path(), &["-dc", name]);
        assert_success(&out, reference);
        assert_same(
            &out.stdout,
            &data,
            &format!("{reference} -dc {name} after index"),
        );
        let out = lzkit(dir.path(), &["-d", "-c", name]);
        assert_same(&out.stdout, &data, &format!("lzkit -d {name} after index"));
        for (offset, length) in [
            (0, 10),
            (65_535, 3),
            (1 << 20, 300_000),
            (data.len() - 7, 99),
        ] {
            assert_same(
                &range(dir.path(), name, &format!("{offset}:{length}")),
                expected(&data, offset, length),
                &format!("{name} --range={offset}:{length}"),
            );
        }
    }
}

#[test]
fn index_refuses_what_cannot_be_indexed_and_changes_nothing() {
    let dir = tmp();
    let data = data();
    write(dir.path(), "in", &data);
    // One zstd frame: nothing to seek to.
    assert_success(
        &lzkit(dir.path(), &["-q", "--zstd", "in", "-o", "one.zst"]),
        "zstd",
    );
    // Legacy LZ4.
    assert_success(
        &lzkit(dir.path(), &["-q", "-l", "in", "-o", "legacy.lz4"]),
        "-l",
    );
    // Corrupt data in the middle of an LZ4 file.
    assert_success(
        &lzkit(dir.path(), &["-q", "-B4", "in", "-o", "bad.lz4"]),
        "lz4",
    );
    let mut bad = read(dir.path(), "bad.lz4");
    let mid = bad.len() / 2;
    for b in &mut bad[mid..mid + 64] {
        *b ^= 0xA5;
    }
    write(dir.path(), "bad.lz4", &bad);
    write(dir.path(), "text", b"plain text, not compressed");
    for (name, why) in [
        ("one.zst", "nothing to seek to"),
        ("legacy.lz4", "legacy"),
        ("bad.lz4", "bad.lz4"),
        ("text", "not LZ4 or zstd"),
        ("missing", "missing"),
    ] {
        let before = fs::read(dir.path().join(name)).ok();
        let out = lzkit(dir.path(), &["index", name]);
        assert!(!out.status.success(), "{name}: index should fail");
        assert!(stderr(&out).contains(why), "{name}: {}", stderr(&out));
        assert_eq!(
            fs::read(dir.path().join(name)).ok(),
            before,
            "{name} changed"
        );
    }
}

#[test]
fn range_and_seekable_refusals() {
    let dir = tmp();
    let data = data();
    write(dir.path(), "in", &data);
    assert_success(
        &lzkit(dir.path(), &["-q", "--seekable=64K", "in"]),
        "seekable",
    );
    // --range from a pipe.
    let out = with_stdin(
        BIN,
        dir.path(),
        &["-d", "-c", "--range=0:10"],
        &read(dir.path(), "in.lz4"),
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--range needs a file"),
        "{}",
        stderr(&out)
    );
    // --range when compressing, --seekable when decompressing.
    let out = lzkit(dir.path(), &["-z", "-c", "--range=0:10", "in"]);
    assert!(!out.status.success() && stderr(&out).contains("--range"));
    let out = lzkit(dir.path(), &["-d", "-c", "--seekable", "in.lz4"]);
    assert!(!out.status.success() && stderr(&out).contains("--seekable"));
    // With a dictionary or the legacy format.
    write(dir.path(), "dict", &data[..10_000]);
    let out = lzkit(dir.path(), &["-c", "--seekable", "-D", "dict", "in"]);
    assert!(
        !out.status.success() && stderr(&out).contains("dictionary"),
        "{}",
        stderr(&out)
    );
    let out = lzkit(dir.path(), &["-c", "--seekable", "-l", "in"]);
    assert!(
        !out.status.success() && stderr(&out).contains("legacy"),
        "{}",
        stderr(&out)
    );

    // A damaged table (entry 3's checksum): --range refuses it; -d
    // decodes the frames without it, with a warning.
    let mut file = read(dir.path(), "in.lz4");
    let n = file.len();
    let entries = u32::from_le_bytes(file[n - 9..n - 5].try_into().unwrap()) as usize;
    let first = n - 9 - entries * 21;
    file[first + 3 * 21 + 17] ^= 1;
    write(dir.path(), "lie.lz4", &file);
    let out = lzkit(dir.path(), &["-d", "-c", "--range=200K:10", "lie.lz4"]);
    assert!(!out.status.success(), "range through a damaged table");
    assert!(stderr(&out).contains("damaged"), "{}", stderr(&out));
    let out = lzkit(dir.path(), &["-d", "lie.lz4", "-o", "lie.out"]);
    assert_success(&out, "-d with a damaged table");
    assert!(
        stderr(&out).contains("seek table ignored"),
        "{}",
        stderr(&out)
    );
    assert_same(
        &read(dir.path(), "lie.out"),
        &data,
        "-d with a damaged table",
    );
    // Frames that disagree with a sound table: -d fails and leaves no
    // output (the first frame's first byte of data, changed).
    let mut file = read(dir.path(), "in.lz4");
    let e0_size = u32::from_le_bytes(file[first + 8..first + 12].try_into().unwrap()) as usize;
    file[e0_size / 2] ^= 0x20;
    write(dir.path(), "bad.lz4", &file);
    let out = lzkit(dir.path(), &["-d", "bad.lz4", "-o", "bad.out"]);
    assert!(!out.status.success(), "-d of a damaged frame");
    assert!(!dir.path().join("bad.out").exists(), "partial output left");
    // A footer claiming 2^32 - 1 entries: --list and -d say so quickly.
    let mut file = read(dir.path(), "in.lz4");
    file[n - 9..n - 5].copy_from_slice(&u32::MAX.to_le_bytes());
    write(dir.path(), "huge.lz4", &file);
    let out = lzkit(dir.path(), &["-d", "-c", "--range=0:1", "huge.lz4"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("claims 4294967295 entries"),
        "{}",
        stderr(&out)
    );
    // Two seekable files end to end: the last table describes only its own
    // file, so -d decodes every frame without it, as lz4 -d does.
    let one = read(dir.path(), "in.lz4");
    write(dir.path(), "twice.lz4", &[one.clone(), one].concat());
    let out = lzkit(dir.path(), &["-d", "-c", "twice.lz4"]);
    assert_success(&out, "-d of two seekable files end to end");
    assert_same(
        &out.stdout,
        &[data.clone(), data.clone()].concat(),
        "two files end to end",
    );
    // Plain -d ignores a table it cannot read, with a warning.
    let out = lzkit(dir.path(), &["-d", "-c", "huge.lz4"]);
    assert_success(&out, "-d with an unreadable table");
    assert_same(&out.stdout, &data, "-d with an unreadable table");
    assert!(
        stderr(&out).contains("seek table ignored"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn recompress_writes_seekable_files() {
    let dir = tmp();
    let data = data();
    write(dir.path(), "in", &data);
    assert_success(
        &lzkit(dir.path(), &["-q", "--zstd", "-19", "in"]),
        "zstd -19",
    );
    let out = lzkit(
        dir.path(),
        &[
            "recompress",
            "--to",
            "lz4",
            "--seekable=512K",
            "--verify",
            "in.zst",
        ],
    );
    assert_success(&out, "recompress --seekable");
    let list = stdout_text(&lzkit(dir.path(), &["--list", "in.lz4"]));
    assert!(list.contains("seek table: 6 frames"), "{list}");
    assert_same(
        &range(dir.path(), "in.lz4", "1000000:5"),
        &data[1_000_000..1_000_005],
        "range",
    );
    if have("lz4") {
        let out = run("lz4", dir.path(), &["-dc", "in.lz4"]);
        assert_same(&out.stdout, &data, "lz4 -dc of recompress --seekable");
    }
}

/// Issue 31, items 1 and 2: a seek table is an index, never the truth. An
/// empty table (its checksum valid) appended to an LZ4 file made `-d`
/// write nothing and exit 0, and `-d --rm` delete the source; a table
/// listing only the last frame made `--range=0:64` give the last frame's
/// bytes. Now `-d`/`-t` decode the frames that are in the file (the table
/// ignored with a warning) and `--range` refuses the table.
#[test]
fn a_lying_table_never_loses_data() {
    use lzkit::seekable::{SeekTable, TableFormat};
    let dir = tmp();
    let data = data();
    write(dir.path(), "plain", &data);
    assert_success(&lzkit(dir.path(), &["-q", "-BD", "plain"]), "compress");
    let mut empty = read(dir.path(), "plain.lz4");
    empty.extend(SeekTable::new(TableFormat::Lz4, false).to_bytes());
    write(dir.path(), "empty.lz4", &empty);

    let out = lzkit(dir.path(), &["-t", "empty.lz4"]);
    assert_success(&out, "-t of a file with an empty table");
    assert!(
        stderr(&out).contains("seek table ignored"),
        "{}",
        stderr(&out)
    );
    let out = lzkit(dir.path(), &["-d", "-c", "--range=0:", "empty.lz4"]);
    assert!(!out.status.success(), "--range through an empty table");
    assert!(out.stdout.is_empty());
    let out = lzkit(dir.path(), &["-d", "-q", "--rm", "empty.lz4", "restored"]);
    assert_success(&out, "-d --rm of a file with an empty table");
    assert_same(
        &read(dir.path(), "restored"),
        &data,
        "-d through an empty table",
    );

    // A seekable file whose table lists only its last frame.
    assert_success(
        &lzkit(
            dir.path(),
            &["-q", "--seekable=256K", "plain", "-o", "s.lz4"],
        ),
        "seekable",
    );
    let file = read(dir.path(), "s.lz4");
    let table = SeekTable::read_from(&file[..], file.len() as u64)
        .unwrap()
        .unwrap();
    let last = *table.entries().last().unwrap();
    let mut t = SeekTable::new(TableFormat::Lz4, table.has_checksums());
    t.push(
        last.compressed_offset,
        last.compressed_size,
        last.decompressed_size,
        last.checksum,
        last.kind,
    )
    .unwrap();
    let mut lie = file[..file.len() - table.encoded_len() as usize].to_vec();
    lie.extend(t.to_bytes());
    write(dir.path(), "last.lz4", &lie);
    let out = lzkit(dir.path(), &["-d", "-c", "--range=0:64", "last.lz4"]);
    assert!(
        !out.status.success(),
        "--range through a table of the last frame"
    );
    assert!(out.stdout.is_empty(), "bytes from the wrong frame");
    assert!(stderr(&out).contains("leaves out"), "{}", stderr(&out));
    let out = lzkit(dir.path(), &["-d", "-c", "last.lz4"]);
    assert_success(&out, "-d of a file whose table lists the last frame");
    assert_same(&out.stdout, &data, "-d through a table of the last frame");
}
