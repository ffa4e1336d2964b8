//! The CLI's `-T#`, `--threads=#` and `LZ4_NBWORKERS` change nothing in the
//! output, in every block mode and the legacy format; the output decodes with
//! `-d -T#` and with the reference `lz4`.

use lzkit::lz4::frame::MIN_JOB_SIZE;
use lzkit_testkit::*;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The encoder's job size for block sizes up to 4 MiB.
const JOB: usize = MIN_JOB_SIZE;

/// Test input, generated once: mixed shapes with copies from up to 64 KiB
/// back, so matches cross block and job boundaries.
fn data() -> &'static [u8] {
    static DATA: OnceLock<Vec<u8>> = OnceLock::new();
    DATA.get_or_init(|| mixed(2 * JOB + 70_000, 0x7EAD))
}

const BIN: &str = env!("CARGO_BIN_EXE_lzkit");

fn lzkit(dir: &Path, args: &[&str], env: Option<(&str, &str)>) -> Vec<u8> {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir).args(args).env_remove("LZ4_NBWORKERS");
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run lzkit");
    assert!(
        out.status.success(),
        "lzkit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn cli_threads_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = &data()[..JOB + 100_001];
    std::fs::write(dir.path().join("in"), src).unwrap();
    let d = dir.path();
    for extra in [&[][..], &["-BD", "-B4"][..], &["-l"][..]] {
        let args = |t: &'static str| [&["-c", "-q"][..], extra, &[t, "in"][..]].concat();
        let one = lzkit(d, &args("-T1"), None);
        for t in ["-T2", "-T3", "-T8", "-T0", "-T"] {
            assert_same(&lzkit(d, &args(t), None), &one, &format!("{extra:?} {t}"));
        }
        let long = [&["-c", "-q", "--threads=2"][..], extra, &["in"][..]].concat();
        assert_same(&lzkit(d, &long, None), &one, "--threads=2");
        let env = [&["-c", "-q"][..], extra, &["in"][..]].concat();
        assert_same(
            &lzkit(d, &env, Some(("LZ4_NBWORKERS", "3"))),
            &one,
            "LZ4_NBWORKERS=3",
        );
        assert_same(&lzkit(d, &env, None), &one, "default threads");
        std::fs::write(d.join("in.lz4"), &one).unwrap();
        for t in ["-T1", "-T4"] {
            let back = lzkit(d, &["-d", "-c", "-q", t, "in.lz4"], None);
            assert_same(&back, src, &format!("{extra:?} -d {t}"));
        }
        check_with_lz4(&one, None, src, &format!("CLI {extra:?}"));
    }
}
