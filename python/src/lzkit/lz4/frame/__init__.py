"""python-lz4's ``lz4.frame`` on lzkit: LZ4 frames, one-shot, streaming and
as files, with python-lz4's arguments and defaults, plus ``threads=``
(multithreaded compression of large inputs; parallel decoding of frames of
independent blocks).

Differences from python-lz4 (the table in ``python/README.md``):
``threads=``; ``LZ4FrameFile`` and ``open`` read in bounded memory whatever the frame's size, and seek through the
seek table of a file written with ``--seekable`` (python-lz4's file
decodes from the start).
"""

import builtins
import io
import os

from ..._lzkit import FrameCompressor as _FrameCompressor
from ..._lzkit import FrameDecompressor as _FrameDecompressor
from ..._lzkit import frame_compress as _compress
from ..._lzkit import frame_decompress as _decompress
from ..._lzkit import TableReader as _TableReader
from ..._lzkit import get_frame_info
from ..._stream import RawReader as _RawReader
from ... import filter as _filter

__all__ = [
    "compress", "decompress", "get_frame_info", "LZ4FrameCompressor",
    "LZ4FrameDecompressor", "LZ4FrameFile", "open",
    "BLOCKSIZE_DEFAULT", "BLOCKSIZE_MAX64KB", "BLOCKSIZE_MAX256KB",
    "BLOCKSIZE_MAX1MB", "BLOCKSIZE_MAX4MB",
    "COMPRESSIONLEVEL_MIN", "COMPRESSIONLEVEL_MINHC", "COMPRESSIONLEVEL_MAX",
    "create_compression_context", "compress_begin", "compress_chunk", "compress_flush",
    "create_decompression_context", "decompress_chunk", "reset_decompression_context",
]

BLOCKSIZE_DEFAULT = 0
BLOCKSIZE_MAX64KB = 4
BLOCKSIZE_MAX256KB = 5
BLOCKSIZE_MAX1MB = 6
BLOCKSIZE_MAX4MB = 7

COMPRESSIONLEVEL_MIN = 0
COMPRESSIONLEVEL_MINHC = 3
COMPRESSIONLEVEL_MAX = 16


def compress(data, compression_level=0, block_size=BLOCKSIZE_DEFAULT,
             content_checksum=False, block_checksum=False, block_linked=True,
             store_size=True, return_bytearray=False, threads=1, filter=None):
    """Compress ``data`` (any buffer) into one LZ4 frame.

    ``threads``: worker threads (0: one per core); the output is the same
    for any number. ``filter`` (``"shuffle8"``, ``"delta4"``...: see
    ``lzkit.filter``): filter ``data`` first, and record the filter in a
    filter frame before the LZ4 frame, which ``decompress`` reads to undo
    it (python-lz4 and ``lz4 -d`` skip it and return the filtered bytes).
    """
    if filter is not None:
        out = _filter._compress_filtered(
            lambda filtered: _compress(filtered, compression_level, block_size,
                                       content_checksum, block_checksum,
                                       block_linked, store_size, False, threads),
            data, filter)
        return bytearray(out) if return_bytearray else out
    return _compress(data, compression_level, block_size, content_checksum,
                     block_checksum, block_linked, store_size,
                     return_bytearray, threads)


def decompress(data, return_bytearray=False, return_bytes_read=False, threads=1):
    """Decompress the first LZ4 frame of ``data``. With
    ``return_bytes_read``, return ``(data, bytes_read)``. ``threads``
    decode independent blocks in parallel. Raises ``RuntimeError`` for
    corrupt or truncated frames, as python-lz4.

    Data that starts with a filter frame (``compress(..., filter=...)``)
    is unfiltered after decoding (``bytes_read`` counts the filter frame);
    a filter frame that cannot be used raises
    ``lzkit.filter.FilterFrameError`` (a ``ValueError``).
    """
    name, length, rest = _filter._split(data)
    if name is None:
        return _decompress(data, return_bytearray, return_bytes_read, threads)
    out = _decompress(rest, False, return_bytes_read, threads)
    if return_bytes_read:
        out, read = out
    out = _filter.decode(out, name)
    if return_bytearray:
        out = bytearray(out)
    return (out, length + read) if return_bytes_read else out


