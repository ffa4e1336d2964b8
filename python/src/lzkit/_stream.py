"""What the codec modules share: a raw stream of the decoded bytes of a
compressed file object, through lzkit's streaming decoder."""

import io

from ._lzkit import Reader as _Reader


class RawReader(io.RawIOBase):
    """The decoded bytes of ``fileobj``, a stream of ``codec`` (``"lz4"``,
    ``"zstd"``), in bounded memory: wrap it in ``io.BufferedReader``."""

    def __init__(self, fileobj, codec, threads=1, window_log_max=27):
        self._reader = _Reader(fileobj, codec, threads, window_log_max)

    def readable(self):
        return True

    def readinto(self, buf):
        with memoryview(buf) as view, view.cast("B") as out:
            data = self._reader.read(len(out))
            out[:len(data)] = data
            return len(data)
