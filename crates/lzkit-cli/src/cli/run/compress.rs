//! Compression: one encoder path for LZ4 and zstd frames (the library's
//! format layer), `--seekable` files, and `recompress`.

use std::fs::Metadata;
use std::io::{self, Read, Write};

use lzkit::filter::{Filter, FilterWriter};
use lzkit::format::{Codec, Encoder, Target as EncodeTarget};

use super::super::formats;
use super::super::output::{BUFFER_SIZE, Sink};
use super::super::progress::Progress;
use super::super::report::Failure;
use super::settings::{describe_frame, describe_zstd, fitted_block_size, zstd_workers};
use super::{Job, sink_failure};

/// `--content-size`: regular files up to this size are read into memory
/// first, so that the size stored is the size read (files in `/proc` and
/// `/sys` report sizes of 0 or 4096); larger files are trusted.
const CONTENT_SIZE_BUFFER: u64 = 16 << 20;

/// The frames one input is compressed to.
struct Frames {
    /// The codec and its settings.
    target: EncodeTarget,
    /// The content size their header states, if any.
    pledged: Option<u64>,
}

impl Job {
    /// Compress `reader` into `sink`: LZ4 or zstd frames through one
    /// encoder (the library's [`lzkit::format::Encoder`]), or a seekable
    /// file. Returns the sink and the bytes read.
    pub(super) fn compress(
        &self,
        reader: Box<dyn Read>,
        meta: Option<&Metadata>,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        if let Some(chunk) = self.opts.seekable {
            return self.compress_seekable(chunk, reader, sink, in_name, out_name, progress);
        }
        // `pledged`: the content size the header states. The bytes read
        // must match it: the command counts them itself, whatever each
        // encoder would say.
        let (Frames { target, pledged }, mut reader) = self.frames_target(reader, meta, in_name)?;
        let codec = target.codec();
        // Write errors are the output's; what the encoder says about the
        // data is the input's.
        let encode_failure = |e: lzkit::Error| match e {
            lzkit::Error::Io(io) => sink_failure(out_name, &io),
            other => Failure::lzkit(in_name, other),
        };
        if let Some(filter) = self.opts.filter {
            return self.compress_filtered(
                filter, reader, sink, &target, pledged, in_name, out_name, progress,
            );
        }
        let mut encoder = Encoder::new(sink, &target).map_err(|e| Failure::lzkit(in_name, e))?;
        let total = pump(
            &mut reader,
            &mut encoder,
            in_name,
            progress,
            pledged,
            |e| encode_failure(lzkit::Error::from_io(e)),
            |e| e.get_ref().written(),
        )?;
        if let Some(expected) = pledged
            && expected != total
        {
            return Err(changed_size(codec, in_name, expected, total));
        }
        let sink = encoder.finish().map_err(encode_failure)?;
        Ok((sink, total))
    }

    /// `--filter`: the filter frame, then the frames of `target` of the
    /// input filtered (as it comes with delta, at the end with shuffle).
    #[allow(clippy::too_many_arguments)]
    fn compress_filtered(
        &self,
        filter: Filter,
        mut reader: Box<dyn Read>,
        mut sink: Sink,
        target: &EncodeTarget,
        pledged: Option<u64>,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        let encode_failure = |e: lzkit::Error| match e {
            lzkit::Error::Io(io) => sink_failure(out_name, &io),
            other => Failure::lzkit(in_name, other),
        };
        self.rep.detail(format!(
            "{in_name}: filter {filter}, recorded in a skippable frame"
        ));
        sink.write_all(&filter.frame())
            .map_err(|e| sink_failure(out_name, &e))?;
        let encoder = Encoder::new(sink, target).map_err(|e| Failure::lzkit(in_name, e))?;
        let mut filtered = FilterWriter::new(encoder, filter);
        let total = pump(
            &mut reader,
            &mut filtered,
            in_name,
            progress,
            pledged,
            |e| encode_failure(lzkit::Error::from_io(e)),
            |e| e.get_ref().get_ref().written(),
        )?;
        if let Some(expected) = pledged
            && expected != total
        {
            return Err(changed_size(target.codec(), in_name, expected, total));
        }
        let encoder = filtered
            .finish()
            .map_err(|e| encode_failure(lzkit::Error::from_io(e)))?;
        let sink = encoder.finish().map_err(encode_failure)?;
        Ok((sink, total))
    }