class LZ4FrameCompressor:
    """Compress a frame in pieces: ``begin()``, ``compress(data)``...,
    ``flush()``; the outputs, joined, are the frame. Usable as a context
    manager (``reset()`` on exit).
    """

    def __init__(self, block_size=BLOCKSIZE_DEFAULT, block_linked=True,
                 compression_level=COMPRESSIONLEVEL_MIN, content_checksum=False,
                 block_checksum=False, auto_flush=False, return_bytearray=False,
                 threads=1):
        self.block_size = block_size
        self.block_linked = block_linked
        self.compression_level = compression_level
        self.content_checksum = content_checksum
        self.block_checksum = block_checksum
        self.auto_flush = auto_flush
        self.return_bytearray = return_bytearray
        self._native = _FrameCompressor(compression_level, block_size,
                                        content_checksum, block_checksum,
                                        block_linked, threads)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.reset()

    def _out(self, data):
        return bytearray(data) if self.return_bytearray else data

    def begin(self, source_size=0):
        """Start a frame (``source_size``: its content size, stored if not 0)."""
        return self._out(self._native.begin(source_size))

    def compress(self, data):
        """Compress ``data``: the compressed bytes ready so far (with
        ``auto_flush``, all of ``data``'s: the block in progress is ended)."""
        out = self._native.compress(data)
        if self.auto_flush:
            out += self._native.flush_blocks()
        return self._out(out)

    def flush(self):
        """End the frame: the rest of it."""
        return self._out(self._native.flush())

    def reset(self):
        """Drop the frame in progress."""
        self._native.reset()

    def has_context(self):
        """Whether a frame is in progress."""
        return self._native.started

    def started(self):
        """Whether a frame is in progress."""
        return self._native.started


class _CompressionContext:
    """A compression context of python-lz4's low-level functions
    (``create_compression_context``): a frame compressor once begun."""

    __slots__ = ("_compressor",)

    def __init__(self):
        self._compressor = None


class _DecompressionContext:
    """A decompression context of python-lz4's low-level functions
    (``create_decompression_context``): the frame in progress, and decoded
    bytes a ``max_length`` held back."""

    __slots__ = ("_native", "_pending", "_ended")

    def __init__(self):
        self._native = _FrameDecompressor(1)
        self._pending = bytearray()
        self._ended = False


def create_compression_context():
    """A context for ``compress_begin``, ``compress_chunk`` and
    ``compress_flush`` (python-lz4's low-level API)."""
    return _CompressionContext()


def compress_begin(context, source_size=0, compression_level=COMPRESSIONLEVEL_MIN,
                   block_size=BLOCKSIZE_DEFAULT, content_checksum=False, content_size=True,
                   block_linked=True, frame_type=0, auto_flush=False,
                   return_bytearray=False, block_checksum=False):
    """Start a frame in ``context``: returns its header. ``source_size``
    is stored as the content size if ``content_size`` and not 0. The
    defaults are what python-lz4 does (linked blocks, no auto-flush),
    whatever its docstring's signature line says."""
    if not isinstance(context, _CompressionContext):
        raise TypeError("context must come from create_compression_context()")
    if frame_type != 0:
        raise ValueError("frame_type: only 0 (an LZ4 frame) is supported")
    context._compressor = LZ4FrameCompressor(
        block_size=block_size, block_linked=bool(block_linked),
        compression_level=compression_level, content_checksum=bool(content_checksum),
        block_checksum=bool(block_checksum), auto_flush=bool(auto_flush),
        return_bytearray=bool(return_bytearray))
    return context._compressor.begin(source_size if content_size else 0)


def _begun(context, what):
    if not isinstance(context, _CompressionContext):
        raise TypeError("context must come from create_compression_context()")
    if context._compressor is None:
        raise RuntimeError(f"{what} called before compress_begin()")
    return context._compressor


def compress_chunk(context, data, return_bytearray=False):
    """Compress ``data`` into the frame begun in ``context``: the compressed
    bytes ready so far (all of them with ``auto_flush``)."""
    c = _begun(context, "compress_chunk()")
    out = c._native.compress(data)
    if c.auto_flush:
        out += c._native.flush_blocks()
    return bytearray(out) if return_bytearray else out


def compress_flush(context, end_frame=True, return_bytearray=False):
    """The compressed bytes still held in ``context``; with ``end_frame``
    (the default) the frame's end too, after which the context needs a new
    ``compress_begin``."""
    c = _begun(context, "compress_flush()")
    if end_frame:
        out = c._native.flush()
        context._compressor = None
    else:
        out = c._native.flush_blocks()
    return bytearray(out) if return_bytearray else out


