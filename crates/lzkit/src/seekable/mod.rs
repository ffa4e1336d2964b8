//! Seekable LZ4 and zstd files: random access and parallel decoding that
//! plain `lz4 -d` and `zstd -d` still read.
//!
//! A seekable file is a run of independent frames, each holding one chunk
//! of the content (its size in the frame header), followed by a **seek
//! table** in a skippable frame, which decoders skip. The table lists, per
//! entry, where its bytes are and how much it decodes to, optionally with a
//! checksum; its footer is the last bytes of the file. For zstd data the
//! table is zstd's own seekable format (`contrib/seekable_format`), so
//! zstd's seekable library reads lzkit's files; LZ4 has no such format, so
//! lzkit defines one (see [`SeekTable`]), whose entries can also point at
//! single blocks inside a frame of independent blocks (a file made by
//! `lz4` gets a table without being rewritten: [`build_table`], `lzkit
//! index`).
//!
//! * Writing: [`SeekableWriter`] / [`compress`] with [`WriteOptions`].
//! * Indexing a file that has no table: [`build_table`] (then append
//!   [`SeekTable::to_bytes`]).
//! * Reading: [`SeekableReader`] over any [`ReadAt`] source (files, byte
//!   slices, any `Read + Seek` through [`Locked`]): `read_at(&self, ..)`
//!   from many threads, `Read + Seek`, [`SeekableReader::decode_all`] on
//!   all cores.
//!
//! A table is never trusted: sizes that do not add up, entries past the
//! table, a footer claiming 2^32 entries, decoded sizes a frame of that
//! length cannot produce are [`crate::Error::SeekTable`] before anything
//! is allocated for them; each entry decoded is checked against the table.
//!
//! ```
//! use lzkit::seekable::{self, SeekableReader, WriteOptions};
//!
//! let data: Vec<u8> = (0..1_000_000u32).map(|i| (i / 1000) as u8).collect();
//! let file = seekable::compress(&data, &WriteOptions::lz4(Default::default()).chunk_size(64 << 10))?;
//! assert_eq!(lzkit::lz4::frame::decompress(&file)?, data); // any LZ4 decoder reads it
//!
//! let reader = SeekableReader::open(&file[..])?;
//! let mut buf = vec![0u8; 4096];
//! reader.read_at(700_000, &mut buf)?; // decodes one 64 KiB frame
//! assert_eq!(buf, &data[700_000..704_096]);
//! # Ok::<(), lzkit::Error>(())
//! ```

mod head;
mod layout;
mod reader;
mod scan;
mod source;
mod table;
mod unit;
mod write;

pub use reader::{ReaderOptions, SeekableReader};
pub use scan::build_table;
pub use source::{Locked, ReadAt};
pub use table::{
    DEFAULT_TABLE_MEMORY, Entry, EntryKind, FOOTER_LEN, LZ4_FOOTER_MAGIC, LZ4_TABLE_MAGIC,
    MAX_ENTRY_SIZE, SeekTable, TableFormat, ZSTD_FOOTER_MAGIC, ZSTD_TABLE_MAGIC, table_memory,
};
pub use write::{DEFAULT_CHUNK_SIZE, SeekableWriter, WriteOptions, compress};
