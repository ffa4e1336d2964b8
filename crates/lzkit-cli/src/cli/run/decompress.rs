//! Decompression and testing (`-d`, `-t`): LZ4 or zstd as the magic
//! number says, through a seek table when there is one, with the messages
//! that name a likely cause.

use std::fs::{self, File, Metadata};
use std::io::{self, BufReader, Read, Write};

use lzkit::format::{Codec, Format};

use super::super::args::Mode;
use super::super::formats;
use super::super::output::{BUFFER_SIZE, Sink};
use super::super::progress::{ByteCount, CountingReader, Progress};
use super::super::report::{Failure, PROGRAM};
use super::inputs::Opened;
use super::{Job, sink_failure};

impl Job {
    /// Whether to decode through a seek table, and with which: always for
    /// `--range` (a file without a table is scanned for its frames), and
    /// for `-d`/`-t` of a file whose table lists whole frames that follow
    /// each other (decoded on `-T` threads, checked against the table). A
    /// table that cannot be read is then ignored with a warning (the
    /// frames decode without it).
    pub(super) fn seek_plan(
        &self,
        opened: &Opened,
        regular: Option<&Metadata>,
        in_name: &str,
    ) -> Result<Option<(File, lzkit::seekable::SeekTable)>, Failure> {
        use lzkit::seekable::{SeekTable, build_table};
        let file = opened.file.as_ref().filter(|_| regular.is_some());
        let len = regular.map_or(0, Metadata::len);
        // A filtered file's filter is undone over the whole content: not
        // through the table, frame by frame.
        if let Some(file) = file
            && starts_filtered(file, len).map_err(|e| Failure::io(in_name, &e))?
        {
            if self.opts.range.is_some() {
                return Err(Failure::new(
                    in_name,
                    "--range cannot read a filtered file (made with --filter): decode it whole with -d",
                ));
            }
            return Ok(None);
        }
        if self.opts.range.is_some() {
            let Some(file) = file else {
                return Err(Failure::new(
                    in_name,
                    "--range needs a file: it reads the seek table at the end (not a pipe)",
                ));
            };
            let table = match SeekTable::read_from_with_limit(file, len, self.memory_limit()) {
                Ok(Some(t)) => t,
                Ok(None) => {
                    self.rep.detail(format!(
                        "{in_name}: no seek table; reading the whole file to find its frames (add a table with `{PROGRAM} index`)"
                    ));
                    build_table(file, len, false).map_err(|e| self.decode_failure(in_name, e))?
                }
                Err(e) => return Err(self.decode_failure(in_name, e)),
            };
            let own = file.try_clone().map_err(|e| Failure::io(in_name, &e))?;
            return Ok(Some((own, table)));
        }
        let Some(file) = file else {
            return Ok(None);
        };
        match SeekTable::read_from_with_limit(file, len, self.memory_limit()) {
            // Entries decoded in parallel are held whole: entries larger
            // than the memory limit allows decode as a stream instead.
            Ok(Some(t))
                if t.is_contiguous()
                    && u64::from(t.max_entry_size()).saturating_mul(2) <= self.memory_limit() =>
            {
                let own = file.try_clone().map_err(|e| Failure::io(in_name, &e))?;
                Ok(Some((own, t)))
            }
            Ok(_) => Ok(None),
            Err(e) => {
                self.rep.warn(format!(
                    "{in_name}: seek table ignored: {}",
                    super::super::report::describe_lzkit(&e)
                ));
                Ok(None)
            }
        }
    }

    /// The memory a seek table and the frames decoded through it may take:
    /// `--memory`, or the default zstd window limit (128 MiB).
    pub(super) fn memory_limit(&self) -> u64 {
        self.opts
            .memory
            .unwrap_or(1 << lzkit::zstd::DEFAULT_WINDOW_LOG_MAX)
    }