def create_decompression_context():
    """A context for ``decompress_chunk`` (python-lz4's low-level API)."""
    return _DecompressionContext()


def reset_decompression_context(context):
    """Forget the frame in progress in ``context``."""
    context.__init__()


def decompress_chunk(context, data, max_length=-1, return_bytearray=False):
    """Feed part of a frame: returns ``(decoded bytes, bytes of data
    used, whether the frame ended)``. Blocks decode as they arrive whole;
    the rest of ``data`` is kept in the context (so all of it counts as
    used) except the bytes after the frame's end, which are not used. With
    ``max_length``, decoded bytes past it are returned by the next calls
    (which use no input until the frame's last bytes are out)."""
    if not isinstance(context, _DecompressionContext):
        raise TypeError("context must come from create_decompression_context()")
    native = context._native
    with memoryview(data) as view:
        n = view.nbytes
    used = 0
    if not context._ended:
        context._pending += native.decompress(data)
        used = n
        if native.eof:
            used = n - len(native.unused_data or b"")
            native.reset()
            context._ended = True
    pending = context._pending
    k = len(pending) if max_length < 0 else min(max_length, len(pending))
    out = bytes(pending[:k])
    del pending[:k]
    ended = context._ended and not pending
    if ended:
        context._ended = False
    return (bytearray(out) if return_bytearray else out), used, ended


class LZ4FrameDecompressor:
    """Decompress frames fed in pieces: ``decompress(data, max_length=-1)``;
    ``eof`` once a frame ended (bytes after it in ``unused_data``),
    ``needs_input`` while more input is needed for more output.
    """

    def __init__(self, return_bytearray=False, threads=1):
        self.return_bytearray = return_bytearray
        self._native = _FrameDecompressor(threads)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.reset()

    def decompress(self, data, max_length=-1):
        out = self._native.decompress(data, max_length)
        return bytearray(out) if self.return_bytearray else out

    @property
    def eof(self):
        return self._native.eof

    @property
    def unused_data(self):
        return self._native.unused_data

    @property
    def needs_input(self):
        return self._native.needs_input

    def reset(self):
        self._native.reset()


_MODE_CLOSED, _MODE_READ, _MODE_WRITE = 0, 1, 2


class _TableRefuted(Exception):
    """A read through the seek table failed: the file disagrees with its
    table (or is corrupt, which decoding from the start then reports)."""


class _TableRaw(io.RawIOBase):
    """The decoded content of a file with a seek table, at any position
    (``_lzkit.TableReader``), as a raw stream for ``io.BufferedReader``."""

    def __init__(self, table):
        self._table = table
        self._pos = 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self._pos

    def seek(self, offset, whence=io.SEEK_SET):
        if whence == io.SEEK_CUR:
            offset += self._pos
        elif whence == io.SEEK_END:
            offset += self.size()
        self._pos = max(0, offset)
        return self._pos

    def size(self):
        try:
            return self._table.size()
        except Exception as e:
            raise _TableRefuted(str(e)) from e

    def readinto(self, buf):
        with memoryview(buf) as view, view.cast("B") as out:
            try:
                data = self._table.read_at(self._pos, len(out))
            except Exception as e:
                raise _TableRefuted(str(e)) from e
            out[:len(data)] = data
            self._pos += len(data)
            return len(data)


