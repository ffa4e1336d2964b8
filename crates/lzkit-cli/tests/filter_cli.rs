//! `--filter=NAME`: the input is filtered before it is compressed, and
//! the filter is recorded in a filter frame (a skippable frame) before the
//! first frame, which `lzkit -d` reads to undo the filter.
//!
//! * Round trips of every filter with LZ4 and zstd, from files and from
//!   standard input, several files at once, and `-t`.
//! * `lz4 -d` and `zstd -d` (when installed; in CI a missing one fails)
//!   decode a filtered file to exactly the filtered bytes
//!   (`Filter::encode` of the input).
//! * A filter frame of another version, or damaged, is an error naming
//!   the file, and leaves no output; so are the refused combinations.

use std::fs;
use std::path::Path;

use lzkit::filter::Filter;

mod common;
use common::*;

/// A column of 8-byte integers that grow slowly, with 5 stray bytes at the
/// end (no whole element), so that both filters help and tails are kept.
fn column(n: u64) -> Vec<u8> {
    let mut v: Vec<u8> = (0..n)
        .map(|i| 1_000_000 + i * 7 + (i * 2_654_435_761) % 5)
        .flat_map(u64::to_le_bytes)
        .collect();
    v.extend_from_slice(b"tail!");
    v
}

const CODECS: [(&str, &str); 2] = [("--format=lz4", ".lz4"), ("--format=zstd", ".zst")];

/// Whether `program` is there to run; in CI (`CI` set) it must be.
fn have(program: &str) -> bool {
    let ok = match program {
        "lz4" => lzkit_testkit::lz4_available(),
        _ => lzkit_testkit::zstd_ref::cli_available(),
    };
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is not installed (needed in CI)"
        );
        eprintln!("note: {program} not found; its checks skipped");
    }
    ok
}

#[test]
fn round_trips_every_filter_and_codec() {
    let d = tmp();
    // Over 64 KiB pieces, so that the delta crosses the pieces it is fed in.
    let data = column(50_000);
    write(d.path(), "col", &data);
    for filter in Filter::ALL {
        for (codec, suffix) in CODECS {
            let what = format!("{filter} {codec}");
            let flag = format!("--filter={filter}");
            // A file.
            let out = format!("col.{filter}{suffix}");
            let c = lzkit(d.path(), &[&flag, codec, "-q", "col", "-o", &out]);
            assert_success(&c, &what);
            let compressed = read(d.path(), &out);
            assert_eq!(
                &compressed[..12],
                &filter.frame()[..12],
                "{what}: frame first"
            );
            let back = lzkit(d.path(), &["-d", "-c", &out]);
            assert_success(&back, &what);
            assert_same(&back.stdout, &data, &what);
            // -t checks it; --list shows the filter.
            assert_success(&lzkit(d.path(), &["-t", "-q", &out]), &what);
            let list = lzkit(d.path(), &["--list", &out]);
            assert_success(&list, &what);
            assert!(
                stdout_text(&list).contains(&format!("  filter: {filter} ")),
                "{what}: {}",
                stdout_text(&list)
            );
            // Standard input to standard output, both ways.
            let piped = with_stdin(BIN, d.path(), &[&flag, codec, "-c"], &data);
            assert_success(&piped, &what);
            let back = with_stdin(BIN, d.path(), &["-d", "-c"], &piped.stdout);
            assert_success(&back, &what);
            assert_same(&back.stdout, &data, &format!("{what} stdin"));
        }
    }
}

#[test]
fn filtering_helps_and_changes_the_frames() {
    let d = tmp();
    let data = column(50_000);
    write(d.path(), "col", &data);
    let plain = lzkit(d.path(), &["-c", "col"]);
    let filtered = lzkit(d.path(), &["-c", "--filter=delta8", "col"]);
    assert_success(&plain, "plain");
    assert_success(&filtered, "filtered");
    assert!(
        filtered.stdout.len() < plain.stdout.len(),
        "delta8 {} bytes, none {}",
        filtered.stdout.len(),
        plain.stdout.len()
    );
}

#[test]
fn system_decoders_give_the_filtered_bytes() {
    let d = tmp();
    let data = column(30_000);
    write(d.path(), "col", &data);
    for filter in [
        Filter::parse("shuffle8").unwrap(),
        Filter::parse("delta4").unwrap(),
    ] {
        let expected = filter.encode(&data);
        let flag = format!("--filter={filter}");
        if have("lz4") {
            let c = lzkit(d.path(), &[&flag, "-q", "-f", "col", "col.lz4"]);
            assert_success(&c, "compress");
            let theirs = lz4(d.path(), &["-d", "-c", "col.lz4"]);
            assert_success(&theirs, "lz4 -d");
            assert_same(&theirs.stdout, &expected, &format!("lz4 -d of {filter}"));
        }
        if have("zstd") {
            let c = lzkit(
                d.path(),
                &[&flag, "--zstd", "-q", "-f", "col", "-o", "col.zst"],
            );
            assert_success(&c, "compress");
            let theirs = run_program("zstd", d.path(), &["-q", "-d", "-c", "col.zst"]);
            assert_success(&theirs, "zstd -d");
            assert_same(&theirs.stdout, &expected, &format!("zstd -d of {filter}"));
        }
    }
}

