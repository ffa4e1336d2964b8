//! Writing frames: [`FrameEncoder`] cuts its input into jobs (see
//! [`MIN_JOB_SIZE`]), each a whole number of blocks, compresses them (on the
//! calling thread, or in parallel on a pool of workers) and writes them in
//! order. The one-shot [`compress`] is the encoder over a vector.
//!
//! A job is compressed by one function, [`Plan::compress_range`], whatever
//! the thread count, and a job's input (with, in linked mode, the 64 KiB of
//! input before it as history) is all it depends on; so the output is
//! byte-identical for every thread count. The serial path runs the same
//! function on each block as soon as it is full, which keeps its output as
//! prompt as block-by-block streaming.

use super::header::{BLOCK_STORED_FLAG, Header};
use super::{BlockMode, FrameOptions, LEGACY_BLOCK_SIZE, LEGACY_MAGIC, MIN_JOB_SIZE};
use crate::error::{Error, Result};
use crate::lz4::block::{Compressor, MAX_DISTANCE, max_compressed_size};
use crate::pool::{IN_FLIGHT_PER_THREAD, Ordered, Pool, effective_threads};
use std::io::{self, Write};
use std::sync::{Arc, Mutex, PoisonError};
use xxhash_rust::xxh32::{Xxh32, xxh32};

/// Bytes of a block size word, and of a block checksum.
const WORD: usize = 4;
/// History a linked job starts from: as far back as a match can reach.
const HISTORY: usize = MAX_DISTANCE;