    /// The frames `reader` is compressed to, with what is known of this
    /// input: LZ4 frames with `--content-size` (and the smallest block
    /// size that holds the input), or zstd frames with the content size
    /// of a regular file (unless `--no-content-size`, as `zstd`) and the
    /// whole `-D` dictionary. Returns them, the content size stored in
    /// the header, and the reader to compress.
    fn frames_target(
        &self,
        mut reader: Box<dyn Read>,
        meta: Option<&Metadata>,
        in_name: &str,
    ) -> Result<(Frames, Box<dyn Read>), Failure> {
        if let Some(zstd) = &self.zstd {
            let mut opts = zstd.clone();
            if self.opts.zstd_content_size {
                let (size, rest) = self.content_size(reader, meta, in_name)?;
                opts = opts.content_size(size);
                reader = rest;
            }
            if self.opts.dictionary.is_some() {
                opts = opts.dictionary(Some(self.whole_dictionary()?));
            }
            self.rep.detail(format!(
                "{in_name}: zstd level {}, {}",
                opts.get_level(),
                describe_zstd(&self.opts, zstd_workers(self.threads))
            ));
            let pledged = opts.get_content_size();
            let target = EncodeTarget::Zstd(opts);
            return Ok((Frames { target, pledged }, reader));
        }
        let mut frame = self.frame.clone();
        if self.opts.content_size && !frame.legacy {
            let (size, rest) = self.content_size(reader, meta, in_name)?;
            frame.content_size = size;
            reader = rest;
        }
        // As lz4: the smallest block size that holds an input of known
        // size, never above the one asked for (-B is a maximum), so that
        // decoders allocate less.
        if !frame.legacy
            && let Some(size) = frame.content_size.or(meta.map(Metadata::len))
        {
            frame.block_size = fitted_block_size(frame.block_size, size);
        }
        self.rep.detail(describe_frame(in_name, &frame));
        let pledged = frame.content_size.filter(|_| !frame.legacy);
        let target = EncodeTarget::Lz4(frame);
        Ok((Frames { target, pledged }, reader))
    }

    /// The seekable output `--seekable` asks for: LZ4 or zstd as
    /// `--format` says, with the level and checksums set.
    pub(super) fn seekable_options(&self) -> lzkit::seekable::WriteOptions {
        use lzkit::seekable::{DEFAULT_CHUNK_SIZE, WriteOptions};
        match &self.zstd {
            Some(zstd) => WriteOptions::zstd(zstd.clone()),
            None => WriteOptions::lz4(self.frame.clone()),
        }
        .chunk_size(self.opts.seekable.unwrap_or(DEFAULT_CHUNK_SIZE))
        // --no-check, --no-frame-crc and --no-crc: no checksums at all.
        .checksums(self.opts.content_checksum)
        .threads(self.threads)
    }

    /// `--seekable`: independent frames of `chunk` bytes each, compressed
    /// on all threads, then the seek table.
    pub(super) fn compress_seekable(
        &self,
        chunk: usize,
        mut reader: Box<dyn Read>,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        let opts = self.seekable_options();
        self.rep.detail(format!(
            "{in_name}: seekable {} in chunks of {chunk} bytes",
            opts.format().name()
        ));
        let mut writer = lzkit::seekable::SeekableWriter::new(sink, &opts).map_err(|e| {
            Failure::new(
                "--seekable",
                match e {
                    lzkit::Error::InvalidOptions(why) => why.to_string(),
                    other => other.to_string(),
                },
            )
        })?;
        let encode_failure = |e: io::Error| match lzkit::Error::from_io(e) {
            lzkit::Error::Io(io) => sink_failure(out_name, &io),
            other => Failure::lzkit(in_name, other),
        };
        let total = pump(
            &mut reader,
            &mut writer,
            in_name,
            progress,
            None,
            encode_failure,
            |w| w.get_ref().written(),
        )?;
        let (sink, table) = writer.finish().map_err(|e| encode_failure(e.into_io()))?;
        self.rep.detail(format!(
            "{in_name}: {} frames, seek table of {} bytes",
            table.len(),
            table.encoded_len()
        ));
        Ok((sink, total))
    }

    /// Recompress `reader` (any format [`lzkit::format::Format`]
    /// knows) into `sink` as `--to` says. Returns the sink and the bytes read.
    pub(super) fn recompress(
        &self,
        reader: Box<dyn Read + Send>,
        sink: Sink,
        in_name: &str,
        out_name: &str,
        progress: &mut Progress,
    ) -> Result<(Sink, u64), Failure> {
        use lzkit::recompress::{RecompressError, RecompressOptions};
        let target = match (&self.zstd, self.opts.seekable) {
            (_, Some(_)) => EncodeTarget::Seekable(self.seekable_options()),
            (Some(zstd), None) => EncodeTarget::Zstd(zstd.clone()),
            (None, None) => EncodeTarget::Lz4(self.frame.clone()),
        };
        let opts = RecompressOptions::new(target)
            .decode_threads(1)
            .window_log_max(self.window_log_max)
            .verify(self.opts.verify);
        let result = lzkit::recompress::recompress_with_progress(reader, sink, &opts, |p| {
            progress.set(p.read, p.written)
        });
        match result {
            Ok((sink, summary)) => {
                if summary.trailing_zeros > 0 {
                    self.rep.warn(format!(
                        "{in_name}: {} zero bytes after the last gzip member ignored (padding, as gzip -d ignores it)",
                        summary.trailing_zeros
                    ));
                }
                self.rep.detail(format!(
                    "{in_name}: {} input, {} bytes of content (XXH64 {:016x}){}",
                    summary.source.name(),
                    summary.content,
                    summary.content_xxh64,
                    if summary.verified {
                        ", output verified"
                    } else {
                        ""
                    }
                ));
                Ok((sink, summary.read))
            }
            // No dictionary hints: recompress takes none.
            Err(RecompressError::Input(e)) => Err(
                match formats::mixed_codecs(&e).or_else(|| formats::window_too_large(&e)) {
                    Some(msg) => Failure::new(in_name, msg),
                    None => Failure::lzkit(in_name, e),
                },
            ),
            Err(RecompressError::Output(lzkit::Error::Io(e))) => Err(sink_failure(out_name, &e)),
            Err(RecompressError::Output(e)) => Err(Failure::lzkit(out_name, e)),
        }
    }

