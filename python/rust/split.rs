//! One large file recompressed by several tasks (`lzkit.dask.recompress`):
//! an input lzkit reads at any offset (a seek table, or frames that say
//! their sizes) cut into parts of whole output chunks; each part becomes
//! the seekable frames of its chunks (the bytes the one-machine writer
//! gives those chunks: every frame depends on its chunk alone), and the
//! parts are put end to end under one seek table, the file of
//! `lzkit recompress --seekable` at the same settings.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use lzkit::recompress::Summary;
use lzkit::seekable::{EntryKind, ReaderOptions, SeekTable, SeekableReader, SeekableWriter};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use xxhash_rust::xxh64::Xxh64;

fn err(path: &std::path::Path, e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(format!("{}: {e}", path.display()))
}

/// A part's frames as Python gets them: `(compressed size, decoded size,
/// checksum or None)` each.
type PartEntries = Vec<(u32, u32, Option<u32>)>;

/// A part as `join_parts` takes it: its file, frames and content hash.
type Part = (PathBuf, PartEntries, u64);

/// A writer that hashes what goes through it.
struct Hashing<W> {
    inner: W,
    hash: Xxh64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// `lzkit._lzkit.seekable_content(path, max_entry)`: the content length
/// of `path` if lzkit reads it at any offset with no piece over
/// `max_entry` decoded bytes (so that a part reads only its own), else
/// None.
#[pyfunction]
pub(crate) fn seekable_content(
    py: Python<'_>,
    path: PathBuf,
    max_entry: u64,
) -> PyResult<Option<u64>> {
    py.allow_threads(|| {
        let file = File::open(&path).map_err(|e| err(&path, e))?;
        match SeekableReader::with_options(file, ReaderOptions::default()) {
            Ok(r) if u64::from(r.table().max_entry_size()) <= max_entry => Ok(Some(r.len())),
            Ok(_) | Err(lzkit::Error::NotSeekable { .. }) => Ok(None),
            Err(e) => Err(err(&path, e)),
        }
    })
}

/// `lzkit._lzkit.recompress_part(src, part, to, level, chunk, start, end)`:
/// the content `start..end` of `src` (a whole number of `chunk`s, but for
/// the last part) as seekable frames in the file `part`, with no table
/// (written under a random name created exclusively, renamed to `part`
/// when complete: never through a link planted at `part`).
/// Returns `(entries, content_xxh64)`: per frame `(compressed size,
/// decoded size, checksum or None)`, and the XXH64 of the part's content.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (src, part, to, level, chunk, start, end))]
pub(crate) fn recompress_part(
    py: Python<'_>,
    src: PathBuf,
    part: PathBuf,
    to: &str,
    level: Option<i32>,
    chunk: usize,
    start: u64,
    end: u64,
) -> PyResult<(PartEntries, u64)> {
    let opts = crate::formats::write_options(to, level, chunk)?;
    py.allow_threads(|| {
        let input = File::open(&src).map_err(|e| err(&src, e))?;
        let reader = SeekableReader::open(input).map_err(|e| err(&src, e))?;
        let output = crate::files::temporary_for(&part).map_err(PyRuntimeError::new_err)?;
        let writer = SeekableWriter::new(BufWriter::with_capacity(1 << 20, output), &opts)
            .map_err(|e| err(&part, e))?;
        let mut tee = Hashing {
            inner: writer,
            hash: Xxh64::new(0),
        };
        let copied = reader
            .copy_range(start, end - start, &mut tee)
            .map_err(|e| err(&src, e))?;
        if copied != end - start {
            return Err(err(
                &src,
                format!(
                    "{copied} bytes of content from {start}, not {}",
                    end - start
                ),
            ));
        }
        let (w, table) = tee.inner.finish().map_err(|e| err(&part, e))?;
        let tmp = w.into_inner().map_err(|e| err(&part, e.error()))?;
        // The frames only: the table goes at the end of the joined file.
        let frames: u64 = table
            .entries()
            .iter()
            .map(|e| u64::from(e.compressed_size))
            .sum();
        tmp.as_file().set_len(frames).map_err(|e| err(&part, e))?;
        tmp.as_file().sync_all().map_err(|e| err(&part, e))?;
        // A name no one else uses (random per recompression): never over
        // a file.
        crate::files::persist(tmp, &part, false)?;
        let entries = table
            .entries()
            .iter()
            .map(|e| (e.compressed_size, e.decompressed_size, e.checksum))
            .collect();
        Ok((entries, tee.hash.digest()))
    })
}

/// A writer that hashes the whole and each part's range of it.
struct PartHashes {
    whole: Xxh64,
    part: Xxh64,
    /// Decoded bytes left in the current part, and the parts' lengths
    /// after it (last first).
    left: u64,
    next: Vec<u64>,
    done: Vec<u64>,
}

impl Write for PartHashes {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let n = buf.len();
        self.whole.update(buf);
        while !buf.is_empty() {
            while self.left == 0 {
                let Some(len) = self.next.pop() else {
                    return Err(io::Error::other("more content than the parts hold"));
                };
                self.done.push(self.part.digest());
                self.part = Xxh64::new(0);
                self.left = len;
            }
            let k = buf
                .len()
                .min(usize::try_from(self.left).unwrap_or(usize::MAX));
            self.part.update(&buf[..k]);
            self.left -= k as u64;
            buf = &buf[k..];
        }
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `lzkit._lzkit.join_parts(src, dst, to, parts, overwrite)`: the parts
/// (`(path, entries, content_xxh64)` from `recompress_part`, in order) put
/// end to end in `dst` under one seek table, written under a temporary
/// name and renamed when complete (over an existing `dst` only with
/// `overwrite`, as `recompress_file`); the result decoded again (on every core) and
/// each part's content checked against its hash. The part files are
/// removed, also when the join fails. Returns the summary of
/// `lzkit.recompress_file`.
#[pyfunction]
pub(crate) fn join_parts<'py>(
    py: Python<'py>,
    src: PathBuf,
    dst: PathBuf,
    to: &str,
    parts: Vec<Part>,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let format = crate::formats::write_options(to, None, 1)?.format();
    let checksums = parts.iter().flat_map(|p| &p.1).any(|e| e.2.is_some());
    let result = py.allow_threads(|| -> PyResult<Summary> {
        let mut head = [0u8; 8];
        let read = std::fs::metadata(&src).map_err(|e| err(&src, e))?.len();
        {
            use std::io::Read;
            let mut f = File::open(&src).map_err(|e| err(&src, e))?;
            crate::files::refuse_same_file(&src, &f, &dst).map_err(PyRuntimeError::new_err)?;
            crate::files::refuse_existing(&dst, overwrite)?;
            let n = f.read(&mut head).map_err(|e| err(&src, e))?;
            head[n..].fill(0);
        }
        // The parts read it as LZ4 or zstd: detection cannot fail.
        let source =
            lzkit::format::detect(&head).ok_or_else(|| err(&src, "neither LZ4 nor zstd"))?;
        let mut table = SeekTable::new(format, checksums);
        let tmp = crate::files::temporary_for(&dst).map_err(PyRuntimeError::new_err)?;
        let mut out = BufWriter::with_capacity(1 << 20, tmp);
        let mut offset = 0u64;
        for (path, entries, _) in &parts {
            let mut f = File::open(path).map_err(|e| err(path, e))?;
            let n = io::copy(&mut f, &mut out).map_err(|e| err(&dst, e))?;
            let frames: u64 = entries.iter().map(|e| u64::from(e.0)).sum();
            if n != frames {
                return Err(err(path, format!("{n} bytes, its frames take {frames}")));
            }
            for &(c, d, sum) in entries {
                table
                    .push(offset, c, d, sum, EntryKind::Frame)
                    .map_err(|e| err(&dst, e))?;
                offset += u64::from(c);
            }
        }
        out.write_all(&table.to_bytes()).map_err(|e| err(&dst, e))?;
        let tmp = out.into_inner().map_err(|e| err(&dst, e.error()))?;
        tmp.as_file().sync_all().map_err(|e| err(&dst, e))?;
        let written = tmp.as_file().metadata().map_err(|e| err(&dst, e))?.len();
        // Decode the joined file (through the handle written: never a
        // file put at its name since) and check every part's content.
        let reader = SeekableReader::open(tmp.reopen().map_err(|e| err(&dst, e))?)
            .map_err(|e| err(&dst, e))?;
        let mut lens: Vec<u64> = parts
            .iter()
            .map(|p| p.1.iter().map(|e| u64::from(e.1)).sum())
            .collect();
        lens.reverse();
        let mut hashes = PartHashes {
            whole: Xxh64::new(0),
            part: Xxh64::new(0),
            left: 0,
            next: lens,
            done: Vec::new(),
        };
        let content = reader
            .decode_all(&mut hashes, 0)
            .map_err(|e| err(&dst, e))?;
        hashes.done.push(hashes.part.digest());
        // The first digest is of the empty part before the first.
        let got = &hashes.done[1..];
        let want: Vec<u64> = parts.iter().map(|p| p.2).collect();
        if got != want.as_slice() || hashes.left != 0 || !hashes.next.is_empty() {
            return Err(err(
                &dst,
                "the joined parts do not decode to the content they were made from",
            ));
        }
        crate::files::persist(tmp, &dst, overwrite)?;
        Ok(Summary {
            source,
            read,
            content,
            content_xxh64: hashes.whole.digest(),
            written,
            verified: true,
            trailing_zeros: 0,
        })
    });
    // The parts are removed whether the join succeeded or not (their names
    // carry a random token: no one else's files); on failure the temporary
    // file was deleted when dropped.
    for (path, _, _) in &parts {
        let _ = std::fs::remove_file(path);
    }
    crate::recompress::summary_dict(py, &result?)
}

/// Add this module's functions and classes to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(seekable_content, m)?)?;
    m.add_function(wrap_pyfunction!(recompress_part, m)?)?;
    m.add_function(wrap_pyfunction!(join_parts, m)?)?;
    Ok(())
}
