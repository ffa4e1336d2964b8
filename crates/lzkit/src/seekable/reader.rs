//! [`SeekableReader`]: random access through the seek table.

use super::head::check_head;
use super::scan;
use super::source::{Locked, ReadAt};
use super::table::SeekTable;
use super::unit::{decode_piece, read_entry, streamed};
use crate::error::{Error, Result};
use crate::pool::effective_threads;
use std::collections::BTreeMap;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::Condvar;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// How a [`SeekableReader`] opens a file and reads it.
///
/// ```
/// use lzkit::seekable::ReaderOptions;
/// let opts = ReaderOptions::new()
///     .scan(false)
///     .cache_entries(2)
///     .verify_checksums(true)
///     .memory_limit(64 << 20);
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReaderOptions {
    scan: bool,
    cache_entries: usize,
    verify: bool,
    memory: u64,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions::new()
    }
}

impl ReaderOptions {
    /// Scan a file without a table (default: yes), a cache of 4 decoded
    /// pieces, checksums verified, memory limited to
    /// [`ReaderOptions::DEFAULT_MEMORY`].
    pub const fn new() -> Self {
        ReaderOptions {
            scan: true,
            cache_entries: 4,
            verify: true,
            memory: Self::DEFAULT_MEMORY,
        }
    }

    /// The default of [`ReaderOptions::memory_limit`]: 256 MiB.
    pub const DEFAULT_MEMORY: u64 = 256 << 20;

    /// The most memory the seek table may take once read (a larger one is
    /// refused: [`crate::Error::SeekTable`]), and the most decoded and
    /// compressed bytes [`SeekableReader::decode_all`] holds at once (but
    /// always one job: entries of more than the limit are decoded one at
    /// a time).
    pub const fn memory_limit(mut self, bytes: u64) -> Self {
        self.memory = bytes;
        self
    }

    /// A file without a seek table: build one in memory by reading the
    /// whole file once (`true`, default), or fail with
    /// [`Error::NotSeekable`] (`false`).
    pub const fn scan(mut self, on: bool) -> Self {
        self.scan = on;
        self
    }

    /// How many decoded pieces to keep (at least 1): whole entries, or
    /// single blocks of LZ4 frames (a read decodes only the block it needs
    /// where the table's checksum covers the frame's bytes).
    pub const fn cache_entries(mut self, n: usize) -> Self {
        self.cache_entries = if n == 0 { 1 } else { n };
        self
    }

    /// Check each decoded entry's checksum: the table's if it has them,
    /// else the frame's own (default: yes). Decoded sizes are always
    /// checked.
    pub const fn verify_checksums(mut self, on: bool) -> Self {
        self.verify = on;
        self
    }
}

/// Decoded entries, most recently used last.
struct Cache {
    /// Entry index, where the decoded part starts in the entry (0 for a
    /// whole entry; a block's start for one block of an LZ4 frame), the
    /// decoded bytes.
    slots: Vec<(usize, u64, Arc<Vec<u8>>)>,
    /// Buffers of evicted entries nobody holds any more, for reuse.
    spare: Vec<Vec<u8>>,
    /// Buffers for compressed bytes, for reuse (a fresh one costs a page
    /// fault per 4 KiB).
    comp: Vec<Vec<u8>>,
    /// The bytes of the entry read last, checked: the next block of the
    /// same LZ4 frame is decoded from them without reading or checking
    /// them again.
    checked: Option<(usize, Vec<u8>)>,
}

/// Random access to the decoded content of an LZ4 or zstd file with a seek
/// table: only the entries a read touches are decoded, and a few are kept.
///
/// * [`SeekableReader::read_at`] takes `&self`: many threads may read at
///   once (a [`std::fs::File`] source reads with `pread`, no shared
///   position).
/// * It is also a [`Read`] + [`Seek`] of the decoded content.
/// * [`SeekableReader::decode_all`] decodes everything on all cores, in
///   order.
///
/// Every entry decoded is checked against the table: its decoded size, and
/// its checksum ([`ReaderOptions::verify_checksums`]).
///
/// ```
/// use lzkit::seekable::{self, SeekableReader, WriteOptions};
/// use std::io::{Read, Seek, SeekFrom};
///
/// let data: Vec<u8> = (0..300_000u32).flat_map(|i| (i % 977).to_le_bytes()).collect();
/// let file = seekable::compress(&data, &WriteOptions::lz4(Default::default()).chunk_size(64 << 10))?;
/// let reader = SeekableReader::open(&file[..])?;
/// let mut buf = [0u8; 100];
/// assert_eq!(reader.read_at(500_000, &mut buf)?, 100);
/// assert_eq!(&buf[..], &data[500_000..500_100]);
///
/// let mut reader = reader;
/// reader.seek(SeekFrom::End(-10))?;
/// let mut tail = Vec::new();
/// reader.read_to_end(&mut tail)?;
/// assert_eq!(tail, &data[data.len() - 10..]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SeekableReader<S> {
    src: S,
    table: Arc<SeekTable>,
    scanned: bool,
    opts: ReaderOptions,
    cache: Mutex<Cache>,
    /// Entries `..n` were checked against their frames' headers: a read
    /// checks the entries before the one it decodes, whose sizes place its
    /// content.
    heads_checked: Mutex<usize>,
    pos: u64,
}