/// Compress `src` into one frame (or a legacy stream if `opts.legacy`).
/// If `opts.content_size` is set, the header records `src.len()`.
///
/// # Panics
/// If the options cannot be used together ([`FrameOptions::validate`]);
/// [`try_compress`] returns that error instead.
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
///
/// let data = b"one frame, readable by the lz4 command. ".repeat(100);
/// let packed = frame::compress(&data, &FrameOptions::new().level(9));
/// assert_eq!(frame::decompress(&packed)?, data);
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn compress(src: &[u8], opts: &FrameOptions) -> Vec<u8> {
    try_compress(src, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// [`compress`], returning [`Error::InvalidOptions`] for options that
/// cannot be used together instead of panicking.
///
/// ```
/// use lzkit::lz4::frame::{self, BlockMode, FrameOptions};
///
/// let bad = FrameOptions::new().legacy(true).block_mode(BlockMode::Linked);
/// assert!(frame::try_compress(b"data", &bad).is_err());
/// let good = FrameOptions::new().legacy(true);
/// assert_eq!(frame::decompress(&frame::try_compress(b"data", &good)?)?, b"data");
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn try_compress(src: &[u8], opts: &FrameOptions) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    try_compress_to(src, opts, &mut out)?;
    Ok(out)
}

/// [`try_compress`] into `out`, replacing its contents and reusing its
/// memory: a caller compressing one input after another (a server's
/// replies, a binding that copies each frame out) keeps one buffer
/// mapped instead of a fresh one (and its page faults) per frame.
///
/// ```
/// use lzkit::lz4::frame::{self, FrameOptions};
///
/// let mut buf = Vec::new();
/// for part in [&b"one reply"[..], b"and another"] {
///     frame::try_compress_to(part, &FrameOptions::new(), &mut buf)?;
///     assert_eq!(frame::decompress(&buf)?, part);
/// }
/// # Ok::<(), lzkit::Error>(())
/// ```
pub fn try_compress_to(src: &[u8], opts: &FrameOptions, out: &mut Vec<u8>) -> Result<()> {
    opts.validate()?;
    out.clear();
    let mut opts = opts.clone();
    if opts.content_size.is_some() {
        opts.content_size = Some(src.len() as u64);
    }
    let threads = effective_threads(opts.threads);
    if !opts.legacy && opts.dictionary.is_none() {
        let job_size = MIN_JOB_SIZE.max(opts.block_size.bytes());
        if threads == 1 || src.len() <= job_size {
            compress_serial(src, &opts, out);
            return Ok(());
        }
        if compress_parallel(src, &opts, threads, out) {
            return Ok(());
        }
    }
    out.reserve(src.len() / 2 + 64);
    let mut enc = FrameEncoder::new(out, &opts);
    let written = enc.write_all(src).and_then(|()| enc.finish().map(|_| ()));
    // Writing to a Vec cannot fail, and the content size is right by construction.
    debug_assert!(written.is_ok());
    drop(written);
    Ok(())
}

/// The header a frame with `opts` starts with.
fn frame_header(opts: &FrameOptions) -> Header {
    Header {
        block_size: opts.block_size,
        block_mode: opts.block_mode,
        block_checksum: opts.block_checksum,
        content_checksum: opts.content_checksum,
        content_size: opts.content_size,
        dict_id: opts.dict_id,
    }
}

/// One-shot compression on the calling thread, without a dictionary: the
/// jobs and blocks of [`FrameEncoder`] (so the same bytes), compressed from
/// `src` itself straight after the header, without copying the input into
/// job buffers or the output out of them. `dst` (empty) is the output,
/// its memory reused.
fn compress_serial(src: &[u8], opts: &FrameOptions, dst: &mut Vec<u8>) {
    let plan = Plan::new(opts);
    let mut w = plan.worker();
    // Room for the worst case up front: growing the vector would copy what
    // is written at every doubling (pages are touched only as written).
    let blocks = src.len().div_ceil(plan.block_max).max(1);
    let bound = max_compressed_size(src.len())
        .saturating_add(blocks.saturating_mul(3 * WORD + 16))
        .saturating_add(32);
    let mut header = std::mem::take(dst);
    header.reserve(bound);
    frame_header(opts).write(&mut header);
    let mut out = Output {
        len: header.len(),
        buf: header,
    };
    let job_size = MIN_JOB_SIZE.max(plan.block_max);
    let mut start = 0;
    while start < src.len() {
        let end = src.len().min(start + job_size);
        // In linked mode a job starts from the 64 KiB before it.
        let history = if plan.linked { start.min(HISTORY) } else { 0 };
        let job = &src[start - history..end];
        let done = plan.compress_range(&mut w, job, history, history, job.len(), &mut out);
        // Compressing into a vector cannot fail.
        debug_assert!(done.is_ok());
        start = end;
    }
    let mut out_buf = out.buf;
    out_buf.truncate(out.len);
    out_buf.extend_from_slice(&0u32.to_le_bytes());
    if opts.content_checksum {
        out_buf.extend_from_slice(&xxh32(src, 0).to_le_bytes());
    }
    *dst = out_buf;
}

/// One-shot compression on a pool of `threads` workers, without a
/// dictionary: [`compress_serial`]'s jobs (so the same bytes), each
/// compressed from `src` itself into its own buffer, and the buffers put
/// together in order into `out` (empty; its memory reused); the content
/// checksum is computed beside them. `false` if no pool could be started.
fn compress_parallel(src: &[u8], opts: &FrameOptions, threads: usize, out: &mut Vec<u8>) -> bool {
    let Some(pool) = Pool::new(threads) else {
        return false;
    };
    let plan = Plan::new(opts);
    let job_size = MIN_JOB_SIZE.max(plan.block_max);
    let jobs = src.len().div_ceil(job_size);
    let outputs: Vec<Mutex<Output>> = (0..jobs).map(|_| Mutex::new(Output::default())).collect();
    let spare: Mutex<Vec<Worker>> = Mutex::new(Vec::new());
    let mut checksum = None;
    pool.in_place_scope(|s| {
        if opts.content_checksum {
            let checksum = &mut checksum;
            s.spawn(move || *checksum = Some(xxh32(src, 0)));
        }
        for (i, slot) in outputs.iter().enumerate() {
            let (plan, spare) = (&plan, &spare);
            s.spawn(move || {
                let start = i * job_size;
                let end = src.len().min(start + job_size);
                let history = if plan.linked { start.min(HISTORY) } else { 0 };
                let job = &src[start - history..end];
                let taken = spare.lock().unwrap_or_else(PoisonError::into_inner).pop();
                let mut w = taken.unwrap_or_else(|| plan.worker());
                let mut out = slot.lock().unwrap_or_else(PoisonError::into_inner);
                let n = job.len() - history;
                out.buf
                    .reserve(max_compressed_size(n) + n.div_ceil(plan.block_max) * (2 * WORD));
                let done = plan.compress_range(&mut w, job, history, history, job.len(), &mut out);
                // Compressing into a vector cannot fail.
                debug_assert!(done.is_ok());
                spare.lock().unwrap_or_else(PoisonError::into_inner).push(w);
            });
        }
    });
    let mut header = Vec::new();
    frame_header(opts).write(&mut header);
    let outputs: Vec<Output> = outputs
        .into_iter()
        .map(|o| o.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect();
    let total = header.len() + outputs.iter().map(|o| o.len).sum::<usize>() + 2 * WORD;
    out.reserve(total);
    out.extend_from_slice(&header);
    for o in &outputs {
        out.extend_from_slice(&o.buf[..o.len]);
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    if let Some(sum) = checksum {
        out.extend_from_slice(&sum.to_le_bytes());
    }
    true
}

/// How every job cuts and compresses its blocks (shared by the workers).
struct Plan {
    level: i32,
    /// Levels 10 to 12: avoid matches slow to decode.
    favor_dec_speed: bool,
    block_max: usize,
    /// Linked blocks: each block continues from the job's earlier input.
    linked: bool,
    /// Legacy format: no stored blocks, no block checksums.
    legacy: bool,
    block_checksum: bool,
    /// Independent mode: the dictionary's last 64 KiB, the history of every
    /// block (linked mode puts it in the first job's prefix instead).
    dict: Vec<u8>,
}

/// A compressor and its scratch space: what one job runs on.
struct Worker {
    compressor: Compressor,
    /// Independent blocks with a dictionary: the dictionary, then the block.
    scratch: Vec<u8>,
}

/// Compressed blocks of one job: `buf[..len]`. `buf` keeps its length
/// between uses, so it is zero-filled once rather than per block.
#[derive(Default)]
struct Output {
    buf: Vec<u8>,
    len: usize,
}

/// A job's input: `buf[..prefix]` is history (linked mode: the input before
/// the job, at most 64 KiB, or the dictionary), `buf[prefix..]` its input.
struct JobInput {
    buf: Vec<u8>,
    prefix: usize,
}

impl JobInput {
    fn input_len(&self) -> usize {
        self.buf.len() - self.prefix
    }
}

/// Everything a job owns while a pool worker runs it, handed back after.
struct JobCtx {
    input: JobInput,
    worker: Worker,
    out: Output,
    result: io::Result<()>,
}

impl Plan {
    fn new(opts: &FrameOptions) -> Plan {
        let dict = match (&opts.dictionary, opts.legacy) {
            (Some(d), false) => d[d.len().saturating_sub(HISTORY)..].to_vec(),
            _ => Vec::new(),
        };
        Plan {
            level: opts.level,
            favor_dec_speed: opts.favor_dec_speed,
            block_max: if opts.legacy {
                LEGACY_BLOCK_SIZE
            } else {
                opts.block_size.bytes()
            },
            linked: !opts.legacy && opts.block_mode == BlockMode::Linked,
            legacy: opts.legacy,
            block_checksum: opts.block_checksum && !opts.legacy,
            dict,
        }
    }

    fn worker(&self) -> Worker {
        let mut compressor = Compressor::new(self.level);
        compressor.set_favor_dec_speed(self.favor_dec_speed);
        Worker {
            compressor,
            scratch: Vec::new(),
        }
    }

    /// Compress `buf[from..to]` as blocks of the job whose input starts at
    /// `prefix`, appending them (size word, data, checksum) to `out`.
    /// `from` must be a block boundary of the job (`prefix` plus a multiple
    /// of the block size); `to` ends the last block, which may be short only
    /// where the job ends.
    fn compress_range(
        &self,
        w: &mut Worker,
        buf: &[u8],
        prefix: usize,
        from: usize,
        to: usize,
        out: &mut Output,
    ) -> io::Result<()> {
        let mut start = from;
        while start < to {
            let end = to.min(start + self.block_max);
            self.compress_block(w, buf, prefix, start, end, out)?;
            start = end;
        }
        Ok(())
    }

    /// One block: `buf[start..end]`.
    fn compress_block(
        &self,
        w: &mut Worker,
        buf: &[u8],
        prefix: usize,
        start: usize,
        end: usize,
        out: &mut Output,
    ) -> io::Result<()> {
        let n = end - start;
        let bound = max_compressed_size(n);
        let at = out.len;
        if out.buf.len() < at + WORD + bound + WORD {
            out.buf.resize(at + WORD + bound + WORD, 0);
        }
        let dst = &mut out.buf[at + WORD..at + WORD + bound];
        let result = if self.linked {
            if start == prefix {
                // A job starts from its prefix alone, so it depends on
                // nothing but its own input.
                w.compressor.load_history(&buf[..prefix], prefix);
            }
            w.compressor.compress_next(&buf[..end], start, dst)
        } else if self.dict.is_empty() {
            w.compressor.compress_block(&buf[start..end], 0, dst)
        } else {
            w.scratch.clear();
            w.scratch.extend_from_slice(&self.dict);
            w.scratch.extend_from_slice(&buf[start..end]);
            w.compressor
                .compress_block(&w.scratch, self.dict.len(), dst)
        };
        let csize = result.map_err(Error::into_io)?;
        let (word, mut len) = if csize >= n && !self.legacy {
            // Frame spec: a block may not exceed the block maximum, so data
            // that does not compress is stored.
            out.buf[at + WORD..at + WORD + n].copy_from_slice(&buf[start..end]);
            (n as u32 | BLOCK_STORED_FLAG, n)
        } else {
            (csize as u32, csize)
        };
        out.buf[at..at + WORD].copy_from_slice(&word.to_le_bytes());
        len += WORD;
        if self.block_checksum {
            let sum = xxh32(&out.buf[at + WORD..at + len], 0);
            out.buf[at + len..at + len + WORD].copy_from_slice(&sum.to_le_bytes());
            len += WORD;
        }
        out.len = at + len;
        Ok(())
    }

    /// Compress a whole job (the function pool workers run).
    fn compress_job(&self, mut ctx: JobCtx) -> JobCtx {
        ctx.out.len = 0;
        let JobInput { buf, prefix } = &ctx.input;
        ctx.result = self.compress_range(
            &mut ctx.worker,
            buf,
            *prefix,
            *prefix,
            buf.len(),
            &mut ctx.out,
        );
        ctx
    }
}

/// The parallel path: jobs running on a pool, and what they hand back for
/// reuse.
struct Pipeline {
    jobs: Ordered<JobCtx>,
    /// Jobs allowed in flight (memory: about this many jobs' input and
    /// output).
    max_in_flight: usize,
    spare_inputs: Vec<Vec<u8>>,
    spare_workers: Vec<Worker>,
    spare_outputs: Vec<Output>,
}

/// Streaming frame writer. Data written is compressed job by job (see
/// [`MIN_JOB_SIZE`]); with [`FrameOptions::threads`] other than 1, jobs are
/// compressed in parallel and written in order, with at most about two jobs
/// per thread held in memory. Call [`FrameEncoder::finish`] to write the
/// end mark and checksum (dropping the encoder without it leaves an
/// unterminated frame), or let [`FrameEncoder::auto_finish`] do it on drop.
///
/// ```
/// use lzkit::lz4::frame::{self, FrameEncoder, FrameOptions};
/// use std::io::Write;
///
/// let mut enc = FrameEncoder::new(Vec::new(), &FrameOptions::new().level(9));
/// for line in 0..1000 {
///     writeln!(enc, "line {line} of a streamed log")?;
/// }
/// let packed = enc.finish()?;
/// assert!(frame::decompress(&packed)?.starts_with(b"line 0 of"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FrameEncoder<W: Write> {
    inner: Option<W>,
    /// Options that cannot be used together: every write fails with this.
    invalid: Option<&'static str>,
    opts: FrameOptions,
    plan: Arc<Plan>,
    /// Input per job: a whole number of blocks.
    job_size: usize,
    /// The job being filled.
    job: JobInput,
    /// Serial path: end of the part of `job.buf` already compressed.
    compressed: usize,
    /// Compresses on the calling thread: every job of the serial path, and
    /// jobs ended by `flush`/`finish` before the parallel path started.
    worker: Option<Worker>,
    /// Compressed blocks waiting to be written (serial path).
    out: Output,
    /// Worker threads asked for (resolved: at least 1).
    threads: usize,
    /// The parallel path, started when the first full job is submitted.
    pipeline: Option<Pipeline>,
    hasher: Option<Xxh32>,
    header_written: bool,
    total_in: u64,
}

impl<W: Write> FrameEncoder<W> {
    /// Start a frame on `inner` with `opts`. The header is written with the
    /// first block (or at [`FrameEncoder::finish`] for empty input). Options
    /// that cannot be used together ([`FrameOptions::validate`]) make every
    /// write, flush and finish fail with [`Error::InvalidOptions`];
    /// [`FrameEncoder::try_new`] reports them at once.
    pub fn new(inner: W, opts: &FrameOptions) -> Self {
        let plan = Plan::new(opts);
        let job_size = MIN_JOB_SIZE.max(plan.block_max);
        let mut buf = Vec::new();
        if plan.linked {
            // The dictionary is the first job's history.
            let dict = opts.dictionary.as_deref().unwrap_or_default();
            buf.extend_from_slice(&dict[dict.len().saturating_sub(HISTORY)..]);
        }
        let prefix = buf.len();
        FrameEncoder {
            inner: Some(inner),
            invalid: match opts.validate() {
                Err(Error::InvalidOptions(why)) => Some(why),
                _ => None,
            },
            opts: opts.clone(),
            plan: Arc::new(plan),
            job_size,
            job: JobInput { buf, prefix },
            compressed: prefix,
            worker: None,
            out: Output::default(),
            threads: effective_threads(opts.threads),
            pipeline: None,
            hasher: (opts.content_checksum && !opts.legacy).then(|| Xxh32::new(0)),
            header_written: false,
            total_in: 0,
        }
    }

    /// [`FrameEncoder::new`], or [`Error::InvalidOptions`] if the options
    /// cannot be used together.
    ///
    /// ```
    /// use lzkit::lz4::frame::{FrameEncoder, FrameOptions};
    ///
    /// let bad = FrameOptions::new().legacy(true).block_checksum(true);
    /// assert!(FrameEncoder::try_new(Vec::new(), &bad).is_err());
    /// ```
    pub fn try_new(inner: W, opts: &FrameOptions) -> Result<Self> {
        opts.validate()?;
        Ok(Self::new(inner, opts))
    }

    /// Fail if the options were invalid.
    fn check_options(&self) -> io::Result<()> {
        match self.invalid {
            Some(why) => Err(Error::InvalidOptions(why).into_io()),
            None => Ok(()),
        }
    }

    fn writer(&mut self) -> &mut W {
        self.inner.as_mut().expect("FrameEncoder used after finish")
    }

    fn write_header(&mut self) -> io::Result<()> {
        if self.header_written {
            return Ok(());
        }
        self.header_written = true;
        let mut h = Vec::with_capacity(19);
        if self.opts.legacy {
            h.extend_from_slice(&LEGACY_MAGIC.to_le_bytes());
        } else {
            frame_header(&self.opts).write(&mut h);
        }
        self.writer().write_all(&h)
    }

    /// Write compressed blocks (after the header).
    fn emit(&mut self, out: &Output) -> io::Result<()> {
        self.write_header()?;
        self.writer().write_all(&out.buf[..out.len])
    }

    fn serial(&self) -> bool {
        self.threads == 1
    }

    /// Serial path: compress `job.buf[compressed..to]` and write it.
    fn compress_here(&mut self, to: usize) -> io::Result<()> {
        if to <= self.compressed {
            return Ok(());
        }
        let mut w = self.worker.take().unwrap_or_else(|| self.plan.worker());
        let mut out = std::mem::take(&mut self.out);
        out.len = 0;
        let from = self.compressed;
        let r =
            self.plan
                .compress_range(&mut w, &self.job.buf, self.job.prefix, from, to, &mut out);
        self.worker = Some(w);
        let r = r.and_then(|()| self.emit(&out));
        self.out = out;
        self.compressed = to;
        r
    }

    /// The history the job after the current one starts from: in linked
    /// mode the last 64 KiB of everything before it (dictionary and input).
    fn next_history(&self) -> usize {
        if self.plan.linked {
            self.job.buf.len().min(HISTORY)
        } else {
            0
        }
    }

    /// End the current job (full, or cut short by `flush`/`finish`): compress
    /// it here or hand it to the pool, and start the next one. `more` says
    /// that more input follows, which makes starting the pool worthwhile;
    /// otherwise (`flush`/`finish`), a job ended before the pool has been
    /// started is compressed here.
    fn end_job(&mut self, more: bool) -> io::Result<()> {
        if self.job.input_len() == 0 {
            return Ok(());
        }
        if self.pipeline.is_none() && !self.serial() && more {
            self.pipeline = Some(Pipeline {
                jobs: Ordered::new(self.threads),
                max_in_flight: self.threads * IN_FLIGHT_PER_THREAD,
                spare_inputs: Vec::new(),
                spare_workers: Vec::new(),
                spare_outputs: Vec::new(),
            });
        }
        let keep = self.next_history();
        let Some(p) = &mut self.pipeline else {
            self.compress_here(self.job.buf.len())?;
            // The next job reuses the buffer, starting from its history.
            let len = self.job.buf.len();
            self.job.buf.copy_within(len - keep.., 0);
            self.job.buf.truncate(keep);
            self.job.prefix = keep;
            self.compressed = keep;
            return Ok(());
        };
        let mut buf = p.spare_inputs.pop().unwrap_or_default();
        let worker = p.spare_workers.pop();
        let out = p.spare_outputs.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(&self.job.buf[self.job.buf.len() - keep..]);
        let input = std::mem::replace(&mut self.job, JobInput { buf, prefix: keep });
        self.compressed = keep;
        let plan = Arc::clone(&self.plan);
        let ctx = JobCtx {
            input,
            worker: worker.unwrap_or_else(|| plan.worker()),
            out,
            result: Ok(()),
        };
        p.jobs.submit(move || plan.compress_job(ctx));
        self.drain(false)
    }

    /// Write finished jobs in order: those already done, and then, if there
    /// are too many in flight (or `all`), wait for the oldest.
    fn drain(&mut self, all: bool) -> io::Result<()> {
        loop {
            let Some(p) = &mut self.pipeline else {
                return Ok(());
            };
            let wait = if all {
                p.jobs.len() > 0
            } else {
                p.jobs.len() >= p.max_in_flight
            };
            let Some(ctx) = p.jobs.next(wait) else {
                return Ok(());
            };
            let JobCtx {
                input,
                worker,
                out,
                result,
            } = ctx;
            p.spare_inputs.push(input.buf);
            p.spare_workers.push(worker);
            let written = result.and_then(|()| self.emit(&out));
            if let Some(p) = &mut self.pipeline {
                p.spare_outputs.push(out);
            }
            written?;
        }
    }

    /// Flush the last block, write the end mark (and content checksum), and
    /// return the writer. Fails if `content_size` was set and differs from
    /// the number of bytes written.
    pub fn finish(mut self) -> io::Result<W> {
        self.check_options()?;
        self.end_job(false)?;
        self.drain(true)?;
        self.write_header()?;
        let total = self.total_in;
        if let Some(expected) = self.opts.content_size
            && expected != total
            && !self.opts.legacy
        {
            return Err(Error::ContentSize {
                expected,
                actual: total,
            }
            .into_io());
        }
        if !self.opts.legacy {
            let mut tail = 0u32.to_le_bytes().to_vec();
            if let Some(h) = &self.hasher {
                tail.extend_from_slice(&h.digest().to_le_bytes());
            }
            self.writer().write_all(&tail)?;
        }
        let mut w = self.inner.take().expect("finish called once");
        w.flush()?;
        Ok(w)
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        self.inner.as_ref().expect("FrameEncoder used after finish")
    }

    /// The underlying writer, mutably. Writing to it directly corrupts the
    /// frame being written.
    pub fn get_mut(&mut self) -> &mut W {
        self.writer()
    }

    /// The underlying writer, without finishing the frame: what was written
    /// so far is an unterminated frame (input still buffered is dropped).
    /// Use [`FrameEncoder::finish`] to end the frame.
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, FrameEncoder, FrameOptions};
    /// use std::io::Write;
    ///
    /// let mut enc = FrameEncoder::new(Vec::new(), &FrameOptions::new());
    /// enc.write_all(b"abandoned")?;
    /// enc.flush()?; // header and block written, no end mark
    /// assert!(!enc.get_ref().is_empty());
    /// let partial = enc.into_inner();
    /// assert!(frame::decompress(&partial).is_err());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(mut self) -> W {
        self.inner.take().expect("FrameEncoder used after finish")
    }

    /// Wrap the encoder so that dropping it finishes the frame (errors are
    /// then lost: call [`AutoFinishEncoder::finish`] to see them). Handy
    /// where the writer is passed around as a `Box<dyn Write>`.
    ///
    /// ```
    /// use lzkit::lz4::frame::{self, FrameEncoder, FrameOptions};
    /// use std::io::Write;
    ///
    /// let mut packed = Vec::new();
    /// {
    ///     let mut w: Box<dyn Write + '_> =
    ///         Box::new(FrameEncoder::new(&mut packed, &FrameOptions::new()).auto_finish());
    ///     w.write_all(b"finished when dropped")?;
    /// }
    /// assert_eq!(frame::decompress(&packed)?, b"finished when dropped");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn auto_finish(self) -> AutoFinishEncoder<W> {
        AutoFinishEncoder::new(self)
    }
}

