//! Regression tests of issue 31, item 3: `lzkit -r --rm DIR` never leaves
//! its tree, even while another process swaps a subdirectory with a
//! symbolic link to a directory outside it (`renameat2` with
//! `RENAME_EXCHANGE`, in a loop).

#![cfg(unix)]

mod common;

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::*;

/// The directory outside the tree, with the files that must survive.
fn outside(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let out = dir.join("out");
    fs::create_dir_all(&out).unwrap();
    (0..16)
        .map(|i| {
            let name = format!("victim{i}");
            let data = format!("outside the tree {i}\n").into_bytes();
            fs::write(out.join(&name), &data).unwrap();
            (name, data)
        })
        .collect()
}

/// Check that `out` holds exactly `files`, unchanged.
fn assert_outside_intact(dir: &Path, files: &[(String, Vec<u8>)], when: &str) {
    let out = dir.join("out");
    for (name, data) in files {
        let got = fs::read(out.join(name))
            .unwrap_or_else(|e| panic!("{when}: out/{name} outside the tree was removed: {e}"));
        assert_eq!(&got, data, "{when}: out/{name} changed");
    }
    let mut names: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names.len(),
        files.len(),
        "{when}: files written outside the tree: {names:?}"
    );
}

/// The tree: `t/d` with files, `t/d/sub` with files, and `t/d/link`, a
/// symbolic link to `out` (outside the tree).
fn tree(dir: &Path) {
    let d = dir.join("t/d");
    fs::create_dir_all(d.join("sub")).unwrap();
    for i in 0..4 {
        fs::write(d.join(format!("f{i}")), sample(2000, i)).unwrap();
        fs::write(d.join(format!("sub/s{i}")), sample(2000, 10 + i)).unwrap();
    }
    std::os::unix::fs::symlink("../../out", d.join("link")).unwrap();
}

#[test]
fn a_symlinked_subdirectory_is_not_followed() {
    let d = tmp();
    let files = outside(d.path());
    tree(d.path());
    let out = lzkit(d.path(), &["-r", "--rm", "-q", "t/d"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_outside_intact(d.path(), &files, "compressing");
    for i in 0..4 {
        assert!(d.path().join(format!("t/d/f{i}.lz4")).is_file());
        assert!(d.path().join(format!("t/d/sub/s{i}.lz4")).is_file());
        assert!(!d.path().join(format!("t/d/sub/s{i}")).exists());
    }
    assert!(
        fs::symlink_metadata(d.path().join("t/d/link"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // And back: the link is still not followed.
    let out = lzkit(d.path(), &["-d", "-r", "--rm", "-q", "t/d"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_outside_intact(d.path(), &files, "decompressing");
    for i in 0..4 {
        let got = fs::read(d.path().join(format!("t/d/sub/s{i}"))).unwrap();
        assert_eq!(got, sample(2000, 10 + i));
    }
}

/// Swap `a` and `b` (a directory and a link) until `stop`.
fn swapper(a: std::path::PathBuf, b: std::path::PathBuf, stop: Arc<AtomicBool>) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    while !stop.load(Ordering::Relaxed) {
        let _ = renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE);
    }
}

#[test]
fn a_subdirectory_swapped_for_a_link_while_walking_is_not_followed() {
    // Many runs, each with the swapping running all the time: the files
    // outside the tree must all survive, and nothing be written there.
    let deadline = Instant::now() + Duration::from_secs(4);
    let mut runs = 0;
    while Instant::now() < deadline || runs < 20 {
        let d = tmp();
        let files = outside(d.path());
        tree(d.path());
        let stop = Arc::new(AtomicBool::new(false));
        let swapping = {
            let (a, b) = (d.path().join("t/d/sub"), d.path().join("t/d/link"));
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || swapper(a, b, stop))
        };
        // Errors (a file skipped because its directory changed) are fine.
        let _ = lzkit(d.path(), &["-r", "--rm", "-q", "t/d"]);
        let _ = lzkit(d.path(), &["-d", "-r", "--rm", "-q", "-f", "t/d"]);
        stop.store(true, Ordering::Relaxed);
        swapping.join().unwrap();
        assert_outside_intact(d.path(), &files, &format!("run {runs}"));
        runs += 1;
    }
}

#[test]
fn an_output_name_that_is_a_link_out_of_the_tree_is_not_followed() {
    let d = tmp();
    let files = outside(d.path());
    let dir = d.path().join("t/d");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("a"), sample(1000, 1)).unwrap();
    fs::write(dir.join("b"), sample(1000, 2)).unwrap();
    std::os::unix::fs::symlink("../../out/victim0", dir.join("a.lz4")).unwrap();
    let out = lzkit(d.path(), &["-r", "-f", "--rm", "-q", "t/d"]);
    assert!(!out.status.success(), "wrote through a link");
    assert!(stderr(&out).contains("t/d/a.lz4"), "{}", stderr(&out));
    assert_outside_intact(d.path(), &files, "-r -f");
    // The source of the refused output is kept; the other file is done.
    assert_eq!(fs::read(dir.join("a")).unwrap(), sample(1000, 1));
    assert!(dir.join("b.lz4").is_file() && !dir.join("b").exists());
}