impl<S: ReadAt> SeekableReader<S> {
    /// Open `src` with the default [`ReaderOptions`]: its seek table, or a
    /// scan of the whole file if it has none.
    ///
    /// # Errors
    /// [`Error::SeekTable`] for a corrupt table; [`Error::NotSeekable`] if
    /// the file has no table and cannot be read at random (see
    /// [`super::build_table`]); I/O errors.
    pub fn open(src: S) -> Result<Self> {
        Self::with_options(src, ReaderOptions::new())
    }

    /// Open `src` with `opts`.
    ///
    /// # Errors
    /// As [`SeekableReader::open`]; with [`ReaderOptions::scan`] off, a file
    /// without a table is [`Error::NotSeekable`].
    pub fn with_options(src: S, opts: ReaderOptions) -> Result<Self> {
        let len = src.size()?;
        let (table, scanned) = match SeekTable::read_from_with_limit(&src, len, opts.memory)? {
            Some(t) => (t, false),
            None if opts.scan => (scan::build_table(&src, len, true)?, true),
            None => {
                return Err(Error::NotSeekable {
                    reason:
                        "the file has no seek table at its end (add one with `lzkit index FILE`)"
                            .into(),
                });
            }
        };
        Ok(Self::with_table(src, table, scanned, opts))
    }

    /// A reader of `src` with a table known already (from
    /// [`super::build_table`], [`SeekTable::read_from`] or an earlier
    /// reader). The table is not checked against `src` again (those were);
    /// reads still check the headers of the entries they depend on and
    /// every entry they decode.
    pub fn with_table(src: S, table: SeekTable, scanned: bool, opts: ReaderOptions) -> Self {
        SeekableReader {
            src,
            table: Arc::new(table),
            scanned,
            opts,
            cache: Mutex::new(Cache {
                slots: Vec::new(),
                spare: Vec::new(),
                comp: Vec::new(),
                checked: None,
            }),
            heads_checked: Mutex::new(0),
            pos: 0,
        }
    }

    /// The seek table.
    pub fn table(&self) -> &SeekTable {
        &self.table
    }

    /// Whether the table was built by scanning the file (it had none).
    pub fn scanned(&self) -> bool {
        self.scanned
    }

    /// The decoded content's length.
    pub fn len(&self) -> u64 {
        self.table.decompressed_size()
    }

    /// Whether the decoded content is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The source.
    pub fn get_ref(&self) -> &S {
        &self.src
    }

    /// The decoded part of entry `index` that holds its byte `at` (from
    /// the cache, or read and decoded now), and where the part starts in
    /// the entry.
    fn piece(&self, index: usize, at: u64) -> Result<(Arc<Vec<u8>>, u64)> {
        let holds = |s: &(usize, u64, Arc<Vec<u8>>)| {
            s.0 == index && s.1 <= at && at - s.1 < s.2.len() as u64
        };
        let (spare, mut comp, checked) = {
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(i) = cache.slots.iter().position(holds) {
                let slot = cache.slots.remove(i);
                let found = (Arc::clone(&slot.2), slot.1);
                cache.slots.push(slot);
                return Ok(found);
            }
            let (comp, checked) = match cache.checked.take() {
                Some((i, comp)) if i == index => (comp, true),
                Some((_, comp)) => (comp, false),
                None => (cache.comp.pop().unwrap_or_default(), false),
            };
            (cache.spare.pop().unwrap_or_default(), comp, checked)
        };
        let e = &self.table.entries()[index];
        let mut out = spare;
        let format = self.table.format();
        let read = if checked {
            Ok(())
        } else if streamed(e, self.stream_above()) {
            // Decoded as it is read (never held whole), then cached whole.
            let (verify, src) = (self.opts.verify, &self.src);
            let above = self.stream_above();
            let decoded = read_entry(src, format, index, e, verify, above, &mut comp, &mut out);
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            if cache.comp.len() < 2 {
                cache.comp.push(comp);
            }
            drop(cache);
            decoded?;
            return Ok((self.keep(index, 0, out), 0));
        } else {
            // Every byte up to the entry's size is read over.
            crate::mem::resize_for_read(&mut comp, e.compressed_size as usize).and_then(|()| {
                self.src
                    .read_exact_at(&mut comp, e.compressed_offset)
                    .map_err(Error::Io)
            })
        };
        let decoded = read.and_then(|()| {
            let verify = self.opts.verify;
            decode_piece(format, index, e, &comp, verify, checked, at, &mut out)
        });
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if decoded.is_ok() {
            if let Some((_, old)) = cache.checked.replace((index, comp))
                && cache.comp.len() < 2
            {
                cache.comp.push(old);
            }
        } else if cache.comp.len() < 2 {
            cache.comp.push(comp);
        }
        drop(cache);
        let start = decoded?;
        Ok((self.keep(index, start, out), start))
    }

