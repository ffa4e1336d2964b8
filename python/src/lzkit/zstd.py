"""zstd on lzkit: decoding with lzkit's own decoder, compression through
libzstd.

``decompress(data, max_output_size=0)``, ``compress(data, level=3)``, and
objects in the shape of the ``zstandard`` package's:
``ZstdDecompressor().decompress(data)`` / ``.stream_reader(source)`` and
``ZstdCompressor(level).compress(data)``. Errors raise ``ZstdError``.

As in ``zstandard``, ``decompress`` needs ``max_output_size`` for frames
that do not state their content size (streamed output, such as
``lzkit.recompress_file``'s); ``stream_reader`` reads any frame.
"""

import io

from ._lzkit import ZstdError
from ._lzkit import zstd_compress as _compress
from ._lzkit import zstd_decompress as _decompress
from ._stream import RawReader as _RawReader

__all__ = ["compress", "decompress", "ZstdCompressor", "ZstdDecompressor", "ZstdError"]


def decompress(data, max_output_size=0):
    """Decode every frame of ``data``, as ``zstandard.decompress`` sizes its
    output: frames that state their content size are decoded straight into
    the ``bytes`` returned; if a frame states none, ``max_output_size`` (the
    most bytes it may decode to) is required, or ``ZstdError`` ("could not
    determine content size in frame header") is raised: use
    ``ZstdDecompressor().stream_reader`` for such data of any size. With
    ``max_output_size``, more output than that raises ``ZstdError`` (also
    where the frames state their size)."""
    return _decompress(data, max_output_size)


def compress(data, level=3, checksum=True, threads=0):
    """Compress ``data`` into one zstd frame (libzstd; ``threads``: its
    workers)."""
    return _compress(data, level, checksum, threads)


class ZstdCompressor:
    """``zstandard.ZstdCompressor``'s one-shot shape: ``compress(data)``."""

    def __init__(self, level=3, write_checksum=True, threads=0):
        self.level = level
        self.write_checksum = write_checksum
        self.threads = threads

    def compress(self, data):
        return _compress(data, self.level, self.write_checksum, self.threads)


class ZstdDecompressor:
    """``zstandard.ZstdDecompressor``'s shape: ``decompress(data,
    max_output_size=0)`` and ``stream_reader(source)``. ``max_window_size``:
    the largest window a stream reader accepts (default 128 MiB)."""

    def __init__(self, max_window_size=0):
        self._window_log_max = max(10, (max_window_size - 1).bit_length()) if max_window_size else 27

    def decompress(self, data, max_output_size=0):
        """As the module's ``decompress``: a frame without a content size
        needs ``max_output_size``."""
        return _decompress(data, max_output_size)

    def stream_reader(self, source, read_size=131075):
        """A readable binary stream of the decoded bytes of ``source`` (a
        file object, or a buffer)."""
        if not hasattr(source, "read"):
            source = io.BytesIO(memoryview(source).tobytes())
        raw = _RawReader(source, "zstd", 1, self._window_log_max)
        return io.BufferedReader(raw, read_size)