    /// Decode through `table`: the `--range` asked for, or everything,
    /// frames in parallel. Returns the sink and the compressed bytes read.
    pub(super) fn decompress_indexed(
        &self,
        file: File,
        table: lzkit::seekable::SeekTable,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        use lzkit::seekable::{ReaderOptions, SeekableReader};
        let reader = SeekableReader::with_table(
            file,
            table,
            false,
            ReaderOptions::new()
                .verify_checksums(self.opts.verify_checksums)
                .memory_limit(self.memory_limit()),
        );
        let table = reader.table();
        let total_in = table.compressed_end().max(1);
        let total_out = table.decompressed_size().max(1);
        let mut out = Watched {
            sink,
            failed: None,
            progress,
            scale: (total_in, total_out),
        };
        let result = match self.opts.range {
            Some((offset, length)) => {
                let length = length.unwrap_or(u64::MAX);
                reader.copy_range(offset, length, &mut out).map(|_| {
                    let end = offset.saturating_add(length).min(table.decompressed_size());
                    // The compressed bytes of the entries read.
                    table
                        .entries()
                        .iter()
                        .filter(|e| e.decompressed_end() > offset && e.decompressed_offset < end)
                        .map(|e| u64::from(e.compressed_size))
                        .sum()
                })
            }
            None => {
                self.rep.detail(format!(
                    "{in_name}: decoding {} frames through the seek table",
                    table.len()
                ));
                reader
                    .decode_all(&mut out, self.threads)
                    .map(|_| table.compressed_end())
            }
        };
        match result {
            Ok(read) => Ok((out.sink, read)),
            Err(lzkit::Error::Io(e)) if out.failed.is_some() => Err(sink_failure(out_name, &e)),
            Err(e) => Err(self.decode_failure(in_name, e)),
        }
    }

    /// Decode `reader` into `sink`, LZ4 or zstd as its magic number says.
    /// Returns the sink and the compressed bytes read. With `-dcf`, input
    /// that is neither is copied through unchanged (as `lz4 -dcf` and
    /// `zcat -f` do).
    pub(super) fn decompress(
        &self,
        reader: Box<dyn Read + Send>,
        mut sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
        mode: Mode,
    ) -> Result<(Sink, u64), Failure> {
        let (counting, count) = CountingReader::new(reader);
        let mut buffered = BufReader::with_capacity(BUFFER_SIZE, counting);
        let pass_through = mode == Mode::Decompress
            && self.opts.stdout
            && (self.opts.force || self.opts.pass_through);
        let (codec, head) = formats::sniff(&mut buffered).map_err(|e| Failure::io(in_name, &e))?;
        if pass_through && codec.is_none() {
            sink.write_all(&head)
                .map_err(|e| sink_failure(out_name, &e))?;
            copy_through(&mut buffered, &mut sink, out_name, progress, &count, |e| {
                Failure::io(in_name, &e)
            })?;
            return Ok((sink, count.get()));
        }
        let filter = formats::recorded_filter(&head).map_err(|e| Failure::new(in_name, e))?;
        if let Some(filter) = filter {
            self.rep
                .detail(format!("{in_name}: filter {filter}, undone after decoding"));
        }
        let input = io::Cursor::new(head).chain(buffered);
        // LZ4's decoder takes whatever is not zstd (and reports it).
        let (format, zstd_dictionary) = match codec {
            Some(Codec::Zstd) => (Format::Zstd, self.zstd_dictionary()?),
            _ => (Format::Lz4Frame, None),
        };
        let options = lzkit::format::DecodeOptions::new()
            .threads(self.threads)
            .window_log_max(self.window_log_max)
            .verify_checksums(self.opts.verify_checksums)
            .filtered_streams(true)
            .lz4_dictionary(self.dictionary.clone())
            .zstd_dictionary(zstd_dictionary);
        let mut decoder = lzkit::format::decoder(format, input, &options)
            .map_err(|e| self.decode_failure(in_name, e))?;
        // Decoder errors (corrupt data and read failures alike) are about
        // the input. -t checks the frames: the filter cannot fail.
        let read_failure = |e| self.decode_failure(in_name, lzkit::Error::from_io(e));
        match filter {
            Some(filter) if mode != Mode::Test => {
                let mut unfiltered = lzkit::filter::FilterReader::new(decoder, filter);
                copy_through(
                    &mut unfiltered,
                    &mut sink,
                    out_name,
                    progress,
                    &count,
                    read_failure,
                )?;
            }
            _ => copy_through(
                &mut decoder,
                &mut sink,
                out_name,
                progress,
                &count,
                read_failure,
            )?,
        }
        Ok((sink, count.get()))
    }