class LZ4FrameFile(io.BufferedIOBase):
    """A file of LZ4 frames, read (``'r'``, ``'rb'``) or written (``'w'``,
    ``'wb'``, ``'x'``, ``'xb'``, ``'a'``, ``'ab'``). ``filename``: a path or
    a file object. Reading decodes every frame in turn in bounded memory.

    ``seek`` on a file that ends in a seek table (written with lzkit's
    ``--seekable``) goes through the table: only the frames read are
    decoded. The table is checked against the file first, and whenever the
    file disagrees with it the file is read as any other, by decoding from
    the start, with the same results.
    """

    def __init__(self, filename, mode="r", block_size=BLOCKSIZE_DEFAULT,
                 compression_level=COMPRESSIONLEVEL_MIN, content_checksum=False,
                 block_checksum=False, block_linked=True, auto_flush=False,
                 return_bytearray=False, source_size=0, threads=1):
        self._fp = None
        self._closefp = False
        self._mode = _MODE_CLOSED
        self._pos = 0
        if mode in ("r", "rb"):
            mode_code, file_mode = _MODE_READ, "rb"
        elif mode in ("w", "wb", "a", "ab", "x", "xb"):
            mode_code, file_mode = _MODE_WRITE, mode if mode.endswith("b") else mode + "b"
        else:
            raise ValueError("Invalid mode: {!r}".format(mode))
        if isinstance(filename, (str, bytes, os.PathLike)):
            self._fp = builtins.open(filename, file_mode)
            self._closefp = True
        elif hasattr(filename, "read") or hasattr(filename, "write"):
            self._fp = filename
        else:
            raise TypeError("filename must be a str, bytes, file or PathLike object")
        self._mode = mode_code
        self._source_size = source_size
        self._threads = threads
        if mode_code == _MODE_READ:
            self._buffer = io.BufferedReader(_RawReader(self._fp, "lz4", threads))
            self._size = -1
            # The seek table: looked for at the first seek (None: not yet;
            # False: none, or one the file refutes).
            self._table = None
            self._start = self._fp.tell() if self._fp.seekable() else -1
        else:
            self._compressor = LZ4FrameCompressor(
                block_size=block_size, block_linked=block_linked,
                compression_level=compression_level,
                content_checksum=content_checksum, block_checksum=block_checksum,
                auto_flush=auto_flush, threads=threads)
            self._fp.write(self._compressor.begin(source_size=source_size))

    def _check(self, mode):
        if self._mode == _MODE_CLOSED:
            raise ValueError("I/O operation on closed file")
        if mode is not None and self._mode != mode:
            raise io.UnsupportedOperation(
                "File not open for " + ("reading" if mode == _MODE_READ else "writing"))

    @property
    def closed(self):
        return self._mode == _MODE_CLOSED

    def close(self):
        if self._mode == _MODE_CLOSED:
            return
        try:
            if self._mode == _MODE_WRITE:
                if self._compressor.started():
                    self._fp.write(self._compressor.flush())
            else:
                self._buffer.close()
        finally:
            try:
                if self._closefp:
                    self._fp.close()
            finally:
                self._fp = None
                self._closefp = False
                self._mode = _MODE_CLOSED

    def fileno(self):
        self._check(None)
        return self._fp.fileno()

    def readable(self):
        self._check(None)
        return self._mode == _MODE_READ

    def writable(self):
        self._check(None)
        return self._mode == _MODE_WRITE

    def seekable(self):
        """Whether ``seek`` works: a file read from a seekable file."""
        self._check(None)
        return self._mode == _MODE_READ and self._fp.seekable()

    def seek(self, offset, whence=io.SEEK_SET):
        """Move to ``offset`` of the decoded data (``whence``: ``io.SEEK_SET``,
        ``SEEK_CUR`` or ``SEEK_END``); returns the new position, python-lz4's
        (at least 0, at most the end). Through the file's seek table if it
        has one that checks out (only the frames read are decoded); else as
        python-lz4's file does it: forward by decoding and dropping,
        backward by decoding again from the start (slow on large files)."""
        self._check(_MODE_READ)
        if not self._fp.seekable():
            raise io.UnsupportedOperation("the underlying file is not seekable")
        if whence not in (io.SEEK_SET, io.SEEK_CUR, io.SEEK_END):
            raise ValueError("Invalid value for whence: {}".format(whence))
        if self._through_table():
            try:
                return self._seek_in_table(offset, whence)
            except _TableRefuted:
                self._decode_from_start()
        if whence == io.SEEK_SET:
            target = offset
        elif whence == io.SEEK_CUR:
            target = self._pos + offset
        elif whence == io.SEEK_END:
            if self._size < 0:
                while self.read(io.DEFAULT_BUFFER_SIZE):
                    pass
                self._size = self._pos
            target = self._size + offset
        if target < self._pos:
            self._rewind()
        self._skip_to(target)
        return self._pos

    def _rewind(self):
        self._fp.seek(0)
        self._buffer = io.BufferedReader(_RawReader(self._fp, "lz4", self._threads))
        self._pos = 0

    def _skip_to(self, target):
        """Decode forward to ``target`` (or the end)."""
        left = target - self._pos
        while left > 0:
            data = self.read(min(io.DEFAULT_BUFFER_SIZE, left))
            if not data:
                break
            left -= len(data)

    def _through_table(self):
        """Whether reads go through the seek table: looked for once, at the
        first seek, in a file read from its start."""
        if self._table is None:
            self._table = False
            # The table places the content of the file from byte 0: a file
            # object handed over elsewhere is read as it is, forward.
            table = None
            if self._start == 0:
                here = self._fp.tell()
                table = _TableReader.open(self._fp)
                if table is None:
                    # Where the decode forward reads on.
                    self._fp.seek(here)
            if table is not None:
                self._table = table
                raw = _TableRaw(table)
                raw.seek(self._pos)
                self._buffer = io.BufferedReader(raw)
        return self._table is not False

    def _seek_in_table(self, offset, whence):
        """``seek`` through the table: where python-lz4's ends (at most the
        end of the content, at least 0), without decoding what lies before."""
        if whence == io.SEEK_CUR:
            offset += self._pos
        elif whence == io.SEEK_END:
            offset += self._buffer.raw.size()
        if offset > self._pos:
            # Past the end: the end, as a decode forward stops there.
            offset = min(offset, self._buffer.raw.size())
        self._pos = self._buffer.seek(max(0, offset))
        return self._pos

    def _decode_from_start(self):
        """The file disagrees with its table: from now on, read as any file
        is (decoded from the start), at the same position."""
        self._table = False
        target = self._pos
        self._rewind()
        self._skip_to(target)

    def _reading(self, op, *args):
        """``op`` of the buffered reader; again on a decode from the start
        if the seek table turns out wrong (nothing was returned: the
        position is where it was)."""
        self._check(_MODE_READ)
        try:
            return getattr(self._buffer, op)(*args)
        except _TableRefuted:
            self._decode_from_start()
            return getattr(self._buffer, op)(*args)

    def peek(self, size=-1):
        return self._reading("peek", size)

    def read(self, size=-1):
        data = self._reading("read", size)
        self._pos += len(data)
        return data

    def read1(self, size=-1):
        data = self._reading("read1", size)
        self._pos += len(data)
        return data

    def readinto(self, b):
        n = self._reading("readinto", b)
        self._pos += n
        return n

    def readline(self, size=-1):
        line = self._reading("readline", size)
        self._pos += len(line)
        return line

    def write(self, data):
        self._check(_MODE_WRITE)
        with memoryview(data) as view:
            length = view.nbytes
        if not self._compressor.started():
            # After a flush, which ended the frame: a new one.
            self._fp.write(self._compressor.begin(source_size=self._source_size))
        self._fp.write(self._compressor.compress(data))
        self._pos += length
        return length

    def flush(self):
        """Flush the file, keeping it open: as python-lz4's, this ends the
        frame in progress (a reader then sees everything written so far),
        and the next write starts a new frame."""
        self._check(None)
        if self._mode == _MODE_WRITE:
            if self._compressor.started():
                self._fp.write(self._compressor.flush())
            self._fp.flush()

    def tell(self):
        self._check(None)
        return self._pos


