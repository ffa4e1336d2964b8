//! `--favor-decSpeed`: at levels 10 to 12 it changes which matches are
//! chosen (as in lz4), the output still decodes to the input, and the
//! fast and lazy levels ignore it.

use std::io::Write;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lzkit");

/// Run lzkit with `args`, `input` on stdin; its stdout, after checking that
/// it succeeded.
fn lzkit(args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lzkit");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("wait for lzkit");
    writer.join().expect("writer thread").expect("write stdin");
    assert!(
        out.status.success(),
        "lzkit {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Data with many short-offset and medium-length matches, the ones
/// `--favor-decSpeed` avoids.
fn data() -> Vec<u8> {
    (0..400_000u32)
        .map(|i| (i % 7 + (i / 1000) % 13 + (i >> 3) % 5) as u8)
        .collect()
}

#[test]
fn favor_dec_speed_changes_hc_output_and_round_trips() {
    let data = data();
    for level in ["-10", "-12"] {
        let plain = lzkit(&[level, "-c"], &data);
        let favored = lzkit(&[level, "--favor-decSpeed", "-c"], &data);
        assert_ne!(plain, favored, "{level}: the flag must change the output");
        assert_eq!(lzkit(&["-d", "-c"], &favored), data, "{level}");
    }
    let plain = lzkit(&["-1", "-c"], &data);
    let favored = lzkit(&["-1", "--favor-decSpeed", "-c"], &data);
    assert_eq!(plain, favored, "-1 ignores the flag, as lz4 does");
}