    /// The `-D` dictionary as a zstd dictionary, if one is given.
    pub(super) fn zstd_dictionary(&self) -> Result<Option<lzkit::zstd::Dictionary>, Failure> {
        let Some(path) = &self.opts.dictionary else {
            return Ok(None);
        };
        let name = path.display().to_string();
        let bytes = self.whole_dictionary()?;
        let dictionary = lzkit::zstd::Dictionary::new(&bytes).map_err(|e| {
            Failure::new(
                &name,
                format!(
                    "not a zstd dictionary: {}",
                    super::super::report::describe_lzkit(&e)
                ),
            )
        })?;
        Ok(Some(dictionary))
    }

    /// A decoding error, with a hint when a dictionary is the likely cause:
    /// a frame that names a dictionary ID needs `-D` (the one hint without
    /// `-D`: a corrupt frame that names none gets no guess), and data that
    /// refers to bytes before its start, or a checksum that fails, while
    /// one is given may be the wrong one.
    /// Frames of both codecs in one file, and a zstd window above
    /// `--memory`, get a message of their own.
    pub(super) fn decode_failure(&self, in_name: &str, e: lzkit::Error) -> Failure {
        if let Some(msg) = formats::mixed_codecs(&e).or_else(|| formats::window_too_large(&e)) {
            return Failure::new(in_name, msg);
        }
        // The input's length, to count the bytes after the last frame.
        let len = (in_name != "stdin")
            .then(|| fs::metadata(in_name).ok())
            .flatten()
            .filter(Metadata::is_file)
            .map(|m| m.len());
        if let Some(msg) = formats::undecodable_tail(&e, len) {
            return Failure::new(in_name, msg);
        }
        let inner = formats::innermost(&e);
        let before_start = matches!(
            inner,
            lzkit::Error::CorruptBlock {
                fault: lzkit::Fault::Lz4(lzkit::Lz4Fault::OffsetBeforeStart { .. })
                    | lzkit::Fault::Zstd(lzkit::ZstdFault::OffsetBeforeStart { .. }),
                ..
            }
        );
        let checksum = matches!(
            inner,
            lzkit::Error::ContentChecksum { .. } | lzkit::Error::BlockChecksum { .. }
        );
        let needs_dictionary = matches!(inner, lzkit::Error::DictionaryRequired { .. });
        let mut f = Failure::lzkit(in_name, e);
        match (&self.opts.dictionary, before_start, checksum) {
            (None, _, _) if needs_dictionary => f.message.push_str(" (give it with -D FILE)"),
            (Some(d), _, _) if needs_dictionary => f.message.push_str(&format!(
                " (the dictionary {} is another one)",
                d.display()
            )),
            (Some(d), true, _) | (Some(d), _, true) => f.message.push_str(&format!(
                " (was it compressed with the dictionary {}? a different dictionary decodes to wrong data)",
                d.display()
            )),
            _ => {}
        }
        f
    }
}

/// Whether the file of `len` bytes starts with a filter frame (valid or
/// not: the stream decoder reports a damaged one).
fn starts_filtered(file: &File, len: u64) -> io::Result<bool> {
    use lzkit::seekable::ReadAt;
    let mut head = [0u8; 12];
    if len < head.len() as u64 {
        return Ok(false);
    }
    file.read_exact_at(&mut head, 0)?;
    Ok(lzkit::filter::is_filter_frame(&head))
}