def open(filename, mode="rb", encoding=None, errors=None, newline=None,
         block_size=BLOCKSIZE_DEFAULT, block_linked=True, content_checksum=False,
         block_checksum=False, compression_level=COMPRESSIONLEVEL_MIN,
         auto_flush=False, return_bytearray=False, source_size=0, threads=1):
    """Open an LZ4 file in binary (``'rb'``, ``'wb'``, ...) or text (``'rt'``,
    ``'wt'``, ...) mode, as python-lz4's ``lz4.frame.open``.
    """
    if "t" in mode:
        if "b" in mode:
            raise ValueError("Invalid mode: %r" % (mode,))
    else:
        if encoding is not None:
            raise ValueError("Argument 'encoding' not supported in binary mode")
        if errors is not None:
            raise ValueError("Argument 'errors' not supported in binary mode")
        if newline is not None:
            raise ValueError("Argument 'newline' not supported in binary mode")
    binary = LZ4FrameFile(filename, mode.replace("t", ""), block_size=block_size,
                          compression_level=compression_level,
                          content_checksum=content_checksum,
                          block_checksum=block_checksum, block_linked=block_linked,
                          auto_flush=auto_flush, return_bytearray=return_bytearray,
                          source_size=source_size, threads=threads)
    if "t" in mode:
        return io.TextIOWrapper(binary, encoding, errors, newline)
    return binary
