//! Regression tests of issue 31, item 17: signals ignored when lzkit
//! starts stay ignored (`nohup lzkit ...`, a background job of a script
//! started with `SIGINT` ignored), while the ones not ignored still end it
//! with status 130 and no partial output.

#![cfg(unix)]

mod common;

use std::fs;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// Start `lzkit - out.lz4` with `ignored` set to `SIG_IGN`, give it the
/// first half of `data` on a standard input kept open, and wait until its
/// temporary output file exists (it is then running, waiting for more).
fn start(
    dir: &Path,
    ignored: &'static [libc::c_int],
    data: &[u8],
) -> (Child, std::process::ChildStdin) {
    let mut command = Command::new(BIN);
    command
        .args(["-", "out.lz4"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        command.pre_exec(move || {
            for &signal in ignored {
                libc::signal(signal, libc::SIG_IGN);
            }
            Ok(())
        });
    }
    let mut child = command.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(&data[..data.len() / 2]).unwrap();
    stdin.flush().unwrap();
    let entries = || fs::read_dir(dir).unwrap().count();
    let begun = Instant::now();
    while entries() == 0 && begun.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(entries(), 1, "the temporary file exists while writing");
    (child, stdin)
}

fn kill(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) on our own child's id.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(sent, 0);
}

#[test]
fn ignored_signals_stay_ignored() {
    let data = sample(3 << 20, 17);
    for signal in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM] {
        let d = tmp();
        let (mut child, mut stdin) = start(
            d.path(),
            &[libc::SIGHUP, libc::SIGINT, libc::SIGTERM],
            &data,
        );
        kill(&child, signal);
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            child.try_wait().unwrap().is_none(),
            "signal {signal}, ignored when lzkit started, ended it"
        );
        stdin.write_all(&data[data.len() / 2..]).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "signal {signal}: {:?} {}",
            out.status,
            stderr(&out)
        );
        let written = fs::read(d.path().join("out.lz4")).unwrap();
        let decoded = lzkit::lz4::frame::decompress(&written).unwrap();
        assert!(
            decoded == data,
            "signal {signal}: the output is not the whole input"
        );
    }
}

#[test]
fn a_hangup_not_ignored_still_interrupts() {
    let data = sample(3 << 20, 18);
    // Only SIGINT ignored: SIGHUP still ends lzkit, cleanly.
    let d = tmp();
    let (child, stdin) = start(d.path(), &[libc::SIGINT], &data);
    kill(&child, libc::SIGHUP);
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted"));
    let left: Vec<_> = fs::read_dir(d.path()).unwrap().collect();
    assert!(left.is_empty(), "left {left:?}");
}
