//! Positional reads: what a [`super::SeekableReader`] reads from.

use std::io::{self, Read, Seek, SeekFrom};
use std::sync::{Mutex, PoisonError};

/// A source of bytes that can be read at any offset through a shared
/// reference, so that many threads can read at once.
///
/// Implemented for files (`pread`, no shared position), byte slices and
/// vectors, and, through [`Locked`], for any `Read + Seek`.
pub trait ReadAt {
    /// Fill `buf` from `offset`; an [`io::ErrorKind::UnexpectedEof`] error if
    /// the source ends first.
    ///
    /// # Errors
    /// The source's I/O errors.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;

    /// The source's length in bytes.
    ///
    /// # Errors
    /// The source's I/O errors.
    fn size(&self) -> io::Result<u64>;
}

fn past_end() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "read past the end of the file",
    )
}

impl ReadAt for [u8] {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(|_| past_end())?;
        let src = start
            .checked_add(buf.len())
            .and_then(|end| self.get(start..end))
            .ok_or_else(past_end)?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn size(&self) -> io::Result<u64> {
        Ok(<[u8]>::len(self) as u64)
    }
}

impl ReadAt for Vec<u8> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.as_slice().read_exact_at(buf, offset)
    }

    fn size(&self) -> io::Result<u64> {
        Ok(Vec::len(self) as u64)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for &T {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        (**self).read_exact_at(buf, offset)
    }

    fn size(&self) -> io::Result<u64> {
        (**self).size()
    }
}

impl<T: ReadAt + ?Sized> ReadAt for std::sync::Arc<T> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        (**self).read_exact_at(buf, offset)
    }

    fn size(&self) -> io::Result<u64> {
        (**self).size()
    }
}

impl ReadAt for std::fs::File {
    #[cfg(unix)]
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }

    #[cfg(windows)]
    fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
        use std::os::windows::fs::FileExt;
        while !buf.is_empty() {
            match self.seek_read(buf, offset) {
                Ok(0) => return Err(past_end()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    #[cfg(not(any(unix, windows)))]
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let mut f = self;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

/// Any `Read + Seek` as a [`ReadAt`]: reads take a lock, seek and read.
///
/// ```
/// use lzkit::seekable::{Locked, ReadAt};
/// let src = Locked::new(std::io::Cursor::new(b"0123456789".to_vec()));
/// let mut buf = [0u8; 3];
/// src.read_exact_at(&mut buf, 4)?;
/// assert_eq!(&buf, b"456");
/// assert_eq!(src.size()?, 10);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Locked<R>(Mutex<R>);

impl<R: Read + Seek> Locked<R> {
    /// Wrap `inner`.
    pub fn new(inner: R) -> Locked<R> {
        Locked(Mutex::new(inner))
    }

    /// The reader back.
    pub fn into_inner(self) -> R {
        self.0.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<R: Read + Seek> ReadAt for Locked<R> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let mut r = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        r.seek(SeekFrom::Start(offset))?;
        r.read_exact(buf)
    }

    fn size(&self) -> io::Result<u64> {
        let mut r = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        r.seek(SeekFrom::End(0))
    }
}

/// A `Read` over `src` from `pos` to `end`.
pub(crate) struct Window<'a, S: ?Sized> {
    pub(crate) src: &'a S,
    pub(crate) pos: u64,
    pub(crate) end: u64,
}

impl<S: ReadAt + ?Sized> Read for Window<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (buf.len() as u64).min(self.end - self.pos) as usize;
        self.src.read_exact_at(&mut buf[..n], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}
