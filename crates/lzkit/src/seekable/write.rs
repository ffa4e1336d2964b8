//! Writing seekable files: independent frames of one chunk each, then the
//! seek table.

use super::table::{EntryKind, MAX_ENTRY_SIZE, SeekTable, TableFormat};
use super::unit::entry_checksum;
use crate::error::{Error, Result};
use crate::format::{Codec, CodecOptions};
use crate::lz4::frame::{self, BlockSize, FrameOptions};
use crate::pool::{IN_FLIGHT_PER_THREAD, Ordered, effective_threads};
use std::io::{self, Write};

/// The default chunk: 1 MiB of content per frame.
pub const DEFAULT_CHUNK_SIZE: usize = 1 << 20;

/// How to write a seekable file.
///
/// ```
/// use lzkit::lz4::frame::FrameOptions;
/// use lzkit::seekable::WriteOptions;
/// let opts = WriteOptions::lz4(FrameOptions::new().level(9)).chunk_size(256 << 10).threads(2);
/// assert_eq!(opts.get_chunk_size(), 256 << 10);
/// ```
#[derive(Debug, Clone)]
pub struct WriteOptions {
    codec: CodecOptions,
    chunk_size: usize,
    checksums: bool,
    threads: usize,
}

impl WriteOptions {
    /// LZ4 frames with `frame`'s level, checksums and block mode, 1 MiB
    /// chunks, table checksums, one thread. Each frame stores its content
    /// size; its blocks are of the smallest size that holds a chunk, at
    /// most 256 KiB (`MAX_LZ4_BLOCK`: a read of a few bytes decodes one
    /// block), or `frame`'s if smaller.
    pub fn lz4(frame: FrameOptions) -> WriteOptions {
        WriteOptions::new(CodecOptions::Lz4(frame))
    }

    /// zstd frames with `zstd`'s level and checksum flag (its workers are
    /// replaced by [`WriteOptions::threads`], which compress chunks side by
    /// side): the file is in zstd's seekable format.
    #[cfg(feature = "zstd-compress")]
    pub fn zstd(zstd: crate::zstd::FrameOptions) -> WriteOptions {
        WriteOptions::new(CodecOptions::Zstd(zstd))
    }

    /// Frames of `codec` with its options (as [`WriteOptions::lz4`] and,
    /// with the `zstd-compress` feature, `WriteOptions::zstd`), 1 MiB
    /// chunks, table checksums, one thread.
    pub fn new(codec: CodecOptions) -> WriteOptions {
        WriteOptions {
            codec,
            chunk_size: DEFAULT_CHUNK_SIZE,
            checksums: true,
            threads: 1,
        }
    }

    /// The codec of the frames.
    pub fn codec(&self) -> Codec {
        self.codec.codec()
    }

    /// Content bytes per frame (1 byte to 1 GiB; default 1 MiB).
    pub fn chunk_size(mut self, bytes: usize) -> Self {
        self.chunk_size = bytes;
        self
    }

    /// The chunk size set.
    pub fn get_chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// Store a checksum of each chunk in the table (default: yes).
    pub fn checksums(mut self, on: bool) -> Self {
        self.checksums = on;
        self
    }

    /// Threads compressing chunks (0: one per core). The output is the
    /// same for any number.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }

    /// The table's format.
    pub fn format(&self) -> TableFormat {
        match self.codec {
            CodecOptions::Lz4(_) => TableFormat::Lz4,
            #[cfg(feature = "zstd-compress")]
            CodecOptions::Zstd(_) => TableFormat::Zstd,
        }
    }