#[test]
fn with_content_size_threads_and_levels() {
    let d = tmp();
    let data = column(40_000);
    write(d.path(), "col", &data);
    for args in [
        &["--content-size", "-B4", "-T2"][..],
        &["--zstd", "-T2", "-19"][..],
        &["--zstd", "--no-content-size"][..],
    ] {
        let mut all = vec!["--filter=delta8", "-c"];
        all.extend_from_slice(args);
        all.push("col");
        let c = lzkit(d.path(), &all);
        assert_success(&c, &format!("{args:?}"));
        let back = with_stdin(BIN, d.path(), &["-d", "-c"], &c.stdout);
        assert_success(&back, &format!("{args:?}"));
        assert_same(&back.stdout, &data, &format!("{args:?}"));
    }
}

/// Through a link named zstd: zstd's meanings, the same filter frame.
#[cfg(unix)]
#[test]
fn zstd_personality() {
    let d = tmp();
    let data = column(40_000);
    write(d.path(), "col", &data);
    let link = d.path().join("zstd");
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    let c = run_program(
        &link,
        d.path(),
        &["-q", "--filter=shuffle8", "col", "-o", "col.zst"],
    );
    assert_success(&c, "zstd personality");
    let zst = read(d.path(), "col.zst");
    assert!(lzkit::filter::is_filter_frame(&zst));
    let back = run_program(&link, d.path(), &["-q", "-d", "-c", "col.zst"]);
    assert_success(&back, "zstd personality -d");
    assert_same(&back.stdout, &data, "zstd personality");
}

#[test]
fn several_files_each_record_their_filter() {
    let d = tmp();
    let a = column(3_000);
    let b = column(10);
    write(d.path(), "a", &a);
    write(d.path(), "b", &b);
    write(d.path(), "empty", b"");
    let c = lzkit(
        d.path(),
        &["-m", "-q", "--filter=shuffle4", "a", "b", "empty"],
    );
    assert_success(&c, "compress -m");
    for name in ["a", "b", "empty"] {
        fs::rename(d.path().join(name), d.path().join(format!("{name}.orig"))).unwrap();
    }
    let c = lzkit(d.path(), &["-m", "-d", "-q", "a.lz4", "b.lz4", "empty.lz4"]);
    assert_success(&c, "decompress -m");
    assert_same(&read(d.path(), "a"), &a, "a");
    assert_same(&read(d.path(), "b"), &b, "b");
    assert!(read(d.path(), "empty").is_empty());
}

/// `lzkit -d` of `bytes` (as file `name`): fails naming it, with `needle`
/// in the message, and leaves no output file.
#[track_caller]
fn refused(dir: &Path, name: &str, bytes: &[u8], needle: &str) {
    write(dir, name, bytes);
    let out_name = name.trim_end_matches(".lz4").trim_end_matches(".zst");
    let out = lzkit(dir, &["-d", "-q", name]);
    assert_failure_naming(&out, name, name);
    assert!(stderr(&out).contains(needle), "{}", stderr(&out));
    assert!(!dir.join(out_name).exists(), "{name}: partial output left");
    // Nothing on standard output either.
    let out = lzkit(dir, &["-d", "-c", name]);
    assert_failure_naming(&out, name, name);
    assert!(out.stdout.is_empty(), "{name}: partial output on stdout");
    // Nor a clean test, nor a listing.
    assert_failure_naming(&lzkit(dir, &["-t", name]), name, name);
    let list = lzkit(dir, &["--list", name]);
    assert_failure_naming(&list, name, name);
    assert!(stderr(&list).contains(needle), "{}", stderr(&list));
    fs::remove_file(dir.join(name)).unwrap();
}