/// A [`FrameEncoder`] that finishes its frame when dropped. Made by
/// [`FrameEncoder::auto_finish`].
pub type AutoFinishEncoder<W> = crate::encoder::AutoFinishEncoder<FrameEncoder<W>>;

crate::encoder::frame_write_by_inherent_methods!(FrameEncoder);

impl<W: Write> Write for FrameEncoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check_options()?;
        if buf.is_empty() {
            return Ok(0);
        }
        if self.job.input_len() == self.job_size {
            // A full job ends when more input comes (not when it fills), so
            // input of exactly one job is compressed here at `finish`,
            // without starting threads.
            self.end_job(true)?;
        }
        let room = self.job_size - self.job.input_len();
        let n = buf.len().min(room);
        let data = &buf[..n];
        // The content checksum is computed once, serially, as input arrives.
        if let Some(h) = &mut self.hasher {
            h.update(data);
        }
        self.job.buf.extend_from_slice(data);
        self.total_in += n as u64;
        if self.serial() {
            // Compress each block as soon as it is full.
            let full = self.job.input_len() / self.plan.block_max * self.plan.block_max;
            self.compress_here(self.job.prefix + full)?;
        }
        Ok(n)
    }

    /// Compress what is buffered as a (possibly short) block, ending the
    /// current job, write every job still in flight, and flush the
    /// underlying writer.
    fn flush(&mut self) -> io::Result<()> {
        self.check_options()?;
        self.end_job(false)?;
        self.drain(true)?;
        self.write_header()?;
        self.writer().flush()
    }
}
