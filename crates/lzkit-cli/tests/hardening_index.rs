//! Regression tests of issue 31, item 4: `lzkit index` racing a writer
//! that appends to the file. The scan and the append hold an advisory
//! lock, and the table is appended only if the file's length is still the
//! one the scan covered; otherwise nothing is written.

#![cfg(unix)]

mod common;

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use lzkit::lz4::frame::{FrameOptions, compress, decompress};

/// Several LZ4 frames of 64 KiB of content each, and their content.
fn frames(count: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let mut file = Vec::new();
    let mut content = Vec::new();
    for i in 0..count {
        let chunk = sample(64 << 10, seed + i as u64);
        file.extend_from_slice(&compress(&chunk, &FrameOptions::new()));
        content.extend_from_slice(&chunk);
    }
    (file, content)
}

#[test]
fn a_file_locked_by_another_process_is_left_as_it_is() {
    let d = tmp();
    let (bytes, _) = frames(4, 1);
    let path = write(d.path(), "log.lz4", &bytes);
    let held = fs::File::open(&path).unwrap();
    rustix::fs::flock(&held, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let out = lzkit(d.path(), &["index", "log.lz4"]);
    assert!(!out.status.success(), "indexed a locked file");
    assert!(stderr(&out).contains("locked"), "{}", stderr(&out));
    assert_eq!(fs::read(&path).unwrap(), bytes, "the file changed");
    drop(held);
    let out = lzkit(d.path(), &["index", "log.lz4"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::read(&path).unwrap().len() > bytes.len());
}

#[test]
fn a_file_appended_to_while_indexed_keeps_every_frame() {
    // A file whose scan takes a while, and a writer appending whole
    // frames to it until `lzkit index` is done: whatever lzkit says, every
    // frame must still decode, in order (the table, if written, is a
    // skippable frame between them, never over them).
    let (appended, appended_content) = frames(1, 99);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut failures_seen = 0;
    for run in 0..6 {
        let d = tmp();
        let (bytes, content) = frames(256, run * 1000);
        let path = write(d.path(), "log.lz4", &bytes);
        let mut writer = OpenOptions::new().append(true).open(&path).unwrap();
        let mut child = Command::new(BIN)
            .args(["index", "log.lz4"])
            .current_dir(d.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut appends = 0;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if appends < 2000 {
                writer.write_all(&appended).unwrap();
                appends += 1;
            }
            std::thread::sleep(Duration::from_micros(300));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        let mut expected = content.clone();
        for _ in 0..appends {
            expected.extend_from_slice(&appended_content);
        }
        let now = fs::read(&path).unwrap();
        let decoded = decompress(&now)
            .unwrap_or_else(|e| panic!("run {run}: the file no longer decodes: {e} ({err})"));
        assert!(
            decoded == expected,
            "run {run}: decoded {} bytes, expected {} ({} appends; lzkit: {status}, {err})",
            decoded.len(),
            expected.len(),
            appends
        );
        if !status.success() {
            failures_seen += 1;
            assert!(err.contains("changed while it was indexed"), "{err}");
        }
        if Instant::now() > deadline {
            break;
        }
    }
    assert!(failures_seen > 0, "lzkit never saw the file grow");
}