    /// Put the decoded part of entry `index` starting at `start` in the
    /// cache (unless another thread did), evicting the oldest.
    fn keep(&self, index: usize, start: u64, out: Vec<u8>) -> Arc<Vec<u8>> {
        let data = Arc::new(out);
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if !cache
            .slots
            .iter()
            .any(|s| s.0 == index && s.1 == start && s.2.len() == data.len())
        {
            if cache.slots.len() >= self.opts.cache_entries {
                let (_, _, old) = cache.slots.remove(0);
                if let Ok(buf) = Arc::try_unwrap(old)
                    && cache.spare.len() < 2
                {
                    cache.spare.push(buf);
                }
            }
            cache.slots.push((index, start, Arc::clone(&data)));
        }
        data
    }

    /// Entries of more compressed bytes than this are decoded as they are
    /// read, not read whole first: a quarter of the memory limit.
    fn stream_above(&self) -> u64 {
        self.opts.memory / 4
    }

    /// Check every entry against its frame's header (see
    /// [`SeekableReader::check_heads`]): before a read reports the end.
    fn check_all_heads(&self) -> Result<()> {
        match self.table.len() {
            0 => Ok(()),
            n => self.check_heads(n - 1),
        }
    }

    /// Check entries up to `index` against their frames' headers (once
    /// each): the content of entry `index` is placed by the decoded sizes
    /// of those before it, which a crafted table could misstate.
    fn check_heads(&self, index: usize) -> Result<()> {
        let mut done = self
            .heads_checked
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let entries = self.table.entries();
        while *done <= index {
            let e = &entries[*done];
            if e.decompressed_size > 0 {
                check_head(self.table.format(), &self.src, *done, e)?;
            }
            *done += 1;
        }
        Ok(())
    }

    /// The decoded piece that holds content byte `at`, and where it starts
    /// in the content; `None` at the end of the content, as the table
    /// places it (every entry's head is checked first: each size counts).
    fn piece_at(&self, at: u64) -> Result<Option<(Arc<Vec<u8>>, u64)>> {
        let Some(index) = self.table.find(at) else {
            self.check_all_heads()?;
            return Ok(None);
        };
        self.check_heads(index)?;
        let e = self.table.entries()[index];
        let (data, start) = self.piece(index, at - e.decompressed_offset)?;
        Ok(Some((data, e.decompressed_offset + start)))
    }

    /// Read decoded bytes from `offset` into `buf`: as many as `buf` holds,
    /// fewer only at the end of the content (0 at or past it). Only the
    /// entries the range touches are decoded. Many threads may call it at
    /// once.
    ///
    /// # Errors
    /// I/O errors of the source; a corrupt entry, or one that disagrees
    /// with the table.
    pub fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let mut done = 0usize;
        while done < buf.len() {
            let at = offset + done as u64;
            let Some((data, base)) = self.piece_at(at)? else {
                break;
            };
            let from = (at - base) as usize;
            let n = (data.len() - from).min(buf.len() - done);
            buf[done..done + n].copy_from_slice(&data[from..from + n]);
            done += n;
        }
        Ok(done)
    }

    /// Write the decoded bytes `offset..offset + len` (cut at the end of
    /// the content) to `w`; returns how many were written.
    ///
    /// # Errors
    /// As [`SeekableReader::read_at`], and the writer's errors.
    pub fn copy_range<W: Write>(&self, offset: u64, len: u64, w: &mut W) -> Result<u64> {
        let end = offset.saturating_add(len).min(self.len());
        if end < offset.saturating_add(len) {
            // Cut at the end of the content, as the table places it.
            self.check_all_heads()?;
        }
        let mut at = offset;
        while at < end {
            let Some((data, base)) = self.piece_at(at)? else {
                break;
            };
            let from = (at - base) as usize;
            let to = (end - base).min(data.len() as u64) as usize;
            w.write_all(&data[from..to])?;
            at += (to - from) as u64;
        }
        Ok(at - offset)
    }
}

