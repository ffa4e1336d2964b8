//! Helpers shared by the `lzkit` command's integration tests.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use tempfile::TempDir;

pub const BIN: &str = env!("CARGO_BIN_EXE_lzkit");

// ---------------------------------------------------------------- helpers

/// Deterministic test data: words, numbers and some random runs, so that it
/// compresses (to about half) but not trivially.
pub fn sample(len: usize, seed: u64) -> Vec<u8> {
    lzkit_testkit::prose_with_noise(len, seed)
}

/// Data shared by the option tests: 2.5 MiB, so that -B4..-B6 give many blocks.
pub fn shared_data() -> &'static [u8] {
    static DATA: OnceLock<Vec<u8>> = OnceLock::new();
    DATA.get_or_init(|| sample(5 << 19, 1))
}

/// Run `program` (a name or a path) in `dir`, standard input empty.
pub fn run_program(program: impl AsRef<OsStr>, dir: &Path, args: &[&str]) -> Output {
    let program = program.as_ref();
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", program.to_string_lossy()))
}

pub fn lzkit(dir: &Path, args: &[&str]) -> Output {
    run_program(BIN, dir, args)
}

pub fn lzkit_env(dir: &Path, args: &[&str], key: &str, value: &str) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env(key, value)
        .stdin(Stdio::null())
        .output()
        .expect("run lzkit")
}

/// Run `program` with `input` on its standard input.
pub fn with_stdin(program: &str, dir: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    // Write from another thread so a full stdout pipe cannot deadlock us.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer thread");
    out
}

pub fn lz4(dir: &Path, args: &[&str]) -> Output {
    run_program("lz4", dir, args)
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[track_caller]
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({}): {}",
        out.status,
        stderr(out)
    );
}

/// Exit status 1 and a message naming `file`.
#[track_caller]
pub fn assert_failure_naming(out: &Output, file: &str, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what}: expected exit 1, stderr: {}",
        stderr(out)
    );
    let err = stderr(out);
    assert!(
        err.lines()
            .any(|l| l.starts_with(&format!("lzkit: {file}: "))),
        "{what}: no 'lzkit: {file}: ...' line in stderr: {err}"
    );
}

/// Byte-exact comparison with a short message instead of a huge dump.
#[track_caller]
pub fn assert_same(actual: &[u8], expected: &[u8], what: &str) {
    if actual != expected {
        let first = actual.iter().zip(expected).position(|(a, b)| a != b);
        panic!(
            "{what}: {} bytes, expected {}; first difference at {:?}",
            actual.len(),
            expected.len(),
            first
        );
    }
}

pub fn names(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

#[track_caller]
pub fn assert_names(dir: &Path, expected: &[&str]) {
    let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        names(dir),
        expected,
        "directory contents (leftover or missing files)"
    );
}

pub fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, data).expect("write test file");
    p
}

pub fn read(dir: &Path, name: &str) -> Vec<u8> {
    fs::read(dir.join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
}

pub fn tmp() -> TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// A tmpfs of `size` mounted on `dir` (root only), unmounted when dropped:
/// a small disk to fill.
pub struct SmallFs(PathBuf);

impl SmallFs {
    /// `None` where mounting is not allowed.
    pub fn mount(dir: &Path, size: &str) -> Option<SmallFs> {
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| SmallFs(dir.to_path_buf()))
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}