/// The output of a decode through a seek table: progress shown as it
/// grows (input estimated in proportion), and its write errors told apart
/// from the input's.
struct Watched<'a> {
    sink: Sink,
    failed: Option<io::ErrorKind>,
    progress: &'a mut Progress,
    /// Compressed and decoded sizes of the whole file.
    scale: (u64, u64),
}

impl Write for Watched<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self
            .sink
            .write(buf)
            .inspect_err(|e| self.failed = Some(e.kind()))?;
        let out = self.sink.written();
        let read = (u128::from(out) * u128::from(self.scale.0) / u128::from(self.scale.1)) as u64;
        self.progress.set(read, out);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink
            .flush()
            .inspect_err(|e| self.failed = Some(e.kind()))
    }
}

/// Copy `input` (a decoder, or with `-dcf` input that is not LZ4, passed
/// through unchanged) to `sink`: read errors go through `read_failure`,
/// write errors are named for the output.
fn copy_through(
    input: &mut impl Read,
    sink: &mut Sink,
    out_name: &str,
    progress: &mut Progress,
    count: &ByteCount,
    read_failure: impl Fn(io::Error) -> Failure,
) -> Result<(), Failure> {
    let mut buf = vec![0u8; BUFFER_SIZE];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_failure(e)),
        };
        sink.write_all(&buf[..n])
            .map_err(|e| sink_failure(out_name, &e))?;
        progress.set(count.get(), sink.written());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::Options;
    use crate::cli::report::Reporter;
    use lzkit::seekable::{SeekableWriter, WriteOptions};

    fn job(range: Option<(u64, Option<u64>)>, memory: Option<u64>) -> Job {
        let opts = Options {
            level: Some(lzkit::lz4::Level::DEFAULT),
            threads: Some(1),
            range,
            memory,
            ..Options::default()
        };
        Job::new(opts, Reporter { level: 0 }, Mode::Decompress, true)
            .unwrap_or_else(|f| panic!("{f}"))
    }

    fn opened(path: &std::path::Path) -> (Opened, Metadata) {
        let file = File::open(path).unwrap();
        let meta = file.metadata().unwrap();
        let opened = Opened {
            file: file.try_clone().ok(),
            reader: Box::new(file),
            meta: Some(meta.clone()),
        };
        (opened, meta)
    }

    #[test]
    fn seek_plan() {
        let dir = tempfile::tempdir().unwrap();
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 97) as u8).collect();
        let seekable = dir.path().join("s.lz4");
        let mut w = SeekableWriter::new(
            Vec::new(),
            &WriteOptions::lz4(Default::default()).chunk_size(16 << 10),
        )
        .unwrap();
        w.write_all(&content).unwrap();
        fs::write(&seekable, w.finish().unwrap().0).unwrap();
        let plain = dir.path().join("p.lz4");
        fs::write(
            &plain,
            lzkit::lz4::frame::compress(&content, &Default::default()),
        )
        .unwrap();

        let plan = |job: &Job, path, regular: bool| {
            let (o, meta) = opened(path);
            job.seek_plan(&o, regular.then_some(&meta), "in")
                .map(|p| p.map(|(_, table)| table.len()))
                .map_err(|f| f.message)
        };
        // -d: through the table of a seekable file, frames in parallel.
        assert_eq!(plan(&job(None, None), &seekable, true), Ok(Some(7)));
        // Not when the entries would not fit the memory limit, nor
        // without a table, nor from a pipe.
        assert_eq!(plan(&job(None, Some(1024)), &seekable, true), Ok(None));
        assert_eq!(plan(&job(None, None), &plain, true), Ok(None));
        assert_eq!(plan(&job(None, None), &seekable, false), Ok(None));
        // --range: always, a file without a table scanned for its frames.
        let range = Some((10, Some(5)));
        assert_eq!(plan(&job(range, None), &seekable, true), Ok(Some(7)));
        assert_eq!(plan(&job(range, None), &plain, true), Ok(Some(1)));
        assert!(
            plan(&job(range, None), &seekable, false)
                .unwrap_err()
                .contains("needs a file")
        );
    }
}
