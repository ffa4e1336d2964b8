//! `lzkit index FILE...`: append a seek table to LZ4 and zstd files that
//! allow random access, without rewriting their data.
//!
//! A file being written while it is indexed (a log appended to) must not
//! get a table over the frames appended since the scan: the scan and the
//! append hold an advisory lock (`flock`, exclusive, not waiting: a file
//! locked by another process is refused at once rather than waited for,
//! since a writer may hold its lock for as long as it runs), and the table
//! is appended only if the file's length is still the one the scan
//! covered. Otherwise nothing is written and the file is reported.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::path::Path;
use std::process::ExitCode;

use lzkit::seekable::{EntryKind, SeekTable, TableFormat, build_table};

use super::list::human_size;
use super::report::{Failure, PROGRAM, Reporter, eprint_line};

/// Run `lzkit index ARGS`.
pub fn main(argv: Vec<OsString>) -> ExitCode {
    let mut files = Vec::new();
    let mut level = 2;
    let mut checksums = true;
    let mut it = argv.into_iter();
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("--") => {
                files.extend(it.by_ref());
                break;
            }
            Some("-h" | "-H" | "--help") => {
                let _ = std::io::Write::write_all(&mut std::io::stdout(), HELP.as_bytes());
                return ExitCode::SUCCESS;
            }
            Some("-q" | "--quiet") => level -= 1,
            Some("-v" | "--verbose") => level += 1,
            Some("--no-check" | "--no-crc") => checksums = false,
            Some(a) if a.starts_with('-') && a.len() > 1 => {
                eprint_line(format_args!("{PROGRAM} index: unknown option {a}"));
                eprint_line(format_args!("Try '{PROGRAM} index -h' for help."));
                return ExitCode::FAILURE;
            }
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        eprint_line(format_args!("{PROGRAM} index: name the files to index"));
        eprint_line(format_args!("Try '{PROGRAM} index -h' for help."));
        return ExitCode::FAILURE;
    }
    let rep = Reporter { level };
    let mut ok = true;
    for name in &files {
        let path = Path::new(name);
        let shown = path.display().to_string();
        match index_file(path, checksums) {
            Ok(line) => rep.notice(format!("{shown}: {line}")),
            Err(msg) => {
                rep.failure(&Failure::new(&shown, msg));
                ok = false;
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Index one file: what was done, or why not.
fn index_file(path: &Path, checksums: bool) -> Result<String, String> {
    let describe = |e: &std::io::Error| super::report::describe_io(e);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| describe(&e))?;
    let meta = file.metadata().map_err(|e| describe(&e))?;
    if !meta.is_file() {
        return Err("not a regular file: a table is appended in place".into());
    }
    // Held until `file` is closed, when this function returns.
    lock(&file)?;
    let meta = file.metadata().map_err(|e| describe(&e))?;
    let len = meta.len();
    if let Some(t) =
        SeekTable::read_from(&file, len).map_err(|e| super::report::describe_lzkit(&e))?
    {
        return Ok(format!(
            "already has a seek table ({} entries); nothing to do",
            t.len()
        ));
    }
    let table = build_table(&file, len, checksums).map_err(|e| {
        // A frame cut short by a writer still writing it: say so, not
        // "unexpected end of input".
        match file.metadata() {
            Ok(m) if m.len() != len => changed(len, m.len()),
            _ => super::report::describe_lzkit(&e),
        }
    })?;
    let data_entries = table
        .entries()
        .iter()
        .filter(|e| e.decompressed_size > 0)
        .count();
    if data_entries < 2 {
        return Err(format!(
            "{} holds all {} bytes of content: there is nothing to seek to (rewrite it with `{PROGRAM} --seekable`, or `{PROGRAM} recompress --seekable -o NEW FILE`)",
            if table.format() == TableFormat::Zstd
                || table.entries().iter().all(|e| e.kind == EntryKind::Frame)
            {
                "one frame"
            } else {
                "one block"
            },
            table.decompressed_size()
        ));
    }
    let now = file.metadata().map_err(|e| describe(&e))?.len();
    if now != len {
        return Err(changed(len, now));
    }
    let bytes = table.to_bytes();
    append(&file, len, &bytes).map_err(|e| describe(&e))?;
    let after = file.metadata().map_err(|e| describe(&e))?.len();
    if after != len + bytes.len() as u64 {
        // Something appended while the table was written: the table is
        // no longer the end of the file, and cutting it out would cut the
        // other writer's data too.
        return Err(format!(
            "was appended to while the table was written ({} bytes expected, {after} found): the table may be followed by other data; check it with `{PROGRAM} -t`",
            len + bytes.len() as u64
        ));
    }
    let blocks = table
        .entries()
        .iter()
        .any(|e| matches!(e.kind, EntryKind::Lz4Block { .. }));
    Ok(format!(
        "{} {} of up to {} indexed; {} table appended ({})",
        table.len(),
        if blocks { "blocks" } else { "frames" },
        human_size(u64::from(table.max_entry_size())),
        human_size(table.encoded_len()),
        match table.format() {
            TableFormat::Lz4 => "lzkit's LZ4 seek table",
            TableFormat::Zstd => "zstd seekable format",
        }
    ))
}

/// The message for a file whose length changed during the scan.
fn changed(len: u64, now: u64) -> String {
    format!(
        "changed while it was indexed ({len} bytes when the scan began, {now} bytes now: something is writing to it); nothing was written (index it when the writer is done)"
    )
}

/// Take an exclusive advisory lock on `file`, without waiting: a file that
/// another process holds locked is refused.
#[cfg(unix)]
fn lock(file: &File) -> Result<(), String> {
    use rustix::fs::{FlockOperation, flock};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Err(
            "is locked by another process (a writer, or another lzkit index); nothing was written (try again when it is done)"
                .into(),
        ),
        // A file system without locks (some network file systems): the
        // length checks still stand.
        Err(e) if e == rustix::io::Errno::NOLCK || e == rustix::io::Errno::OPNOTSUPP => Ok(()),
        Err(e) => Err(super::report::describe_io(&e.into())),
    }
}

#[cfg(not(unix))]
fn lock(_file: &File) -> Result<(), String> {
    Ok(())
}

/// Write `table` at `len`, the file's end, and sync it; on any failure the
/// file is cut back to `len`, as it was, unless something else has been
/// appended since (cutting would lose its data).
fn append(file: &File, len: u64, table: &[u8]) -> std::io::Result<()> {
    let written = write_at(file, table, len).and_then(|()| file.sync_data());
    if let Err(e) = written {
        if file
            .metadata()
            .is_ok_and(|m| m.len() <= len + table.len() as u64)
        {
            let _ = file.set_len(len);
        }
        return Err(e);
    }
    Ok(())
}

#[cfg(unix)]
fn write_at(file: &File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

#[cfg(not(unix))]
fn write_at(mut file: &File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(buf)
}

/// `lzkit index -h`.
const HELP: &str = "\
Usage: lzkit index [OPTIONS] FILE...

Append a seek table to each LZ4 or zstd FILE, so that lzkit reads any part
of it without decoding what comes before (lzkit -d --range=OFFSET:LENGTH,
the library's SeekableReader) and decodes its frames on all cores. The data
is not rewritten: the table is a skippable frame at the end, which lz4 -d
and zstd -d skip. Every frame is decoded once to build the table, so a
corrupt file gets none.

What can be indexed:
  zstd files of several frames (pzstd's, concatenations: cat a.zst b.zst;
    zstd itself writes one frame, whatever -B, -T or --adapt): the
    table is zstd's seekable format, which zstd's seekable library reads;
  LZ4 files of several frames, or of frames with independent blocks (lz4's
    default): entries then point at blocks inside a frame.
A file whose content is one frame (zstd's default) or one block has
nothing to seek to: rewrite it with lzkit --seekable FILE. Legacy LZ4
frames and frames that need a dictionary are refused.

Options:
      --no-check         no checksums in the table (also --no-crc)
  -q, -v                 quieter, more verbose

A file that already ends with a seek table is left as it is. The file is
locked (flock) while it is indexed; a file locked by another process, or
one that grows while it is scanned (a log being written), is reported and
left as it is.
";