    /// Check the options.
    ///
    /// # Errors
    /// [`Error::InvalidOptions`]: a chunk size of 0 or over 1 GiB, a
    /// dictionary (frames must decode alone), the LZ4 legacy format, or
    /// LZ4 frame options that are invalid themselves.
    pub fn validate(&self) -> Result<()> {
        if self.chunk_size == 0 || self.chunk_size as u64 > MAX_ENTRY_SIZE {
            return Err(Error::InvalidOptions(
                "the seekable chunk size must be 1 byte to 1 GiB",
            ));
        }
        match &self.codec {
            CodecOptions::Lz4(f) => {
                f.validate()?;
                if f.legacy {
                    return Err(Error::InvalidOptions(
                        "the legacy format has no content sizes nor skippable frames: it cannot be seekable",
                    ));
                }
                if f.dictionary.is_some() || f.dict_id.is_some() {
                    return Err(Error::InvalidOptions(
                        "a seekable file's frames decode alone: no dictionary",
                    ));
                }
            }
            #[cfg(feature = "zstd-compress")]
            CodecOptions::Zstd(z) => {
                if z.has_dictionary() {
                    return Err(Error::InvalidOptions(
                        "a seekable file's frames decode alone: no dictionary",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The largest block in a seekable LZ4 frame: a read decodes one block,
/// not the whole chunk (256 KiB blocks cost about 0.5% of ratio against 1
/// MiB ones, for a quarter of the work per read).
pub const MAX_LZ4_BLOCK: BlockSize = BlockSize::Max256KB;

/// The LZ4 block size of a chunk of `chunk` bytes: the smallest that holds
/// it, at most [`MAX_LZ4_BLOCK`], or `user`'s if that is smaller.
fn lz4_block_size(chunk: usize, user: BlockSize) -> BlockSize {
    let fit = [BlockSize::Max64KB, BlockSize::Max256KB]
        .into_iter()
        .find(|b| b.bytes() >= chunk)
        .unwrap_or(MAX_LZ4_BLOCK);
    if fit.bytes() < user.bytes() {
        fit
    } else {
        user
    }
}

/// One chunk, compressed: the frame, its content length and checksum.
type Done = Result<(Vec<u8>, u32, Option<u32>)>;

fn compress_chunk(codec: &CodecOptions, chunk: &[u8], checksum: bool) -> Done {
    let frame = match codec {
        CodecOptions::Lz4(f) => {
            let opts = f
                .clone()
                .threads(1)
                .content_size(Some(chunk.len() as u64))
                .block_size(lz4_block_size(chunk.len(), f.block_size));
            frame::try_compress(chunk, &opts)?
        }
        #[cfg(feature = "zstd-compress")]
        CodecOptions::Zstd(z) => crate::zstd::compress(chunk, &z.clone().workers(0))?,
    };
    if frame.len() as u64 > u64::from(u32::MAX) {
        return Err(Error::InvalidOptions("a compressed chunk exceeds 4 GiB"));
    }
    // An LZ4 table's checksum covers the frame's bytes (checked before
    // decoding, and without decoding the whole chunk); zstd's format says
    // the decoded bytes.
    let sum = checksum.then(|| match codec {
        CodecOptions::Lz4(_) => entry_checksum(&frame),
        #[cfg(feature = "zstd-compress")]
        CodecOptions::Zstd(_) => entry_checksum(chunk),
    });
    Ok((frame, chunk.len() as u32, sum))
}

/// A seekable file writer: content written to it is cut into chunks, each
/// compressed into a frame of its own (in parallel with
/// [`WriteOptions::threads`]), written in order; [`SeekableWriter::finish`]
/// appends the seek table.
///
/// `lz4 -d` and `zstd -d` decode the result as any other file (the table is
/// a skippable frame); zstd's seekable library reads zstd tables.
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
/// use lzkit::seekable::{SeekableWriter, WriteOptions};
/// use std::io::Write;
///
/// let mut w = SeekableWriter::new(Vec::new(), &WriteOptions::lz4(FrameOptions::new()).chunk_size(4096))?;
/// w.write_all(&[42u8; 10_000])?;
/// let (file, table) = w.finish()?;
/// assert_eq!(table.len(), 3);
/// assert_eq!(frame::decompress(&file)?, vec![42u8; 10_000]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SeekableWriter<W: Write> {
    inner: Option<W>,
    opts: WriteOptions,
    threads: usize,
    chunk: Vec<u8>,
    queue: Ordered<Done>,
    table: SeekTable,
    written: u64,
    /// Whether any chunk was compressed (an empty input still gets one
    /// empty frame, so that `lz4 -d`/`zstd -d` read a frame).
    any: bool,
}

impl<W: Write> SeekableWriter<W> {
    /// A writer into `inner`.
    ///
    /// # Errors
    /// [`Error::InvalidOptions`] (see [`WriteOptions::validate`]).
    pub fn new(inner: W, opts: &WriteOptions) -> Result<Self> {
        opts.validate()?;
        let threads = effective_threads(opts.threads);
        Ok(SeekableWriter {
            inner: Some(inner),
            opts: opts.clone(),
            threads,
            chunk: Vec::new(),
            queue: Ordered::new(threads),
            table: SeekTable::new(opts.format(), opts.checksums),
            written: 0,
            any: false,
        })
    }

    /// Compressed bytes written to the inner writer so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        self.inner
            .as_ref()
            .expect("the writer is present until finish")
    }

    /// Write out finished frames: all of them if `all`, else those ready
    /// (waiting while too many are queued).
    fn drain(&mut self, all: bool) -> io::Result<()> {
        let limit = self.threads * IN_FLIGHT_PER_THREAD;
        loop {
            let wait = all || self.queue.len() >= limit;
            let Some(done) = self.queue.next(wait) else {
                return Ok(());
            };
            let (frame, size, checksum) = done.map_err(Error::into_io)?;
            let inner = self
                .inner
                .as_mut()
                .expect("the writer is present until finish");
            inner.write_all(&frame)?;
            self.table
                .push(
                    self.written,
                    frame.len() as u32,
                    size,
                    checksum,
                    EntryKind::Frame,
                )
                .map_err(Error::into_io)?;
            self.written += frame.len() as u64;
        }
    }

    /// Hand the buffered chunk to the pool.
    fn submit(&mut self) -> io::Result<()> {
        let chunk = std::mem::take(&mut self.chunk);
        let codec = self.opts.codec.clone();
        let checksums = self.opts.checksums;
        self.any = true;
        if self.threads <= 1 {
            self.queue
                .push_ready(compress_chunk(&codec, &chunk, checksums));
        } else {
            self.queue
                .submit(move || compress_chunk(&codec, &chunk, checksums));
        }
        self.drain(false)
    }

    /// Compress what is left, write the table, and return the writer and
    /// the table.
    ///
    /// # Errors
    /// The writer's errors; [`Error::InvalidOptions`] if libzstd refuses
    /// its options.
    pub fn finish(mut self) -> Result<(W, SeekTable)> {
        if !self.chunk.is_empty() || !self.any {
            self.submit().map_err(Error::from_io)?;
        }
        self.drain(true).map_err(Error::from_io)?;
        let mut inner = self
            .inner
            .take()
            .expect("the writer is present until finish");
        inner.write_all(&self.table.to_bytes())?;
        inner.flush()?;
        Ok((
            inner,
            std::mem::replace(&mut self.table, SeekTable::new(TableFormat::Lz4, false)),
        ))
    }
}

impl<W: Write> Write for SeekableWriter<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let total = buf.len();
        while !buf.is_empty() {
            let room = self.opts.chunk_size - self.chunk.len();
            if self.chunk.capacity() == 0 {
                self.chunk
                    .reserve_exact(self.opts.chunk_size.min(total.max(64 << 10)));
            }
            let n = room.min(buf.len());
            self.chunk.extend_from_slice(&buf[..n]);
            buf = &buf[n..];
            if self.chunk.len() == self.opts.chunk_size {
                self.submit()?;
            }
        }
        Ok(total)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain(false)?;
        self.inner.as_mut().map_or(Ok(()), Write::flush)
    }
}

/// Compress `data` into a seekable file in memory.
///
/// # Errors
/// As [`SeekableWriter::new`] and [`SeekableWriter::finish`].
///
/// ```
/// use lzkit::seekable::{self, SeekableReader, WriteOptions};
/// let data = b"seekable ".repeat(10_000);
/// let file = seekable::compress(&data, &WriteOptions::lz4(Default::default()).chunk_size(8192))?;
/// let r = SeekableReader::open(&file[..])?;
/// assert_eq!(r.table().len(), 11);
/// let mut buf = [0u8; 9];
/// r.read_at(9 * 5000, &mut buf)?;
/// assert_eq!(&buf, b"seekable ");
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn compress(data: &[u8], opts: &WriteOptions) -> Result<Vec<u8>> {
    let mut w = SeekableWriter::new(Vec::with_capacity(data.len() / 2 + 64), opts)?;
    w.write_all(data).map_err(Error::from_io)?;
    Ok(w.finish()?.0)
}
