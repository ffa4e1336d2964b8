//! The reference `lz4` command: whether it is on PATH, and decoding with it.

use crate::compare::assert_same;

/// Whether the reference `lz4` command is on PATH (noted once if not).
///
/// Every check against `lz4` asks this one function (see
/// [`command_available`]).
pub fn lz4_available() -> bool {
    static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    command_available("lz4", &OK)
}

/// Whether the reference command `cmd` (`lz4`, `zstd`: also its Debian
/// package's name) runs here, asked once per process (`cache`). Outside CI
/// a missing command skips the checks that need it with a note; in CI
/// (environment variable `CI` set) it panics instead, so each test that
/// would check against it fails rather than passing without checking.
pub fn command_available(cmd: &str, cache: &std::sync::OnceLock<bool>) -> bool {
    *cache.get_or_init(|| {
        let ok = std::process::Command::new(cmd)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            // In CI a missing command is a setup failure, not a reason to
            // pass without checking.
            assert!(
                std::env::var_os("CI").is_none(),
                "`{cmd}` is not on PATH in CI: install it (apt-get install {cmd})"
            );
            eprintln!("note: `{cmd}` is not on PATH; checks against it are skipped");
        }
        ok
    })
}

/// Decode `f` with the reference `lz4` and compare with `expected` (skipped
/// as [`lz4_available`] says).
pub fn check_with_lz4(f: &[u8], dict: Option<&[u8]>, expected: &[u8], what: &str) {
    if !lz4_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.lz4");
    std::fs::write(&path, f).unwrap();
    let mut cmd = std::process::Command::new("lz4");
    cmd.args(["-d", "-c"]);
    if let Some(d) = dict {
        let dp = dir.path().join("dict");
        std::fs::write(&dp, d).unwrap();
        cmd.arg("-D").arg(&dp);
    }
    let out = cmd.arg(&path).output().expect("run lz4");
    assert!(
        out.status.success(),
        "{what}: lz4 -d failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_same(&out.stdout, expected, &format!("{what}: decoded by lz4"));
}