#[test]
fn unusable_filter_frames_are_refused() {
    let d = tmp();
    let data = column(20_000);
    write(d.path(), "col", &data);
    for (codec, suffix) in CODECS {
        let c = lzkit(d.path(), &["--filter=delta8", codec, "-c", "col"]);
        assert_success(&c, codec);
        let good = c.stdout;
        let name = format!("bad{suffix}");

        // A version this lzkit does not read.
        let mut v2 = good.clone();
        v2[12] = 2;
        refused(d.path(), &name, &v2, "version 2");

        // Damaged content: the name, the checksum, the size.
        for (at, bit) in [(14, 0x01), (19, 0x02), (21, 0x80), (4, 0x01), (13, 0x04)] {
            let mut bad = good.clone();
            bad[at] ^= bit;
            refused(d.path(), &name, &bad, "corrupt filter frame");
        }
        // Cut short inside the frame.
        refused(d.path(), &name, &good[..20], "corrupt filter frame");
        // Two filter frames.
        let mut twice = Filter::parse("shuffle2").unwrap().frame();
        twice.extend_from_slice(&good);
        refused(d.path(), &name, &twice, "second filter frame");
    }
    // Another program's skippable frame with the same magic number but not
    // the tag is skipped as before: the content comes out as it was.
    let mut other = 0x184D_2A54u32.to_le_bytes().to_vec();
    other.extend_from_slice(&8u32.to_le_bytes());
    other.extend_from_slice(b"NOTLZKF!");
    other.extend_from_slice(&lzkit(d.path(), &["-c", "col"]).stdout);
    write(d.path(), "other.lz4", &other);
    let back = lzkit(d.path(), &["-d", "-c", "other.lz4"]);
    assert_success(&back, "other skippable frame");
    assert_same(&back.stdout, &data, "other skippable frame");
}

/// Files joined (`cat`) with a filtered one, in either order: `-d` and
/// `-t` fail naming the input and leave no output file (a filter frame is
/// undone over everything after it: joined, the bytes of the other file,
/// or of the filtered one, would come out wrong with no error).
#[test]
fn joined_filtered_files_are_refused() {
    let d = tmp();
    let data = column(20_000);
    write(d.path(), "col", &data);
    for (codec, suffix) in CODECS {
        let filtered = lzkit(d.path(), &["--filter=delta8", codec, "-c", "col"]);
        assert_success(&filtered, codec);
        let plain = lzkit(d.path(), &[codec, "-c", "col"]);
        assert_success(&plain, codec);
        for (order, bytes) in [
            (
                "filtered first",
                [&filtered.stdout[..], &plain.stdout[..]].concat(),
            ),
            (
                "filtered last",
                [&plain.stdout[..], &filtered.stdout[..]].concat(),
            ),
        ] {
            let name = format!("joined{suffix}");
            write(d.path(), &name, &bytes);
            let out = lzkit(d.path(), &["-d", "-q", &name]);
            assert_failure_naming(&out, &name, &name);
            assert!(
                stderr(&out).contains("filtered stream"),
                "{order}: {}",
                stderr(&out)
            );
            assert!(
                !d.path().join("joined").exists(),
                "{order}: partial output left"
            );
            assert_failure_naming(&lzkit(d.path(), &["-t", &name]), &name, &name);
            fs::remove_file(d.path().join(&name)).unwrap();
        }
    }
}

#[test]
fn refused_combinations() {
    let d = tmp();
    write(d.path(), "col", &column(100));
    for (args, needle) in [
        (
            &["--filter=delta5", "col"][..],
            "delta has no element width 5",
        ),
        (&["--filter=zigzag", "col"][..], "unknown filter 'zigzag'"),
        (&["--filter=delta8", "--seekable", "col"][..], "--seekable"),
        (&["--filter=delta8", "-l", "col"][..], "-l"),
        (
            &["--filter=delta8", "-d", "col.lz4"][..],
            "when compressing",
        ),
        (
            &["--filter=delta8", "-t", "col.lz4"][..],
            "when compressing",
        ),
    ] {
        let out = lzkit(d.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
        assert_names(d.path(), &["col"]);
    }
    // A filtered file with a seek table (lzkit index) decodes whole,
    // filter undone; --range is refused. (Two frames after a filter
    // frame are refused: see joined_filtered_files_are_refused.)
    let data = column(100_000);
    write(d.path(), "col", &data);
    let c = lzkit(d.path(), &["--filter=shuffle8", "-c", "-B4", "col"]);
    assert_success(&c, "compress");
    write(d.path(), "big.lz4", &c.stdout);
    assert_success(&run_program(BIN, d.path(), &["index", "big.lz4"]), "index");
    let back = lzkit(d.path(), &["-d", "-c", "big.lz4"]);
    assert_success(&back, "indexed");
    assert_same(&back.stdout, &data, "indexed filtered file");
    let out = lzkit(d.path(), &["-d", "-c", "--range=0:10", "big.lz4"]);
    assert_failure_naming(&out, "big.lz4", "--range");
    assert!(stderr(&out).contains("filtered"), "{}", stderr(&out));
}