impl<S: ReadAt + Sync> SeekableReader<S> {
    /// Decode the whole content into `w`, entries in parallel on `threads`
    /// threads (0: one per core), written in order. The cache is not used;
    /// the entries decoded ahead of the writer hold at most
    /// [`ReaderOptions::memory_limit`] bytes (or one job of entries, if
    /// larger). Returns the bytes written.
    ///
    /// # Errors
    /// As [`SeekableReader::read_at`], for the first entry that fails in
    /// file order, and the writer's errors.
    pub fn decode_all<W: Write>(&self, mut w: W, threads: usize) -> Result<u64> {
        let threads = if cfg!(feature = "parallel") {
            effective_threads(threads)
        } else {
            1
        };
        let entries = self.table.entries();
        if threads <= 1 {
            let mut comp = Vec::new();
            let mut out = Vec::new();
            let mut written = 0u64;
            for i in 0..entries.len() {
                self.decode_into(i, &mut comp, &mut out)?;
                w.write_all(&out)?;
                written += out.len() as u64;
            }
            return Ok(written);
        }
        // Jobs of at least 1 MiB of output (several small entries to a
        // job), read and decoded by the workers, written here in order.
        let mut jobs = Vec::new();
        let mut first = 0;
        while first < entries.len() {
            let mut end = first;
            let mut out_len = 0u64;
            while end < entries.len() && (end == first || out_len < JOB_BYTES) {
                out_len += u64::from(entries[end].decompressed_size);
                end += 1;
            }
            jobs.push(first..end);
            first = end;
        }
        // What each job holds while it is in flight: its decoded entries
        // and the compressed bytes of its largest.
        let job_bytes: Vec<u64> = jobs
            .iter()
            .map(|r| {
                let e = &entries[r.clone()];
                let decoded: u64 = e.iter().map(|e| u64::from(e.decompressed_size)).sum();
                let comp = e.iter().map(|e| u64::from(e.compressed_size)).max();
                decoded + comp.unwrap_or(0).min(self.stream_above())
            })
            .collect();
        let limit = self.opts.memory;
        // Jobs done ahead of the writer: enough that workers seldom wait
        // (each wait is a sleep and a wake-up), few enough that memory
        // stays at a few MiB per thread.
        let max_in_flight = threads * 4;
        let next = AtomicUsize::new(0);
        let state = Mutex::new(Progress {
            done: BTreeMap::new(),
            written_jobs: 0,
            started_jobs: 0,
            in_flight: 0,
            stop: false,
        });
        // Workers wait for room (the writer falling behind), the writer for
        // the next job's result.
        let room = Condvar::new();
        let ready = Condvar::new();
        // Buffers go round: a fresh one costs a page fault per 4 KiB, about
        // as much as decoding into it.
        // Each pool keeps at most an eighth of the limit in buffers (their
        // capacity, which may be an earlier, larger entry's).
        let outs = Buffers::new(limit / 8);
        let comps = Buffers::new(limit / 8);
        let lock = || state.lock().unwrap_or_else(PoisonError::into_inner);
        // Whoever leaves early (an error, or a panic in the writer `w` or a
        // decoder) stops the others and wakes them, so nobody waits for
        // them forever.
        let stop_all = || {
            lock().stop = true;
            room.notify_all();
            ready.notify_all();
        };
        std::thread::scope(|scope| {
            for _ in 0..threads.min(jobs.len()) {
                scope.spawn(|| {
                    let _panic_guard = OnPanic(&stop_all);
                    loop {
                        let j = next.fetch_add(1, Ordering::Relaxed);
                        let Some(range) = jobs.get(j) else { return };
                        {
                            // Jobs start in order, each when the memory
                            // in flight leaves room for it (or holds
                            // nothing: the writer waits for this job).
                            let mut st = lock();
                            while !st.stop
                                && (j >= st.written_jobs + max_in_flight
                                    || st.started_jobs != j
                                    || (st.in_flight > 0 && st.in_flight + job_bytes[j] > limit))
                            {
                                st = room.wait(st).unwrap_or_else(PoisonError::into_inner);
                            }
                            if st.stop {
                                return;
                            }
                            st.started_jobs = j + 1;
                            st.in_flight += job_bytes[j];
                            room.notify_all();
                        }
                        let mut comp = comps.take();
                        let result = range
                            .clone()
                            .map(|i| {
                                let mut out = outs.take();
                                self.decode_into(i, &mut comp, &mut out).map(|()| out)
                            })
                            .collect::<Result<Vec<_>>>();
                        comps.give(comp);
                        let mut st = lock();
                        let wanted = j == st.written_jobs;
                        st.done.insert(j, result);
                        if wanted {
                            ready.notify_one();
                        }
                    }
                });
            }
            let mut written = 0u64;
            let _panic_guard = OnPanic(&stop_all);
            let result = (|| {
                for (j, &bytes) in job_bytes.iter().enumerate() {
                    let pieces = {
                        let mut st = lock();
                        loop {
                            if let Some(r) = st.done.remove(&j) {
                                break r;
                            }
                            if st.stop {
                                // A decoder panicked (the scope re-raises it).
                                return Err(Error::Io(std::io::Error::other(
                                    "a decoding thread stopped",
                                )));
                            }
                            st = ready.wait(st).unwrap_or_else(PoisonError::into_inner);
                        }
                    }?;
                    for out in pieces {
                        w.write_all(&out)?;
                        written += out.len() as u64;
                        outs.give(out);
                    }
                    {
                        let mut st = lock();
                        st.written_jobs = j + 1;
                        st.in_flight -= bytes;
                    }
                    room.notify_all();
                }
                Ok(written)
            })();
            if result.is_err() {
                stop_all();
            }
            result
        })
    }

