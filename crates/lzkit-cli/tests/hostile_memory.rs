//! Tiny or sparse inputs that claim gigabytes (issue 31, items 6, 7 and
//! 8), each run under `ulimit -v` of 1 GiB: a typed error and exit
//! status 1 (or the right result), never an abort, never gigabytes read or
//! held. The files are sparse: they take no room on disk.

use lzkit::seekable::{SeekTable, TableFormat};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::*;

/// `lzkit ARGS` in `dir` with its address space limited to 1 GiB.
fn limited(dir: &Path, args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run lzkit under ulimit");
    (out, start.elapsed())
}

/// A file of `len` bytes, zero but for `head` at its start and `tail` at
/// its end, made sparse.
fn sparse(path: &Path, head: &[u8], len: u64, tail: &[u8]) {
    let mut f = File::create(path).unwrap();
    f.write_all(head).unwrap();
    f.set_len(len - tail.len() as u64).unwrap();
    f.seek(SeekFrom::End(0)).unwrap();
    f.write_all(tail).unwrap();
}

fn failed_with(out: &Output, needle: &str, what: &str) {
    assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(out));
    assert!(stderr(out).contains(needle), "{what}: {}", stderr(out));
}

/// Item 6: a 3 GB sparse file that is all a zstd seek table of empty
/// entries took 492 MB per 100 MB of table and aborted at 3 GB.
#[test]
fn a_table_of_empty_entries_is_refused_by_its_count() {
    let dir = tmp();
    let count: u32 = 375_000_000;
    let entries = u64::from(count) * 8;
    let mut head = 0x184D_2A5Eu32.to_le_bytes().to_vec();
    head.extend_from_slice(&((entries + 9) as u32).to_le_bytes());
    let mut footer = count.to_le_bytes().to_vec();
    footer.push(0);
    footer.extend_from_slice(&lzkit::seekable::ZSTD_FOOTER_MAGIC.to_le_bytes());
    sparse(&dir.path().join("t.zst"), &head, 8 + entries + 9, &footer);
    for args in [
        &["-d", "-c", "--range=0:1", "t.zst"][..],
        &["--list", "t.zst"],
    ] {
        let (out, took) = limited(dir.path(), args);
        failed_with(&out, "seek table", &format!("{args:?}"));
        assert!(took < Duration::from_secs(20), "{args:?}: {took:?}");
    }
}

/// Item 7: a one-entry table claiming 3 GB of compressed bytes in a sparse
/// file: `--range=0:1` read and held the whole entry (2.9 GB, 50 s) before
/// it looked at the frame's magic number.
#[test]
fn a_huge_entry_is_checked_before_it_is_read() {
    let dir = tmp();
    let comp: u32 = 3_000_000_000;
    let mut t = SeekTable::new(TableFormat::Lz4, false);
    t.push_frame(0, comp, 1 << 30, None).unwrap();
    let table = t.to_bytes();
    let len = u64::from(comp) + table.len() as u64;
    sparse(&dir.path().join("zeros.lz4"), &[], len, &table);
    // A real frame header that claims the size, then zeros.
    let header = {
        let opts = lzkit::lz4::frame::FrameOptions::new().content_size(Some(1 << 30));
        let empty = lzkit::lz4::frame::compress(&[], &opts);
        empty[..empty.len() - 4].to_vec()
    };
    sparse(&dir.path().join("header.lz4"), &header, len, &table);
    for (name, needle) in [("zeros.lz4", "not an LZ4 frame"), ("header.lz4", "entry 0")] {
        let (out, took) = limited(dir.path(), &["-d", "-c", "--range=0:1", name]);
        failed_with(&out, needle, name);
        assert!(took < Duration::from_secs(20), "{name}: {took:?}");
    }
}

/// A zstd frame of `blocks` RLE blocks of 128 KiB (a 1 MiB window, the
/// content size in its header): 4 bytes per 128 KiB of content.
fn rle_frame(blocks: u32) -> Vec<u8> {
    let mut f = lzkit::zstd::MAGIC.to_le_bytes().to_vec();
    f.push(0xC0); // an 8-byte content size, no checksum, a window descriptor
    f.push((20 - 10) << 3); // 1 MiB window
    f.extend_from_slice(&(u64::from(blocks) << 17).to_le_bytes());
    for i in 0..blocks {
        let last = u32::from(i + 1 == blocks);
        let header = last | (1 << 1) | ((128 << 10) << 3);
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.push(b'x');
    }
    f
}

/// Item 8: 8 RLE frames of 1 GiB with a valid table (256 KB): `-t` took
/// 5.2 GB, holding threads × 4 decoded frames; `zstd -d` takes 2.7 MB.
/// Entries over half the memory limit now decode as a stream.
#[test]
fn large_entries_decode_within_the_memory_limit() {
    let dir = tmp();
    let frame = rle_frame(8192);
    let mut file = Vec::new();
    let mut t = SeekTable::new(TableFormat::Zstd, false);
    for _ in 0..8 {
        t.push_frame(file.len() as u64, frame.len() as u32, 1 << 30, None)
            .unwrap();
        file.extend_from_slice(&frame);
    }
    file.extend(t.to_bytes());
    write(dir.path(), "rle.zst", &file);
    let (out, _) = limited(dir.path(), &["-t", "-T2", "rle.zst"]);
    assert_success(&out, "-t of 8 frames of 1 GiB under 1 GiB of address space");
    assert!(stderr(&out).contains("8589934592"), "{}", stderr(&out));
    // A range decodes its entry whole: 1 GiB does not fit under the limit,
    // and that is a typed error, not an abort.
    let (out, _) = limited(dir.path(), &["-d", "-c", "--range=5G:10", "rle.zst"]);
    failed_with(&out, "out of memory", "--range in the sixth frame");
    let (out, _) = limited(
        dir.path(),
        &["-d", "-c", "--range=5G:10", "--memory=64M", "rle.zst"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}
