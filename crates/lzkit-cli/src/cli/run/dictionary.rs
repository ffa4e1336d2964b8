//! `-D FILE`: the dictionary, read once (its last 64 KiB for LZ4, all of
//! it for zstd).

use std::fs::{self, File};
use std::io::{self, IsTerminal, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::super::output::{self};
use super::super::report::Failure;
use super::Job;

/// Only this much of the end of a dictionary file matters (the LZ4 window).
const DICT_WINDOW: u64 = 64 * 1024;

/// Read the last 64 KiB of a dictionary file (all an LZ4 match can reach).
/// A regular file is read from 64 KiB before its end; anything else (a
/// pipe, `/dev/stdin`, a file in `/proc`) is read to its end, keeping the
/// last 64 KiB.
pub(super) fn load_dictionary(path: &Path) -> Result<Arc<[u8]>, Failure> {
    if is_stdin_dictionary(path) {
        let all = stdin_dictionary()?;
        return Ok(all[all.len().saturating_sub(DICT_WINDOW as usize)..].into());
    }
    let name = path.display().to_string();
    let fail = |e: io::Error| {
        Failure::new(
            &name,
            format!(
                "cannot read dictionary: {}",
                super::super::report::describe_io(&e)
            ),
        )
    };
    let mut file = File::open(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if meta.is_dir() {
        return Err(Failure::new(name, "cannot read dictionary: is a directory"));
    }
    let len = meta.len();
    if meta.is_file() && len > DICT_WINDOW && file.seek(SeekFrom::Start(len - DICT_WINDOW)).is_ok()
    {
        let mut dict = Vec::with_capacity(DICT_WINDOW as usize);
        (&mut file)
            .take(DICT_WINDOW)
            .read_to_end(&mut dict)
            .map_err(fail)?;
        // A file that shrank meanwhile: read again from the start below.
        if dict.len() as u64 == DICT_WINDOW {
            return Ok(dict.into());
        }
        file.seek(SeekFrom::Start(0)).map_err(fail)?;
    }
    Ok(last_bytes(file, DICT_WINDOW as usize).map_err(fail)?.into())
}

/// Whether `-D` names standard input: `-D stdin`, as in `lz4` (a file
/// named `stdin` is `-D ./stdin`). The data must then come from a file.
pub(super) fn is_stdin_dictionary(path: &Path) -> bool {
    path == Path::new("stdin")
}

/// The dictionary of `-D stdin`: all of standard input, read once.
pub(super) fn stdin_dictionary() -> Result<Arc<[u8]>, Failure> {
    static READ: OnceLock<Result<Arc<[u8]>, String>> = OnceLock::new();
    READ.get_or_init(|| {
        if let Some(closed) = output::stdin_closed() {
            return Err(closed.message);
        }
        if io::stdin().is_terminal() {
            return Err("refusing to read a dictionary from a terminal (-D stdin)".into());
        }
        let mut all = Vec::new();
        io::stdin()
            .lock()
            .read_to_end(&mut all)
            .map(|_| Arc::from(all))
            .map_err(|e| {
                format!(
                    "cannot read dictionary: {}",
                    super::super::report::describe_io(&e)
                )
            })
    })
    .clone()
    .map_err(|msg| Failure::new("stdin", msg))
}

/// The last `keep` bytes of everything `reader` yields, in memory bounded
/// by twice `keep` plus one read.
fn last_bytes(mut reader: impl Read, keep: usize) -> io::Result<Vec<u8>> {
    let mut tail = Vec::with_capacity(2 * keep);
    let mut buf = vec![0u8; keep.max(1)];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        tail.extend_from_slice(&buf[..n]);
        if tail.len() > 2 * keep {
            tail.drain(..tail.len() - keep);
        }
    }
    if tail.len() > keep {
        tail.drain(..tail.len() - keep);
    }
    Ok(tail)
}

impl Job {
    /// The whole `-D` file (zstd dictionaries are used whole), read once.
    pub(super) fn whole_dictionary(&self) -> Result<Arc<[u8]>, Failure> {
        let Some(path) = &self.opts.dictionary else {
            return Err(Failure::new("-D", "no dictionary given"));
        };
        if is_stdin_dictionary(path) {
            return stdin_dictionary();
        }
        let name = path.display().to_string();
        self.zstd_dictionary
            .get_or_init(|| {
                fs::read(path).map(Arc::from).map_err(|e| {
                    format!(
                        "cannot read dictionary: {}",
                        super::super::report::describe_io(&e)
                    )
                })
            })
            .clone()
            .map_err(|msg| Failure::new(&name, msg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes at a time.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.1).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn last_bytes_keeps_the_end() {
        let data: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
        for step in [1, 7, 100, 5000] {
            assert_eq!(last_bytes(Trickle(&data, step), 64).unwrap(), &data[936..]);
            assert_eq!(
                last_bytes(Trickle(&data[..10], step), 64).unwrap(),
                &data[..10]
            );
        }
        assert!(last_bytes(Trickle(&[], 3), 64).unwrap().is_empty());
        assert!(is_stdin_dictionary(Path::new("stdin")));
        assert!(!is_stdin_dictionary(Path::new("./stdin")));
    }

    #[test]
    fn lz4_reads_the_last_window() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dict");
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(&path, &data).unwrap();
        assert_eq!(
            &*load_dictionary(&path).unwrap(),
            &data[data.len() - 65_536..]
        );
        let err = load_dictionary(dir.path()).unwrap_err();
        assert_eq!(err.message, "cannot read dictionary: is a directory");
    }
}