    /// Read and decode entry `i` into `out`, with `comp` for its bytes.
    fn decode_into(&self, i: usize, comp: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<()> {
        let e = &self.table.entries()[i];
        let format = self.table.format();
        let above = self.stream_above();
        read_entry(&self.src, format, i, e, self.opts.verify, above, comp, out)
    }
}

/// Runs its function when dropped during a panic (a thread of
/// [`SeekableReader::decode_all`] unwinding tells the others).
struct OnPanic<'a, F: Fn()>(&'a F);

impl<F: Fn()> Drop for OnPanic<'_, F> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            (self.0)();
        }
    }
}

/// What the workers of [`SeekableReader::decode_all`] and its writer share.
struct Progress {
    /// Results of jobs done and not yet written, by job number.
    done: BTreeMap<usize, Result<Vec<Vec<u8>>>>,
    /// Jobs written: workers run at most so many jobs ahead.
    written_jobs: usize,
    /// Jobs started: they start in order.
    started_jobs: usize,
    /// Bytes the started jobs not yet written hold (see
    /// [`ReaderOptions::memory_limit`]).
    in_flight: u64,
    /// The writer stopped (an error): workers stop too.
    stop: bool,
}

/// Buffers shared by the jobs of [`SeekableReader::decode_all`], for
/// reuse, their capacities adding up to a budget at most.
struct Buffers {
    pool: Mutex<(Vec<Vec<u8>>, u64)>,
    budget: u64,
}

impl Buffers {
    fn new(budget: u64) -> Self {
        Buffers {
            pool: Mutex::new((Vec::new(), 0)),
            budget,
        }
    }

    /// A buffer: one used before, or a new one.
    fn take(&self) -> Vec<u8> {
        let mut pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        let buf = pool.0.pop().unwrap_or_default();
        pool.1 -= buf.capacity() as u64;
        buf
    }

    /// Keep `buf` for a later job (a few at most, within the budget). Its
    /// bytes stay: every user overwrites what it keeps (a decoder's output
    /// is cut to what it wrote), and writing over them costs no page
    /// faults.
    fn give(&self, buf: Vec<u8>) {
        let mut pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        let cap = buf.capacity() as u64;
        if pool.0.len() < 16 && pool.1 + cap <= self.budget {
            pool.1 += cap;
            pool.0.push(buf);
        }
    }
}

/// Output of one parallel job, at least (entries are not split): few
/// enough jobs that waking threads costs little.
const JOB_BYTES: u64 = 1 << 20;

impl<R: Read + Seek> SeekableReader<Locked<R>> {
    /// Open any `Read + Seek` (reads then take a lock; a [`std::fs::File`]
    /// opened with [`SeekableReader::open`] reads without one).
    ///
    /// # Errors
    /// As [`SeekableReader::open`].
    pub fn from_reader(reader: R) -> Result<Self> {
        Self::open(Locked::new(reader))
    }
}

impl<S: ReadAt> Read for SeekableReader<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.read_at(self.pos, buf).map_err(Error::into_io)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<S: ReadAt> Seek for SeekableReader<S> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.len().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        match target {
            Some(p) => {
                self.pos = p;
                Ok(p)
            }
            None => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek to a negative or overflowing position",
            )),
        }
    }
}
