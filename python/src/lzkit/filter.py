"""Pre-filters for columns of fixed-width numbers, as ``lzkit --filter``.

* ``shuffle2``, ``shuffle4``, ``shuffle8``: the byte shuffle (Blosc's): the
  first byte of every element, then the second byte of every element...
* ``delta1``, ``delta2``, ``delta4``, ``delta8``: differences of consecutive
  little-endian unsigned integers (ClickHouse's ``Delta(w)``), wrapping.

Both keep the length; bytes after the last whole element are copied
unchanged. ``encode`` and ``decode`` take any C-contiguous buffer (bytes,
bytearray, memoryview, NumPy arrays) and return ``bytes``::

    import lzkit.filter
    raw = numpy.arange(1000, dtype="<i8").tobytes()
    f = lzkit.filter.encode(raw, "delta8")
    assert lzkit.filter.decode(f, "delta8") == raw

Compressed with a filter (``lzkit.lz4.frame.compress(data, filter="delta8")``,
``lzkit.zstd.compress(data, filter="shuffle8")``), a stream starts with a
*filter frame*, a skippable frame that records the filter:
``lzkit.lz4.frame.decompress`` and ``lzkit.zstd.decompress`` read it and
undo the filter; other decoders (python-lz4, python-zstandard, ``lz4 -d``,
``zstd -d``) skip it and return the filtered bytes. ``frame(name)`` is that
frame and ``read_frame(data)`` reads it; its layout is in
``python/docs/filter.md``.
"""

from ._lzkit import FILTERS as _FILTERS
from ._lzkit import FilterFrameError
from ._lzkit import filter_decode as _decode
from ._lzkit import filter_encode as _encode
from ._lzkit import filter_frame as _frame
from ._lzkit import filter_read_frame as _read_frame

__all__ = ["FILTERS", "FilterFrameError", "encode", "decode", "frame", "read_frame"]

#: Every filter name, as ``encode``, ``decode`` and ``filter=`` take them.
FILTERS = tuple(_FILTERS)

#: The magic number of the filter frame (skippable frame ``0x184D2A54``).
FRAME_MAGIC = 0x184D2A54

_PREFIX = FRAME_MAGIC.to_bytes(4, "little")


def encode(data, name):
    """``data`` (any buffer) filtered with the filter ``name``, as bytes of
    the same length. ``ValueError`` for a name that is no filter."""
    return _encode(data, name)


def decode(data, name):
    """``data`` unfiltered (the inverse of ``encode``), as bytes."""
    return _decode(data, name)


def frame(name):
    """The filter frame that records the filter ``name`` (bytes), to put
    before the first frame of an LZ4 or zstd stream."""
    return _frame(name)


def read_frame(data):
    """``(name, length)`` of the filter frame that starts ``data`` (the
    compressed frames follow at ``length``), or ``None`` if ``data`` does
    not start with one. ``FilterFrameError`` (a ``ValueError``) for a filter
    frame of another version (written by a newer lzkit) or a damaged one:
    its content cannot be unfiltered."""
    return _read_frame(data)


def _starts_filtered(data):
    """Whether ``data`` may start with a filter frame: a quick look at its
    first four bytes, so that unfiltered data costs nothing more."""
    try:
        view = memoryview(data)
    except TypeError:
        return False
    if view.nbytes < 12:
        return False
    if view.itemsize != 1 or view.ndim != 1:
        if not view.c_contiguous:
            return False
        view = view.cast("B")
    return view[:4] == _PREFIX


def _compress_filtered(compress, data, name):
    """The filter frame of ``name``, then ``compress`` of ``data`` filtered."""
    return _frame(name) + compress(_encode(data, name))


def _split(data):
    """``(name, length, rest)`` for data that starts with a filter frame:
    its filter, the frame's length and the compressed frames after it (a
    memoryview); ``(None, 0, data)`` otherwise."""
    if not _starts_filtered(data):
        return None, 0, data
    found = _read_frame(data)
    if found is None:
        return None, 0, data
    name, length = found
    view = memoryview(data)
    if view.itemsize != 1 or view.ndim != 1:
        view = view.cast("B")
    return name, length, view[length:]