    /// The content size to store for `--content-size`, and the reader to
    /// compress from. A regular file's reported length is trusted only when
    /// large: small files are read into memory first and their real length
    /// stored, because files in `/proc` and `/sys` report a size of 0 or
    /// 4096 whatever they hold. Pipes and devices have no size: the field
    /// is left out, as `lz4` does.
    pub(super) fn content_size(
        &self,
        mut reader: Box<dyn Read>,
        meta: Option<&Metadata>,
        in_name: &str,
    ) -> Result<(Option<u64>, Box<dyn Read>), Failure> {
        let Some(len) = meta.map(Metadata::len) else {
            self.rep
                .detail(format!("{in_name}: size unknown, --content-size ignored"));
            return Ok((None, reader));
        };
        if len > CONTENT_SIZE_BUFFER {
            return Ok((Some(len), reader));
        }
        let mut head = Vec::new();
        (&mut reader)
            .take(CONTENT_SIZE_BUFFER + 1)
            .read_to_end(&mut head)
            .map_err(|e| Failure::io(in_name, &e))?;
        let size = if head.len() as u64 > CONTENT_SIZE_BUFFER {
            // It reported a small size and holds more: no size is known.
            self.rep.warn(format!(
                "{in_name}: reported {len} bytes but holds more; --content-size ignored"
            ));
            None
        } else {
            Some(head.len() as u64)
        };
        Ok((size, Box::new(io::Cursor::new(head).chain(reader))))
    }
}

/// The failure of an input whose size differs from the content size
/// stated in the header (read from its metadata when it was opened): each
/// codec's line, as the command has always worded it.
fn changed_size(codec: Codec, in_name: &str, expected: u64, actual: u64) -> Failure {
    Failure::new(
        in_name,
        match codec {
            Codec::Zstd => {
                "changed size while being compressed; its content size cannot be stored".to_string()
            }
            _ => format!(
                "changed size while being compressed ({expected} bytes when opened, {actual} read); --content-size cannot be stored"
            ),
        },
    )
}

/// Copy `reader` into `encoder` in [`BUFFER_SIZE`] pieces, showing
/// progress (`written` reads the compressed bytes so far); read errors are
/// the input's, write errors go through `encode_failure`. With a `limit`
/// (the content size the header states), bytes past it are counted but
/// not written, so that the caller reports the input's change of size
/// rather than an encoder. Returns the bytes read.
pub(super) fn pump<E: Write>(
    reader: &mut dyn Read,
    encoder: &mut E,
    in_name: &str,
    progress: &mut Progress,
    limit: Option<u64>,
    encode_failure: impl Fn(io::Error) -> Failure,
    written: impl Fn(&E) -> u64,
) -> Result<u64, Failure> {
    let mut buf = vec![0u8; BUFFER_SIZE];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::io(in_name, &e)),
        };
        let room = limit.map_or(n, |l| {
            usize::try_from(l.saturating_sub(total)).unwrap_or(n).min(n)
        });
        encoder.write_all(&buf[..room]).map_err(&encode_failure)?;
        total += n as u64;
        progress.set(total, written(encoder));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::progress::{Progress, ProgressChoice};

    #[test]
    fn pump_stops_writing_at_the_stated_size() {
        let data = vec![7u8; 3 * BUFFER_SIZE + 5];
        for (limit, kept) in [
            (None, data.len()),
            (Some(10), 10),
            (Some(1 << 40), data.len()),
        ] {
            let mut out = Vec::new();
            let mut progress = Progress::new(ProgressChoice::Never, "in", None, true);
            let read = pump(
                &mut &data[..],
                &mut out,
                "in",
                &mut progress,
                limit,
                |e| Failure::io("out", &e),
                |o| o.len() as u64,
            )
            .unwrap();
            assert_eq!((read, out.len()), (data.len() as u64, kept));
        }
    }

    #[test]
    fn a_change_of_size_is_the_inputs() {
        let lz4 = changed_size(Codec::Lz4, "in", 5, 7);
        assert_eq!(lz4.subject, "in");
        assert_eq!(
            lz4.message,
            "changed size while being compressed (5 bytes when opened, 7 read); --content-size cannot be stored"
        );
        assert_eq!(
            changed_size(Codec::Zstd, "in", 5, 7).message,
            "changed size while being compressed; its content size cannot be stored"
        );
    }
}
