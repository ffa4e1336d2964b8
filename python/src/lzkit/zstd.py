"""zstd on lzkit, in the shape of python-zstandard (``import zstandard``):
decoding with lzkit's own decoder, compression through libzstd.

``import lzkit.zstd as zstandard`` gives python-zstandard's main API with
its defaults, names and exception (``ZstdError``):

* ``compress(data, level=3)``, ``decompress(data, max_output_size=0)``;
* ``ZstdCompressor(level=3, dict_data=None, compression_params=None,
  write_checksum=None, write_content_size=None, write_dict_id=None,
  threads=0)``: ``compress``, ``compressobj``, ``stream_writer``,
  ``stream_reader``, ``read_to_iter``, ``copy_stream``,
  ``multi_compress_to_buffer``, ``memory_size``;
* ``ZstdDecompressor(dict_data=None, max_window_size=0,
  format=FORMAT_ZSTD1)``: ``decompress``, ``decompressobj``,
  ``stream_reader``, ``stream_writer``, ``read_to_iter``, ``copy_stream``,
  ``multi_decompress_to_buffer``, ``decompress_content_dict_chain``,
  ``memory_size``;
* ``BufferWithSegments``, ``BufferWithSegmentsCollection`` (what the
  ``multi_*_to_buffer`` methods take and give);
* ``frame_content_size``, ``frame_header_size``, ``get_frame_parameters``
  (``FrameParameters``), ``ZstdCompressionParameters``,
  ``ZstdCompressionDict``, ``train_dictionary``, ``open`` and the
  constants.

As python-zstandard: frames carry no checksum unless asked
(``write_checksum=True``) and state their content size where it is known
(``write_content_size=True``); ``decompress`` decodes the first frame only
and needs ``max_output_size`` for a frame that does not state its size
(``stream_reader`` and ``read_to_iter`` read any frame, in bounded memory).

What differs is listed in the package's README ("lzkit.zstd and
python-zstandard").
"""

import bisect
import builtins as _builtins
import concurrent.futures
import io
import os
import struct

from ._lzkit import ZstdCCtx as _CCtx
from ._lzkit import ZstdError
from ._lzkit import ZstdPushDecoder as _PushDecoder
from ._lzkit import zstd_decompress as _decompress
from ._lzkit import zstd_estimate_cctx_size as _estimate_cctx_size
from ._lzkit import zstd_level_params as _level_params
from ._lzkit import zstd_train_dictionary as _train
from ._stream import RawReader as _RawReader
from . import filter as _filter

__version__ = "0.1.0"
backend = "lzkit"
# python-zstandard's C-backend extras, all provided.
backend_features = {"buffer_types", "multi_compress_to_buffer", "multi_decompress_to_buffer"}

ZSTD_VERSION = (1, 5, 7)
MAX_COMPRESSION_LEVEL = 22
FRAME_HEADER = b"\x28\xb5\x2f\xfd"
MAGIC_NUMBER = 0xFD2FB528
CONTENTSIZE_UNKNOWN = 2**64 - 1
CONTENTSIZE_ERROR = 2**64 - 2
BLOCKSIZELOG_MAX = 17
BLOCKSIZE_MAX = 1 << 17
COMPRESSION_RECOMMENDED_INPUT_SIZE = 131072
COMPRESSION_RECOMMENDED_OUTPUT_SIZE = 131591
DECOMPRESSION_RECOMMENDED_INPUT_SIZE = 131075
DECOMPRESSION_RECOMMENDED_OUTPUT_SIZE = 131072
COMPRESSOBJ_FLUSH_FINISH = 0
COMPRESSOBJ_FLUSH_BLOCK = 1
FLUSH_BLOCK = 0
FLUSH_FRAME = 1
FORMAT_ZSTD1 = 0
FORMAT_ZSTD1_MAGICLESS = 1
DICT_TYPE_AUTO = 0
DICT_TYPE_RAWCONTENT = 1
DICT_TYPE_FULLDICT = 2
WINDOWLOG_MIN = 10
WINDOWLOG_MAX = 31
CHAINLOG_MIN = 6
CHAINLOG_MAX = 30
HASHLOG_MIN = 6
HASHLOG_MAX = 30
MINMATCH_MIN = 3
MINMATCH_MAX = 7
SEARCHLENGTH_MIN = 3
SEARCHLENGTH_MAX = 7
SEARCHLOG_MIN = 1
SEARCHLOG_MAX = 30
TARGETLENGTH_MIN = 0
TARGETLENGTH_MAX = 131072
LDM_MINMATCH_MIN = 4
LDM_MINMATCH_MAX = 4096
LDM_BUCKETSIZELOG_MAX = 8
STRATEGY_FAST = 1
STRATEGY_DFAST = 2
STRATEGY_GREEDY = 3
STRATEGY_LAZY = 4
STRATEGY_LAZY2 = 5
STRATEGY_BTLAZY2 = 6
STRATEGY_BTOPT = 7
STRATEGY_BTULTRA = 8
STRATEGY_BTULTRA2 = 9

__all__ = [
    "compress", "decompress", "open", "train_dictionary",
    "frame_content_size", "frame_header_size", "get_frame_parameters",
    "FrameParameters", "ZstdCompressionParameters", "ZstdCompressionDict",
    "ZstdCompressor", "ZstdCompressionObj", "ZstdCompressionWriter",
    "ZstdCompressionReader", "ZstdDecompressor", "ZstdDecompressionObj",
    "ZstdDecompressionWriter", "ZstdError", "BufferSegment", "BufferSegments",
    "BufferWithSegments", "BufferWithSegmentsCollection",
]

_SKIPPABLE_MASK = 0xFFFFFFF0
_SKIPPABLE_MAGIC = 0x184D2A50


def _bytes_view(data):
    """``data`` (any buffer, or one of the buffer types below) as a flat
    byte memoryview; TypeError for an object without the buffer protocol
    (str included)."""
    if isinstance(data, str):
        raise TypeError("a bytes-like object is required, not 'str'")
    if isinstance(data, (BufferSegment, BufferSegments, BufferWithSegments)):
        # Their buffer protocol (``__buffer__``) is Python's from 3.12 on.
        return data._view
    view = memoryview(data)
    return view if view.format == "B" and view.ndim == 1 else view.cast("B")


# -- python-zstandard's buffer types (multi_*_to_buffer) ----------------------

_SEGMENT = struct.Struct("=QQ")


class BufferSegment:
    """One segment of a ``BufferWithSegments``: ``len()``, ``offset`` (in
    the buffer), ``tobytes()``, and its bytes as a buffer (a view of the
    buffer's, not a copy: ``memoryview(segment)`` from Python 3.12, any
    lzkit.zstd function on every version)."""

    __slots__ = ("_view", "offset")

    def __init__(self, view, offset):
        self._view = view
        self.offset = offset

    def __len__(self):
        return len(self._view)

    def __buffer__(self, flags):
        return self._view.toreadonly()

    def tobytes(self):
        return self._view.tobytes()


class BufferSegments:
    """The segments of a ``BufferWithSegments`` as its buffer holds them:
    (offset, length) pairs of native-endian unsigned 64-bit integers."""

    __slots__ = ("_view", "_count")

    def __init__(self, raw, count):
        self._view = raw
        self._count = count

    def __len__(self):
        return self._count

    def __buffer__(self, flags):
        return self._view.toreadonly()

    def tobytes(self):
        return self._view.tobytes()


class BufferWithSegments:
    """Bytes (``data``, kept, not copied) and the segments of them that
    ``segments`` states: (offset, length) pairs packed as native-endian
    unsigned 64-bit integers (``struct.pack("=QQ", offset, length)``).
    ``len()`` is the number of segments, ``b[i]`` the i-th
    (``BufferSegment``), ``size`` the length of ``data``, ``tobytes()`` all
    of it. What ``multi_compress_to_buffer`` and
    ``multi_decompress_to_buffer`` take and return (inside a
    ``BufferWithSegmentsCollection``)."""

    __slots__ = ("_view", "_segments", "_raw", "size")

    def __init__(self, data, segments):
        view = _bytes_view(data).toreadonly()
        raw = _bytes_view(segments).toreadonly()
        if len(raw) % _SEGMENT.size:
            raise ValueError(f"segments array size is not a multiple of {_SEGMENT.size}")
        pairs = [p for p in _SEGMENT.iter_unpack(raw)]
        for offset, length in pairs:
            if offset + length > len(view):
                raise ValueError("offset within segments array references memory outside buffer")
        self._view = view
        self._segments = pairs
        self._raw = raw
        self.size = len(view)

    @classmethod
    def _of(cls, pieces):
        """The buffer of ``pieces`` (bytes objects) one after another, one
        segment each."""
        pairs, at = [], 0
        for piece in pieces:
            pairs.append(_SEGMENT.pack(at, len(piece)))
            at += len(piece)
        return cls(b"".join(pieces), b"".join(pairs))

    def __len__(self):
        return len(self._segments)

    def __getitem__(self, i):
        if i < 0:
            raise IndexError("offset must be non-negative")
        if i >= len(self._segments):
            raise IndexError(f"offset must be less than {len(self._segments)}")
        offset, length = self._segments[i]
        return BufferSegment(self._view[offset:offset + length], offset)

    def __buffer__(self, flags):
        return self._view.toreadonly()

    def segments(self):
        """The segments, as ``segments`` gave them (``BufferSegments``)."""
        return BufferSegments(self._raw, len(self._segments))

    def tobytes(self):
        return self._view.tobytes()


class BufferWithSegmentsCollection:
    """Several ``BufferWithSegments`` as one sequence of segments: ``len()``
    counts the segments of all, ``c[i]`` is the i-th of them, ``size()``
    the bytes of all."""

    def __init__(self, *buffers):
        if not buffers:
            raise ValueError("must pass at least 1 argument")
        for b in buffers:
            if not isinstance(b, BufferWithSegments):
                raise TypeError("arguments must be BufferWithSegments instances")
            if not len(b) or not b.size:
                raise ValueError("ZstdBufferWithSegments cannot be empty")
        self._join(buffers)

    @classmethod
    def _of(cls, buffers):
        """The collection of ``buffers``, which may be empty ones (the
        contents ``multi_decompress_to_buffer`` gives may all be
        empty)."""
        c = cls.__new__(cls)
        c._join(buffers)
        return c

    def _join(self, buffers):
        self._buffers = buffers
        # The index of each buffer's first segment.
        self._starts = []
        n = 0
        for b in buffers:
            self._starts.append(n)
            n += len(b)
        self._count = n

    def __len__(self):
        return self._count

    def __getitem__(self, i):
        if i < 0:
            raise IndexError("offset must be non-negative")
        if i >= self._count:
            raise IndexError(f"offset must be less than {self._count}")
        k = bisect.bisect_right(self._starts, i) - 1
        return self._buffers[k][i - self._starts[k]]

    def size(self):
        return sum(b.size for b in self._buffers)


def _pieces(data, wrong_type):
    """The items ``multi_*_to_buffer`` were given, as byte views: the
    segments of a ``BufferWithSegments`` or of a collection, or a list's
    bytes-like items."""
    if isinstance(data, BufferWithSegments):
        return [data[i]._view for i in range(len(data))]
    if isinstance(data, BufferWithSegmentsCollection):
        return [data[i]._view for i in range(len(data))]
    if isinstance(data, list):
        views = []
        for i, item in enumerate(data):
            try:
                views.append(_bytes_view(item))
            except TypeError:
                raise TypeError(f"item {i} not a bytes like object") from None
        return views
    raise TypeError(wrong_type)


def _in_threads(work, items, threads):
    """``work(start, items)`` over ``items`` in contiguous runs, one run a
    thread (``threads``: -1 one per CPU, 0 or 1 this thread only): a
    collection of the buffers the runs give, in order. lzkit's and
    libzstd's calls release the GIL, so the runs go in parallel."""
    if threads < 0:
        threads = os.cpu_count() or 1
    threads = max(1, min(threads, len(items)))
    per = -(-len(items) // threads)
    runs = [(i, items[i:i + per]) for i in range(0, len(items), per)]
    if len(runs) == 1:
        return BufferWithSegmentsCollection._of([work(*runs[0])])
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(runs)) as pool:
        buffers = list(pool.map(lambda run: work(*run), runs))
    return BufferWithSegmentsCollection._of(buffers)


# -- frame headers (RFC 8878, 3.1.1) ---------------------------------------

class _Header:
    __slots__ = ("size", "content_size", "window_size", "dict_id", "has_checksum")


def _header_size_from(fhd):
    """The header's length from its descriptor byte (magic included)."""
    single = fhd >> 5 & 1
    fcs = (0 if not single else 1, 2, 4, 8)[fhd >> 6]
    return 4 + 1 + (1 - single) + (0, 1, 2, 4)[fhd & 3] + fcs


def _parse_header(view, at=0):
    """The zstd frame header at ``view[at:]`` (its magic included); raises
    ZstdError: "not enough data for frame parameters; need N bytes" if
    cut, "Unknown frame descriptor" if not a zstd frame, "Unsupported
    frame parameter" or "Frame requires too much memory" if malformed."""
    if len(view) - at < 5:
        raise ZstdError("not enough data for frame parameters; need 6 bytes")
    if int.from_bytes(view[at:at + 4], "little") != MAGIC_NUMBER:
        raise ZstdError("cannot get frame parameters: Unknown frame descriptor")
    fhd = view[at + 4]
    size = _header_size_from(fhd)
    if len(view) - at < size:
        raise ZstdError(f"not enough data for frame parameters; need {size} bytes")
    if fhd & 0x08:
        raise ZstdError("cannot get frame parameters: Unsupported frame parameter")
    h = _Header()
    h.size = size
    h.has_checksum = bool(fhd & 0x04)
    pos = at + 5
    single = fhd >> 5 & 1
    window = 0
    if not single:
        wd = view[pos]
        pos += 1
        log = 10 + (wd >> 3)
        if log > WINDOWLOG_MAX:
            raise ZstdError("cannot get frame parameters: Frame requires too much memory")
        window = (1 << log) + ((1 << log) >> 3) * (wd & 7)
    did = (0, 1, 2, 4)[fhd & 3]
    h.dict_id = int.from_bytes(view[pos:pos + did], "little")
    pos += did
    fcs = (0 if not single else 1, 2, 4, 8)[fhd >> 6]
    if fcs:
        content = int.from_bytes(view[pos:pos + fcs], "little")
        if fcs == 2:
            content += 256
        h.content_size = content
    else:
        h.content_size = CONTENTSIZE_UNKNOWN
    h.window_size = h.content_size if single else window
    return h


def _frame_end(view, at=0):
    """Where the frame (zstd or skippable) starting at ``view[at]`` ends,
    from its headers and block headers alone; None if ``view`` ends first.
    Raises ZstdError for what is not a frame."""
    if len(view) - at < 4:
        return None
    magic = int.from_bytes(view[at:at + 4], "little")
    if magic & _SKIPPABLE_MASK == _SKIPPABLE_MAGIC:
        if len(view) - at < 8:
            return None
        end = at + 8 + int.from_bytes(view[at + 4:at + 8], "little")
        return end if end <= len(view) else None
    if len(view) - at < 5:
        if magic != MAGIC_NUMBER:
            raise ZstdError("Unknown frame descriptor")
        return None
    if magic != MAGIC_NUMBER:
        raise ZstdError("Unknown frame descriptor")
    size = _header_size_from(view[at + 4])
    if len(view) - at < size:
        return None
    h = _parse_header(view, at)
    pos = at + h.size
    while True:
        if len(view) - pos < 3:
            return None
        bh = int.from_bytes(view[pos:pos + 3], "little")
        kind = bh >> 1 & 3
        if kind == 3:
            raise ZstdError("decompression error: Data corruption detected (reserved block type)")
        pos += 3 + (1 if kind == 1 else bh >> 3)
        if bh & 1:
            break
    if h.has_checksum:
        pos += 4
    return pos if pos <= len(view) else None


class FrameParameters:
    """What a zstd frame header says: ``content_size``
    (``CONTENTSIZE_UNKNOWN`` if it does not), ``window_size``, ``dict_id``,
    ``has_checksum``."""

    def __init__(self, header):
        self.content_size = header.content_size
        self.window_size = header.window_size
        self.dict_id = header.dict_id
        self.has_checksum = header.has_checksum

    def __repr__(self):
        return (f"FrameParameters(content_size={self.content_size}, window_size={self.window_size}, "
                f"dict_id={self.dict_id}, has_checksum={self.has_checksum})")


def get_frame_parameters(data, format=FORMAT_ZSTD1):
    """The ``FrameParameters`` of the frame header at the start of
    ``data`` (``FORMAT_ZSTD1_MAGICLESS``: a header without its magic)."""
    view = _bytes_view(data)
    if format == FORMAT_ZSTD1_MAGICLESS:
        view = memoryview(FRAME_HEADER + view.tobytes()[:18])
    return FrameParameters(_parse_header(view))


def frame_content_size(data):
    """The content size the frame header at the start of ``data`` states;
    -1 if it states none."""
    try:
        h = _parse_header(_bytes_view(data))
    except ZstdError:
        raise ZstdError("error when determining content size") from None
    return -1 if h.content_size == CONTENTSIZE_UNKNOWN else h.content_size


def frame_header_size(data):
    """The length of the frame header at the start of ``data`` (from its
    descriptor byte; the magic number is not checked)."""
    view = _bytes_view(data)
    if len(view) < 5:
        raise ZstdError("could not determine frame header size: Src size is incorrect")
    return _header_size_from(view[4])


# -- parameters and dictionaries --------------------------------------------

_PARAM_NAMES = (
    "window_log", "hash_log", "chain_log", "search_log", "min_match",
    "target_length", "strategy", "enable_ldm", "ldm_hash_log", "ldm_min_match",
    "ldm_bucket_size_log", "ldm_hash_rate_log", "job_size", "overlap_log",
)


_LEVEL_PARAM_NAMES = ("window_log", "chain_log", "hash_log", "search_log", "min_match",
                      "target_length", "strategy")


class ZstdCompressionParameters:
    """libzstd's advanced compression parameters, python-zstandard's names;
    0 (or unset) leaves a parameter to libzstd's choice for the level."""

    def __init__(self, format=FORMAT_ZSTD1, compression_level=0, window_log=0, hash_log=0,
                 chain_log=0, search_log=0, min_match=0, target_length=0, strategy=-1,
                 write_content_size=1, write_checksum=0, write_dict_id=0, job_size=0,
                 overlap_log=-1, force_max_window=0, enable_ldm=0, ldm_hash_log=0,
                 ldm_min_match=0, ldm_bucket_size_log=0, ldm_hash_rate_log=-1, threads=0):
        if threads < 0:
            threads = os.cpu_count() or 1
        self.format = format
        self.compression_level = compression_level
        self.window_log = window_log
        self.hash_log = hash_log
        self.chain_log = chain_log
        self.search_log = search_log
        self.min_match = min_match
        self.target_length = target_length
        self.strategy = strategy
        self.write_content_size = int(bool(write_content_size))
        self.write_checksum = int(bool(write_checksum))
        self.write_dict_id = int(bool(write_dict_id))
        self.job_size = job_size
        self.overlap_log = overlap_log
        self.force_max_window = int(bool(force_max_window))
        self.enable_ldm = int(bool(enable_ldm))
        self.ldm_hash_log = ldm_hash_log
        self.ldm_min_match = ldm_min_match
        self.ldm_bucket_size_log = ldm_bucket_size_log
        self.ldm_hash_rate_log = ldm_hash_rate_log
        self.threads = threads
        # Refused now, as python-zstandard refuses out-of-range values.
        self._apply(_CCtx())

    @classmethod
    def from_level(cls, level, source_size=0, dict_size=0, **kwargs):
        """The parameters libzstd's ``level`` means for a source of
        ``source_size`` bytes (0: unknown) and a dictionary of
        ``dict_size``; ``kwargs`` set others (or override these)."""
        values = dict(zip(_LEVEL_PARAM_NAMES, _level_params(level, source_size, dict_size)))
        values.update(kwargs)
        return cls(**values)

    def estimated_compression_context_size(self):
        """libzstd's estimate of a compression context's memory with these
        parameters, in bytes."""
        level = _level_params(self.compression_level or 3)
        values = tuple(getattr(self, n) if getattr(self, n) > 0 else d
                       for n, d in zip(_LEVEL_PARAM_NAMES, level))
        return _estimate_cctx_size(values)

    def _apply(self, ctx):
        if self.compression_level:
            ctx.set("level", self.compression_level)
        if self.format != FORMAT_ZSTD1:
            ctx.set("format", self.format)
        if self.force_max_window:
            ctx.set("force_max_window", 1)
        for name in _PARAM_NAMES:
            value = getattr(self, name)
            if value > 0:
                ctx.set(name, value)
        ctx.set("write_content_size", self.write_content_size)
        ctx.set("write_checksum", self.write_checksum)
        ctx.set("write_dict_id", self.write_dict_id)
        if self.threads:
            ctx.set("threads", self.threads)


class ZstdCompressionDict:
    """A dictionary: zstd-format (``DICT_TYPE_FULLDICT``, as
    ``train_dictionary`` makes) or raw content (``DICT_TYPE_RAWCONTENT``);
    ``DICT_TYPE_AUTO``: zstd-format if it starts with the dictionary
    magic."""

    _MAGIC = b"\x37\xa4\x30\xec"

    def __init__(self, data, dict_type=DICT_TYPE_AUTO, k=0, d=0):
        view = _bytes_view(data)
        if dict_type not in (DICT_TYPE_AUTO, DICT_TYPE_RAWCONTENT, DICT_TYPE_FULLDICT):
            raise ValueError("invalid dictionary load mode: %d; must use DICT_TYPE_* constants" % dict_type)
        self._data = view.tobytes()
        self._dict_type = dict_type
        self.k = k
        self.d = d

    def __len__(self):
        return len(self._data)

    def as_bytes(self):
        return self._data

    def dict_id(self):
        """The ID in a zstd-format dictionary's header; 0 for raw content."""
        if self._dict_type != DICT_TYPE_RAWCONTENT and len(self._data) >= 8 and self._data.startswith(self._MAGIC):
            return int.from_bytes(self._data[4:8], "little")
        return 0

    def precompute_compress(self, level=0, compression_params=None):
        """Check the dictionary for compression at ``level`` (or with
        ``compression_params``); libzstd digests it when a compressor
        loads it."""
        if level and compression_params is not None:
            raise ValueError("must only specify one of level or compression_params")
        if not level and compression_params is None:
            raise ValueError("must specify one of level or compression_params")
        if self._dict_type == DICT_TYPE_FULLDICT and not self._data.startswith(self._MAGIC):
            raise ZstdError("unable to precompute dictionary: Dictionary mismatch")

    def _for_decoder(self):
        return self._data if self._dict_type != DICT_TYPE_RAWCONTENT or not self._data.startswith(self._MAGIC) else None


def train_dictionary(dict_size, samples, k=0, d=0, f=0, split_point=0.0, accel=0,
                     notifications=0, dict_id=0, level=0, steps=0, threads=0):
    """A zstd-format dictionary of at most ``dict_size`` bytes trained on
    ``samples`` (a list of bytes) by libzstd's fastCover trainer
    (``ZDICT_optimizeTrainFromBuffer_fastCover``), as python-zstandard's:
    the same dictionary. ``k``, ``d`` (0: searched; the dictionary's
    ``k``, ``d`` are those chosen), ``f``, ``split_point``, ``accel``,
    ``steps`` are the trainer's, ``threads`` its threads (-1: one per
    CPU), ``level`` the compression level it tunes for, ``dict_id`` the
    dictionary's ID (0: random), ``notifications`` its log level (to
    stderr)."""
    if not isinstance(samples, list):
        raise TypeError("samples must be a list")
    chunks = []
    for s in samples:
        if not isinstance(s, bytes):
            raise ValueError("samples must be bytes")
        chunks.append(s)
    if not chunks:
        raise ZstdError("cannot train dict: no samples")
    if threads < 0:
        threads = os.cpu_count() or 1
    data, k, d = _train(dict_size, chunks, dict(
        k=k, d=d, f=f, split_point=float(split_point), accel=accel, notifications=notifications,
        dict_id=dict_id, level=level, steps=steps, threads=threads))
    return ZstdCompressionDict(data, dict_type=DICT_TYPE_FULLDICT, k=k, d=d)


# -- compression -------------------------------------------------------------

def _split(data, size):
    """``data`` in pieces of at most ``size`` bytes."""
    if len(data) <= size:
        return [data] if data else []
    return [data[i:i + size] for i in range(0, len(data), size)]


class _Source:
    """Reads of ``source`` (a file object, or a buffer) of at most
    ``read_size`` bytes; ValueError if it is neither."""

    def __init__(self, source, read_size):
        if hasattr(source, "read"):
            self._file = source
            self._view = None
        else:
            try:
                self._view = _bytes_view(source)
            except TypeError:
                raise ValueError("must pass an object with a read() method or conforms to buffer protocol") from None
            self._file = None
            self._pos = 0
        self._size = read_size
        self.consumed = 0

    def read(self, n=-1):
        n = self._size if n is None or n < 0 else min(n, self._size)
        if self._file is not None:
            data = self._file.read(n)
        else:
            data = self._view[self._pos:self._pos + n].tobytes()
            self._pos += len(data)
        self.consumed += len(data)
        return data


class ZstdCompressor:
    """python-zstandard's compressor: one libzstd context, its parameters
    set once (``level``, a dictionary, ``compression_params``, the frame
    flags, ``threads``: libzstd workers, -1 for one per CPU)."""

    def __init__(self, level=3, dict_data=None, compression_params=None, write_checksum=None,
                 write_content_size=None, write_dict_id=None, threads=0):
        if level > MAX_COMPRESSION_LEVEL:
            raise ValueError(f"level must be less than {MAX_COMPRESSION_LEVEL + 1}")
        if threads < 0:
            threads = os.cpu_count() or 1
        if compression_params is not None:
            for name, value in (("write_checksum", write_checksum),
                                ("write_content_size", write_content_size),
                                ("write_dict_id", write_dict_id)):
                if value is not None:
                    raise ValueError(f"cannot define compression_params and {name}")
            if threads:
                raise ValueError("cannot define compression_params and threads")
        self._ctx = _CCtx()
        self._dict = dict_data
        # For the compressors of multi_compress_to_buffer's threads.
        self._args = dict(level=level, dict_data=dict_data, compression_params=compression_params,
                          write_checksum=write_checksum, write_content_size=write_content_size,
                          write_dict_id=write_dict_id, threads=threads)
        if compression_params is not None:
            compression_params._apply(self._ctx)
            self._write_content_size = bool(compression_params.write_content_size)
        else:
            self._ctx.set("level", level)
            self._ctx.set("write_checksum", bool(write_checksum))
            self._write_content_size = write_content_size is None or bool(write_content_size)
            self._ctx.set("write_content_size", self._write_content_size)
            self._ctx.set("write_dict_id", write_dict_id is None or bool(write_dict_id))
            if threads:
                self._ctx.set("threads", threads)
        if dict_data is not None:
            self._ctx.load_dict(dict_data.as_bytes())

    def memory_size(self):
        return self._ctx.memory_size()

    def frame_progression(self):
        """The frame in progress: (bytes given, bytes compressed, bytes
        produced)."""
        return self._ctx.progression()

    def compress(self, data):
        """``data`` as one frame (its size in the header unless
        ``write_content_size=False``)."""
        return self._ctx.compress(_bytes_view(data))

    def multi_compress_to_buffer(self, data, threads=0):
        """Each item of ``data`` (a list of bytes-like objects, a
        ``BufferWithSegments`` or a ``BufferWithSegmentsCollection``) as a
        frame of its own, as ``compress`` makes it: a
        ``BufferWithSegmentsCollection`` of the frames, in order.
        ``threads``: the items are split among that many threads (-1: one
        per CPU), each with a compressor of these settings."""
        items = _pieces(data, "argument must be list of BufferWithSegments")
        if not items:
            raise ValueError("no source elements found")
        if not any(len(v) for v in items):
            raise ValueError("source elements are empty")

        def work(start, run):
            c = self if threads in (0, 1) else ZstdCompressor(**self._args)
            out = []
            for i, view in enumerate(run, start):
                try:
                    out.append(c._ctx.compress(view))
                except ZstdError as e:
                    raise ZstdError(f"error compressing item {i}: {e}") from None
            return BufferWithSegments._of(out)

        return _in_threads(work, items, threads)

    def _begin(self, size):
        self._ctx.begin(None if size is None or size < 0 else size)

    def compressobj(self, size=-1, chunk_size=COMPRESSION_RECOMMENDED_OUTPUT_SIZE):
        """A ``zlib.compressobj``-like object writing one frame (of
        ``size`` bytes if given)."""
        if chunk_size < 1:
            raise ValueError("chunk_size must be positive")
        self._begin(size)
        return ZstdCompressionObj(self)

    def chunker(self, size=-1, chunk_size=COMPRESSION_RECOMMENDED_OUTPUT_SIZE):
        """A compressor whose output comes in chunks of exactly
        ``chunk_size`` bytes (the last of a flush or of the frame shorter)."""
        if chunk_size < 1:
            raise ValueError("chunk_size must be positive")
        self._begin(size)
        return ZstdCompressionChunker(self, chunk_size)

    def stream_writer(self, writer, size=-1, write_size=COMPRESSION_RECOMMENDED_OUTPUT_SIZE,
                      write_return_read=True, closefd=True):
        """A write-only stream compressing into ``writer``."""
        if not hasattr(writer, "write"):
            raise ValueError("must pass an object with a write() method")
        self._begin(size)
        return ZstdCompressionWriter(self, writer, write_size, write_return_read, closefd)

    def stream_reader(self, source, size=-1, read_size=COMPRESSION_RECOMMENDED_INPUT_SIZE, closefd=True):
        """A read-only stream of the compressed bytes of ``source`` (a file
        object or a buffer)."""
        src = _Source(source, read_size)
        if size < 0 and src._view is not None:
            size = len(src._view)
        self._begin(size)
        return ZstdCompressionReader(self, source, src, closefd)

    def read_to_iter(self, reader, size=-1, read_size=COMPRESSION_RECOMMENDED_INPUT_SIZE,
                     write_size=COMPRESSION_RECOMMENDED_OUTPUT_SIZE):
        """Compressed chunks (at most ``write_size`` bytes each) of what
        ``reader`` (a file object or a buffer) holds."""
        src = _Source(reader, read_size)
        if size < 0 and src._view is not None:
            size = len(src._view)
        self._begin(size)
        while True:
            data = src.read(read_size)
            if not data:
                break
            yield from _split(self._ctx.stream(data, 0), write_size)
        yield from _split(self._ctx.stream(b"", 2), write_size)

    def copy_stream(self, ifh, ofh, size=-1, read_size=COMPRESSION_RECOMMENDED_INPUT_SIZE,
                    write_size=COMPRESSION_RECOMMENDED_OUTPUT_SIZE):
        """Compress all of ``ifh`` into ``ofh``; returns (bytes read,
        bytes written)."""
        if not hasattr(ifh, "read"):
            raise ValueError("first argument must have a read() method")
        if not hasattr(ofh, "write"):
            raise ValueError("second argument must have a write() method")
        self._begin(size)
        total_in = total_out = 0
        while True:
            data = ifh.read(read_size)
            if not data:
                break
            total_in += len(data)
            for chunk in _split(self._ctx.stream(data, 0), write_size):
                ofh.write(chunk)
                total_out += len(chunk)
        for chunk in _split(self._ctx.stream(b"", 2), write_size):
            ofh.write(chunk)
            total_out += len(chunk)
        return total_in, total_out


class ZstdCompressionObj:
    """``compress(data)`` then ``flush()``: one frame, as
    ``zlib.compressobj``."""

    def __init__(self, compressor):
        self._ctx = compressor._ctx
        self._finished = False

    def compress(self, data):
        if self._finished:
            raise ZstdError("cannot call compress() after compressor finished")
        return self._ctx.stream(_bytes_view(data), 0)

    def flush(self, flush_mode=COMPRESSOBJ_FLUSH_FINISH):
        if flush_mode not in (COMPRESSOBJ_FLUSH_FINISH, COMPRESSOBJ_FLUSH_BLOCK):
            raise ValueError("flush mode not recognized")
        if self._finished:
            raise ZstdError("compressor object already finished")
        if flush_mode == COMPRESSOBJ_FLUSH_BLOCK:
            return self._ctx.stream(b"", 1)
        self._finished = True
        return self._ctx.stream(b"", 2)


class ZstdCompressionChunker:
    """``compress(data)``, ``flush()`` and ``finish()`` each give an
    iterator of output chunks of ``chunk_size`` bytes; ``flush`` and
    ``finish`` also give what is left (shorter)."""

    def __init__(self, compressor, chunk_size):
        self._ctx = compressor._ctx
        self._size = chunk_size
        self._pending = bytearray()
        self._finished = False

    def _check(self, what):
        if self._finished:
            raise ZstdError(f"cannot call {what}() after compression finished")

    def _full_chunks(self):
        while len(self._pending) >= self._size:
            chunk = bytes(self._pending[:self._size])
            del self._pending[:self._size]
            yield chunk

    def _rest(self):
        yield from self._full_chunks()
        if self._pending:
            chunk = bytes(self._pending)
            self._pending.clear()
            yield chunk

    def compress(self, data):
        self._check("compress")
        self._pending += self._ctx.stream(_bytes_view(data), 0)
        yield from self._full_chunks()

    def flush(self):
        self._check("flush")
        self._pending += self._ctx.stream(b"", 1)
        yield from self._rest()

    def finish(self):
        self._check("finish")
        self._pending += self._ctx.stream(b"", 2)
        self._finished = True
        yield from self._rest()


class _WriteOnly:
    """The io methods a write-only stream refuses, as python-zstandard's."""

    def isatty(self):
        return False

    def readable(self):
        return False

    def seekable(self):
        return False

    def writable(self):
        return True

    def __iter__(self):
        raise io.UnsupportedOperation()

    def __next__(self):
        raise io.UnsupportedOperation()

    def readline(self, size=-1):
        raise io.UnsupportedOperation()

    def readlines(self, hint=-1):
        raise io.UnsupportedOperation()

    def seek(self, offset, whence=None):
        raise io.UnsupportedOperation()

    def truncate(self, size=None):
        raise io.UnsupportedOperation()

    def writelines(self, lines):
        raise NotImplementedError("writelines() is not yet implemented")

    def read(self, size=-1):
        raise io.UnsupportedOperation()

    def readall(self):
        raise io.UnsupportedOperation()

    def readinto(self, b):
        raise io.UnsupportedOperation()

    def fileno(self):
        f = getattr(self._writer, "fileno", None)
        if f is None:
            raise OSError("fileno not available on underlying writer")
        return f()

    @property
    def closed(self):
        return self._closed

    def __enter__(self):
        if self._closed:
            raise ValueError("stream is closed")
        if self._entered:
            raise ZstdError("cannot __enter__ multiple times")
        self._entered = True
        return self

    def __exit__(self, exc_type, exc_value, exc_tb):
        self._entered = False
        self.close()
        return False

    def _emit(self, data):
        written = 0
        for chunk in _split(data, self._write_size):
            self._writer.write(chunk)
            written += len(chunk)
        return written


class ZstdCompressionWriter(_WriteOnly):
    """Bytes written are compressed into the writer (in writes of at most
    ``write_size`` bytes); ``flush(FLUSH_BLOCK)`` makes what was written
    decodable, ``flush(FLUSH_FRAME)`` ends the frame, ``close()`` ends it
    and closes the writer (with ``closefd``)."""

    def __init__(self, compressor, writer, write_size, write_return_read, closefd):
        self._compressor = compressor
        self._ctx = compressor._ctx
        self._writer = writer
        self._write_size = write_size
        self._write_return_read = write_return_read
        self._closefd = closefd
        self._closed = False
        self._entered = False
        self._total = 0

    def memory_size(self):
        return self._ctx.memory_size()

    def tell(self):
        """Compressed bytes written to the writer so far."""
        return self._total

    def write(self, data):
        if self._closed:
            raise ValueError("stream is closed")
        view = _bytes_view(data)
        n = self._emit(self._ctx.stream(view, 0))
        self._total += n
        return len(view) if self._write_return_read else n

    def flush(self, flush_mode=FLUSH_BLOCK):
        if flush_mode not in (FLUSH_BLOCK, FLUSH_FRAME):
            raise ValueError(f"unknown flush_mode: {flush_mode!r}")
        if self._closed:
            raise ValueError("stream is closed")
        n = self._emit(self._ctx.stream(b"", 1 if flush_mode == FLUSH_BLOCK else 2))
        self._total += n
        f = getattr(self._writer, "flush", None)
        if f is not None:
            f()
        return n

    def close(self):
        if self._closed:
            return
        try:
            self._total += self._emit(self._ctx.stream(b"", 2))
        finally:
            self._closed = True
        # Not reached if the frame could not be ended (the writer stays
        # open, as python-zstandard leaves it).
        if self._closefd:
            c = getattr(self._writer, "close", None)
            if c is not None:
                c()


class _ReadOnly:
    """The io methods a read-only stream refuses, as python-zstandard's."""

    def readable(self):
        return True

    def seekable(self):
        return False

    def writable(self):
        return False

    def readline(self, size=-1):
        raise io.UnsupportedOperation()

    def readlines(self, hint=-1):
        raise io.UnsupportedOperation()

    def writelines(self, lines):
        raise io.UnsupportedOperation()

    def __iter__(self):
        raise io.UnsupportedOperation()

    def __next__(self):
        raise io.UnsupportedOperation()


class ZstdCompressionReader(_ReadOnly, io.RawIOBase):
    """The compressed bytes of a source, read as a stream."""

    def __init__(self, compressor, source, src, closefd):
        super().__init__()
        self._ctx = compressor._ctx
        self._source = source
        self._src = src
        self._closefd = closefd
        self._pending = b""
        self._done = False
        self._total = 0
        self._entered = False

    def __enter__(self):
        if self._entered:
            raise ValueError("cannot __enter__ multiple times")
        if self.closed:
            raise ValueError("stream is closed")
        self._entered = True
        return self

    def __exit__(self, *exc):
        self._entered = False
        self.close()
        return False

    def close(self):
        if self.closed:
            return
        super().close()
        if self._closefd and hasattr(self._source, "close"):
            self._source.close()

    def tell(self):
        return self._total

    def write(self, data):
        raise io.UnsupportedOperation()

    def _fill(self, want):
        while len(self._pending) < want and not self._done:
            data = self._src.read()
            if data:
                self._pending += self._ctx.stream(data, 0)
            else:
                self._pending += self._ctx.stream(b"", 2)
                self._done = True

    def read(self, size=-1):
        if self.closed:
            raise ValueError("stream is closed")
        if size is not None and size < -1:
            raise ValueError("cannot read negative amounts less than -1")
        if size is None or size < 0:
            self._fill(float("inf"))
            out, self._pending = self._pending, b""
        else:
            if size == 0:
                return b""
            self._fill(1)
            out, self._pending = self._pending[:size], self._pending[size:]
        self._total += len(out)
        return out

    def read1(self, size=-1):
        return self.read(size)

    def readall(self):
        return self.read(-1)

    def readinto(self, b):
        with memoryview(b) as view, view.cast("B") as out:
            data = self.read(len(out))
            out[:len(data)] = data
            return len(data)

    def readinto1(self, b):
        return self.readinto(b)


# -- decompression -----------------------------------------------------------

class ZstdDecompressor:
    """python-zstandard's decompressor, on lzkit's decoder: a dictionary
    (``dict_data``), the largest window a stream may use
    (``max_window_size``, default 128 MiB), and frames without their magic
    number (``format=FORMAT_ZSTD1_MAGICLESS``)."""

    def __init__(self, dict_data=None, max_window_size=0, format=FORMAT_ZSTD1):
        if format not in (FORMAT_ZSTD1, FORMAT_ZSTD1_MAGICLESS):
            raise ValueError(f"invalid format value: {format}")
        self._dict = dict_data
        self._max_window_size = max_window_size
        self._window_log_max = max(10, (max_window_size - 1).bit_length()) if max_window_size else 27
        self._format = format

    def memory_size(self):
        """A fixed figure (128 KiB), not a measure: lzkit's decoder takes
        its window and tables with each frame."""
        return 1 << 17

    def _dict_bytes(self):
        return None if self._dict is None else self._dict._for_decoder()

    def _view(self, data):
        view = _bytes_view(data)
        if self._format == FORMAT_ZSTD1_MAGICLESS:
            view = memoryview(FRAME_HEADER + view.tobytes())
        return view

    def decompress(self, data, max_output_size=0, read_across_frames=False, allow_extra_data=True):
        """The first frame of ``data`` decoded. A frame that does not state
        its content size needs ``max_output_size``;
        ``allow_extra_data=False`` refuses anything after the frame.
        ``read_across_frames=True`` raises ZstdError, as python-zstandard's
        (``stream_reader`` and ``decompressobj`` take it)."""
        if read_across_frames:
            raise ZstdError("ZstdDecompressor.read_across_frames=True is not yet implemented")
        view = self._view(data)
        try:
            h = _parse_header(view)
        except ZstdError:
            raise ZstdError("error determining content size from frame header") from None
        if h.content_size == CONTENTSIZE_UNKNOWN:
            if not max_output_size:
                raise ZstdError("could not determine content size in frame header")
            if self._max_window_size and h.window_size > self._max_window_size:
                raise ZstdError("decompression error: Frame requires too much memory")
            if max_output_size >= 1 << 48:
                raise MemoryError(f"max_output_size {max_output_size} is more than can be allocated")
        try:
            end = _frame_end(view)
        except ZstdError as e:
            raise ZstdError(f"decompression error: {e}") from None
        if end is None:
            end = len(view)
        elif end < len(view):
            if not allow_extra_data:
                raise ZstdError(f"compressed input contains {len(view) - end} bytes of unused data, which is disallowed")
        frame = view[:end]
        if h.content_size != CONTENTSIZE_UNKNOWN:
            return self._decode(frame, 0)
        try:
            return self._decode(frame, max_output_size)
        except ZstdError as e:
            if "max_output_size" in str(e) or "does not fit" in str(e):
                raise ZstdError("decompression error: did not decompress full frame") from e
            raise

    def _decode(self, frame, max_output_size):
        try:
            return _decompress(frame, max_output_size, self._dict_bytes())
        except ZstdError as e:
            msg = str(e)
            if msg.startswith(("decompression error", "could not")):
                raise
            raise ZstdError(f"decompression error: {msg}") from None

    def multi_decompress_to_buffer(self, frames, decompressed_sizes=None, threads=0):
        """Each item of ``frames`` (a list of bytes-like objects, a
        ``BufferWithSegments`` or a ``BufferWithSegmentsCollection``: one
        frame each) decoded: a ``BufferWithSegmentsCollection`` of the
        contents, in order. An item's size is its frame header's, or the
        item's entry in ``decompressed_sizes`` (native-endian unsigned
        64-bit integers, one an item), which a frame must then decode to
        exactly. ``threads``: the items are split among that many threads
        (-1: one per CPU)."""
        items = _pieces(frames, "argument must be list or BufferWithSegments")
        if not items:
            raise ValueError("no source elements found")
        sizes = [0] * len(items)
        if decompressed_sizes is not None:
            raw = _bytes_view(decompressed_sizes)
            if len(raw) != 8 * len(items):
                raise ValueError(f"decompressed_sizes size mismatch; expected {8 * len(items)}, got {len(raw)}")
            sizes = [n for (n,) in struct.iter_unpack("=Q", raw)]
        for i, view in enumerate(items):
            if sizes[i]:
                continue
            try:
                h = _parse_header(self._view(view))
            except ZstdError:
                h = None
            if h is None or h.content_size == CONTENTSIZE_UNKNOWN:
                raise ValueError(f"could not determine decompressed size of item {i}")
            sizes[i] = h.content_size
        dict_bytes = self._dict_bytes()

        def work(start, run):
            out = []
            for i, (view, size) in enumerate(run, start):
                try:
                    data = _decompress(self._view(view), size, dict_bytes)
                except ZstdError as e:
                    msg = str(e)
                    too_small = ("over max_output_size", "more than max_output_size", "does not fit")
                    what = "Destination buffer is too small" if any(t in msg for t in too_small) \
                        else "Data corruption detected"
                    raise ZstdError(f"error decompressing item {i}: {what} ({msg})") from None
                if len(data) != size:
                    raise ZstdError(f"error decompressing item {i}: decompressed {len(data)} bytes; expected {size}")
                out.append(data)
            return BufferWithSegments._of(out)

        return _in_threads(work, list(zip(items, sizes)), threads)

    def decompressobj(self, write_size=DECOMPRESSION_RECOMMENDED_OUTPUT_SIZE, read_across_frames=False):
        """A ``zlib.decompressobj``-like object: ``decompress(data)`` as the
        data arrives; ``eof`` after the frame, what follows it in
        ``unused_data`` (with ``read_across_frames``, the next frames are
        decoded too)."""
        if write_size < 1:
            raise ValueError("write_size must be positive")
        return ZstdDecompressionObj(self, write_size, read_across_frames)

    def stream_reader(self, source, read_size=DECOMPRESSION_RECOMMENDED_INPUT_SIZE,
                      read_across_frames=False, closefd=True):
        """A read-only stream of the decoded bytes of ``source`` (a file
        object, or a buffer), decoded as it is read, in bounded memory.
        Every frame is read; one ``read()`` ends at a frame's end unless
        ``read_across_frames``."""
        return ZstdDecompressionReader(self, source, read_size, closefd, read_across_frames)

    def stream_writer(self, writer, write_size=DECOMPRESSION_RECOMMENDED_OUTPUT_SIZE,
                      write_return_read=True, closefd=True):
        """A write-only stream: compressed bytes written to it are decoded
        into ``writer``."""
        if not hasattr(writer, "write"):
            raise ValueError("must pass an object with a write() method")
        return ZstdDecompressionWriter(self, writer, write_size, write_return_read, closefd)

    def read_to_iter(self, reader, read_size=DECOMPRESSION_RECOMMENDED_INPUT_SIZE,
                     write_size=DECOMPRESSION_RECOMMENDED_OUTPUT_SIZE, skip_bytes=0):
        """Decoded chunks (at most ``write_size`` bytes each) of the first
        frame of what ``reader`` (a file object or a buffer) holds, decoded
        as it is read (the source is read up to the frame's end, not past
        it); the first ``skip_bytes`` of the input are skipped."""
        if skip_bytes >= read_size:
            raise ValueError("skip_bytes must be smaller than read_size")
        src = _Source(reader, read_size)
        if skip_bytes:
            if src._view is not None and skip_bytes > len(src._view):
                raise ValueError("skip_bytes larger than first input chunk")
            src.read(skip_bytes)
        return self._iter(src, write_size, True)

    def _iter(self, src, write_size, one_frame):
        """The decoded chunks of ``src`` (every frame, or the first)."""
        stream = src if self._format == FORMAT_ZSTD1 else _Prefixed(FRAME_HEADER, src)
        if self._dict is not None:
            obj = ZstdDecompressionObj(self, write_size, not one_frame)
            while not obj.eof:
                data = stream.read()
                if not data:
                    break
                yield from _split(obj.decompress(data), write_size)
            return
        if one_frame:
            stream = _OneFrame(stream)
        raw = _RawReader(stream, "zstd", 1, self._window_log_max)
        while True:
            try:
                chunk = raw._reader.read(write_size)
            except ZstdError as e:
                raise _stream_error(e) from None
            if not chunk:
                return
            yield chunk

    def copy_stream(self, ifh, ofh, read_size=DECOMPRESSION_RECOMMENDED_INPUT_SIZE,
                    write_size=DECOMPRESSION_RECOMMENDED_OUTPUT_SIZE):
        """Decode all of ``ifh`` into ``ofh``; returns (bytes read, bytes
        written)."""
        if not hasattr(ifh, "read"):
            raise ValueError("first argument must have a read() method")
        if not hasattr(ofh, "write"):
            raise ValueError("second argument must have a write() method")
        src = _Source(ifh, read_size)
        total_out = 0
        for chunk in self._iter(src, write_size, False):
            ofh.write(chunk)
            total_out += len(chunk)
        return src.consumed, total_out

    def decompress_content_dict_chain(self, frames):
        """The last of a chain of frames, each compressed with the previous
        one's content as its dictionary."""
        if not isinstance(frames, list):
            raise TypeError("argument must be a list")
        if not frames:
            raise ValueError("empty input chain")
        out = None
        for i, chunk in enumerate(frames):
            if not isinstance(chunk, bytes):
                raise ValueError(f"chunk {i} must be bytes")
            view = _bytes_view(chunk)
            if len(view) < 6:
                raise ValueError(f"chunk {i} is too small to contain a zstd frame")
            try:
                h = _parse_header(view)
            except ZstdError:
                raise ValueError(f"chunk {i} is not a valid zstd frame") from None
            if h.content_size == CONTENTSIZE_UNKNOWN:
                raise ValueError(f"chunk {i} missing content size in frame")
            try:
                out = _decompress(view, 0, out)
            except ZstdError as e:
                raise ZstdError(f"chunk {i} did not decompress full frame ({e})") from None
        return out


def _stream_error(e):
    """lzkit's streaming decoder's error, with libzstd's words first where
    python-zstandard's users match them."""
    msg = str(e)
    if "unknown magic number" in msg:
        return ZstdError(f"zstd decompress error: Unknown frame descriptor ({msg})")
    return ZstdError(f"zstd decompress error: {msg}")


class ZstdDecompressionReader(_ReadOnly):
    """The decoded bytes of a compressed source, read as a stream (lzkit's
    streaming decoder; bounded memory). Seeks forward only, by decoding."""

    def __init__(self, decompressor, source, read_size, closefd, read_across_frames=False):
        self._source = source
        src = _Source(source, read_size)
        self._d = decompressor
        self._across = read_across_frames
        self._frames = None
        if decompressor._dict is not None:
            self._raw = _PushedReader(src, decompressor)
        else:
            # One frame at a time, so that a read can end at a frame's end.
            self._frames = _OneFrame(src)
            self._raw = self._frame_reader()
        self._closefd = closefd and hasattr(source, "read")
        self._closed = False
        self._entered = False
        self._pos = 0

    def __enter__(self):
        if self._entered:
            raise ValueError("cannot __enter__ multiple times")
        if self._closed:
            raise ValueError("stream is closed")
        self._entered = True
        return self

    def __exit__(self, *exc):
        self._entered = False
        self.close()
        return False

    @property
    def closed(self):
        return self._closed

    def close(self):
        if self._closed:
            return
        self._closed = True
        self._raw = None
        if self._closefd:
            c = getattr(self._source, "close", None)
            if c is not None:
                c()

    def isatty(self):
        return False

    def flush(self):
        return None

    def write(self, data):
        raise io.UnsupportedOperation()

    def tell(self):
        """Decoded bytes read so far."""
        return self._pos

    def _check(self):
        if self._closed:
            raise ValueError("stream is closed")

    def _size(self, size):
        """``size`` checked: -1 for None, ValueError below -1."""
        self._check()
        if size is None:
            return -1
        if size < -1:
            raise ValueError("cannot read negative amounts less than -1")
        return size

    def read(self, size=-1):
        size = self._size(size)
        if size == 0:
            return b""
        try:
            out = self._read(size)
        except ZstdError as e:
            raise _stream_error(e) from None
        self._pos += len(out)
        return out

    def _frame_reader(self):
        stream = self._frames if self._d._format == FORMAT_ZSTD1 else _Prefixed(FRAME_HEADER, self._frames)
        return _RawReader(stream, "zstd", 1, self._d._window_log_max)._reader

    def _read(self, size):
        if self._frames is None:
            return self._raw.read(size)
        out = b""
        while True:
            out += self._raw.read(size - len(out) if size >= 0 else -1)
            if size >= 0 and len(out) == size:
                return out
            # The frame has ended (or the input).
            if not self._frames.next_frame():
                return out
            self._raw = self._frame_reader()
            if out and not self._across and size >= 0:
                return out

    def readall(self):
        return self.read(-1)

    def read1(self, size=-1):
        """Up to ``size`` decoded bytes (-1: up to
        ``DECOMPRESSION_RECOMMENDED_OUTPUT_SIZE``), as soon as there are
        any: what was decoded already, else what the next read of the
        source gives (more reads only while they give no output), as
        python-zstandard's ``read1``."""
        size = self._size(size)
        if size == 0:
            return b""
        if size < 0:
            size = DECOMPRESSION_RECOMMENDED_OUTPUT_SIZE
        try:
            out = self._read1(size)
        except ZstdError as e:
            raise _stream_error(e) from None
        self._pos += len(out)
        return out

    def _read1(self, size):
        if self._frames is None:
            return self._raw.read1(size)
        while True:
            out = self._raw.read1(size)
            if out:
                return out
            # The frame has ended (or the input): on to the next, if any.
            if not self._frames.next_frame():
                return b""
            self._raw = self._frame_reader()

    def readinto(self, b):
        self._check()
        with memoryview(b) as view, view.cast("B") as out:
            data = self.read(len(out))
            out[:len(data)] = data
            return len(data)

    def readinto1(self, b):
        self._check()
        with memoryview(b) as view, view.cast("B") as out:
            if not len(out):
                return 0
            data = self.read1(len(out))
            out[:len(data)] = data
            return len(data)

    def seek(self, pos, whence=os.SEEK_SET):
        self._check()
        if whence == os.SEEK_SET:
            if pos < 0:
                raise OSError("cannot seek to negative position with SEEK_SET")
            target = pos
        elif whence == os.SEEK_CUR:
            target = self._pos + pos
        elif whence == os.SEEK_END:
            raise OSError("zstd decompression streams cannot be seeked with SEEK_END")
        else:
            raise ValueError(f"invalid whence ({whence})")
        if target < self._pos:
            raise OSError("cannot seek zstd decompression stream backwards")
        while self._pos < target:
            if not self.read(min(target - self._pos, DECOMPRESSION_RECOMMENDED_OUTPUT_SIZE)):
                break
        return self._pos


class _OneFrame:
    """The reads of ``source``, up to the end of the frame they are in:
    after it, ``b""`` until ``next_frame()``."""

    def __init__(self, source):
        self._src = source
        self._left = b""
        self._scan = _FrameScanner()
        self._ended = False

    def read(self, n=-1):
        if self._ended:
            return b""
        data, self._left = (self._left or self._src.read(n)), b""
        if n is not None and 0 <= n < len(data):
            data, self._left = data[:n], data[n:]
        if not data:
            return b""
        end = self._scan.feed(memoryview(data))
        if end is not None:
            data, self._left = data[:end], data[end:] + self._left
            self._ended = True
        return data

    def next_frame(self):
        """Start on the next frame; False if the input has ended."""
        if not self._left:
            self._left = self._src.read()
            if not self._left:
                return False
        self._scan = _FrameScanner()
        self._ended = False
        return True


class _PushedReader:
    """``read(n)`` of the decoded bytes of ``source`` (every frame), through
    a decompressobj (which takes a dictionary)."""

    def __init__(self, source, decompressor):
        self._src = source
        self._obj = ZstdDecompressionObj(decompressor, 1, True)
        self._buf = bytearray()
        self._eof = False

    def _pull(self):
        """One read of the source, decoded into the buffer; at its end,
        the decoder's verdict on where the input ended."""
        data = self._src.read()
        if data:
            self._buf += self._obj.decompress(data)
            return
        self._eof = True
        if self._obj._dec is not None and self._obj._dec.in_frame:
            # The input ended inside a frame: the decoder's verdict.
            self._obj._dec.finish()

    def read(self, n=-1):
        while (n < 0 or len(self._buf) < n) and not self._eof:
            self._pull()
        n = len(self._buf) if n < 0 else n
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def read1(self, n):
        """Up to ``n`` decoded bytes, as soon as there are any (reads of
        the source only while the decoder gives nothing)."""
        while not self._buf and not self._eof:
            self._pull()
        return self.read(n)


class _Prefixed:
    """``prefix`` then the reads of ``source``."""

    def __init__(self, prefix, source):
        self._prefix = prefix
        self._source = source

    def read(self, n=-1):
        if self._prefix:
            out = self._prefix if n is None or n < 0 else self._prefix[:n]
            self._prefix = self._prefix[len(out):]
            return out
        return self._source.read(n)


class _FrameScanner:
    """Where a frame (zstd or skippable) ends, from its bytes given
    piecewise: its headers and block headers are read, block contents
    skipped."""

    def __init__(self):
        self._unit = bytearray()
        self._need = 4
        self._state = "magic"
        self._skip = 0
        self._checksum = False

    def feed(self, view):
        """The index in ``view`` where the frame ends, or None if it goes
        on past it. Raises ZstdError for what is not a frame."""
        i, n = 0, len(view)
        while True:
            if self._skip:
                k = min(self._skip, n - i)
                self._skip -= k
                i += k
                if self._skip:
                    return None
            if self._state == "end":
                return i
            if i == n:
                return None
            k = min(self._need - len(self._unit), n - i)
            self._unit += view[i:i + k]
            i += k
            if len(self._unit) == self._need:
                self._step()

    def _step(self):
        unit = self._unit
        if self._state == "magic":
            magic = int.from_bytes(unit[:4], "little")
            if magic & _SKIPPABLE_MASK == _SKIPPABLE_MAGIC:
                self._state, self._need = "skippable", 8
            elif magic == MAGIC_NUMBER:
                self._state, self._need = "descriptor", 5
            else:
                raise ZstdError("Unknown frame descriptor")
        elif self._state == "skippable":
            self._skip = int.from_bytes(unit[4:8], "little")
            self._state = "end"
        elif self._state == "descriptor":
            self._state, self._need = "header", _header_size_from(unit[4])
        elif self._state == "header":
            self._checksum = _parse_header(memoryview(bytes(unit))).has_checksum
            self._state, self._need = "block", 3
            unit.clear()
        else:
            bh = int.from_bytes(unit[:3], "little")
            kind = bh >> 1 & 3
            if kind == 3:
                raise ZstdError("Data corruption detected (reserved block type)")
            self._skip = 1 if kind == 1 else bh >> 3
            if bh & 1:
                self._state = "end"
                self._skip += 4 if self._checksum else 0
            unit.clear()


class ZstdDecompressionObj:
    """Compressed data given piecewise, decoded as it arrives (lzkit's
    push decoder): each block's content comes back once the block is
    whole. After the frame, ``eof`` is true and what follows is
    ``unused_data`` (with ``read_across_frames``, the next frames are
    decoded too)."""

    def __init__(self, decompressor, write_size, read_across_frames):
        self._d = decompressor
        self._write_size = write_size
        self._across = read_across_frames
        self._dec = None
        self._finished = False
        self.unused_data = b""
        self.unconsumed_tail = b""

    @property
    def eof(self):
        return self._finished

    def decompress(self, data):
        if self._finished:
            raise ZstdError("cannot use a decompressobj multiple times")
        view = _bytes_view(data)
        if not len(view):
            return b""
        if self._dec is None:
            self._dec = _PushDecoder(self._d._window_log_max, self._d._dict_bytes(),
                                     self._d._format == FORMAT_ZSTD1_MAGICLESS)
        try:
            out, end = self._dec.feed(view, self._across)
        except ZstdError as e:
            raise _push_error(e) from None
        if end is not None:
            self._finished = True
            self.unused_data = view[end:].tobytes()
        return out

    def flush(self, length=0):
        return b""


def _push_error(e):
    """The push decoder's error, with libzstd's words first where
    python-zstandard's users match them."""
    msg = str(e)
    if "unknown magic number" in msg:
        return ZstdError(f"zstd decompressor error: Unknown frame descriptor ({msg})")
    if "reserved block type" in msg:
        return ZstdError(f"zstd decompressor error: Data corruption detected (reserved block type) ({msg})")
    return ZstdError(f"zstd decompressor error: {msg}")


class ZstdDecompressionWriter(_WriteOnly):
    """Compressed bytes written are decoded into the writer (every frame;
    a frame's content when its last byte has been written)."""

    def __init__(self, decompressor, writer, write_size, write_return_read, closefd):
        self._d = decompressor
        self._obj = ZstdDecompressionObj(decompressor, write_size, True)
        self._writer = writer
        self._write_size = write_size
        self._write_return_read = write_return_read
        self._closefd = closefd
        self._closed = False
        self._entered = False

    def memory_size(self):
        return self._d.memory_size()

    def tell(self):
        raise io.UnsupportedOperation()

    def writelines(self, lines):
        raise io.UnsupportedOperation()

    def write(self, data):
        if self._closed:
            raise ValueError("stream is closed")
        view = _bytes_view(data)
        n = self._emit(self._obj.decompress(view))
        return len(view) if self._write_return_read else n

    def flush(self):
        if self._closed:
            raise ValueError("stream is closed")
        f = getattr(self._writer, "flush", None)
        if f is not None:
            return f()

    def close(self):
        if self._closed:
            return
        self._closed = True
        if self._closefd:
            c = getattr(self._writer, "close", None)
            if c is not None:
                c()


# -- module functions ---------------------------------------------------------

def compress(data, level=3, checksum=False, threads=0, filter=None):
    """``data`` as one zstd frame (libzstd), its size in the header, no
    checksum (``checksum=True`` adds one; ``threads``: libzstd workers).
    ``filter`` (``"shuffle8"``, ``"delta4"``...: see ``lzkit.filter``):
    filter ``data`` first, and record the filter in a filter frame before
    the zstd frame, which ``decompress`` reads to undo it
    (python-zstandard and ``zstd -d`` skip it and return the filtered
    bytes)."""
    cctx = ZstdCompressor(level=level, write_checksum=checksum, threads=threads)
    if filter is not None:
        return _filter._compress_filtered(cctx.compress, data, filter)
    return cctx.compress(data)


def decompress(data, max_output_size=0):
    """The first frame of ``data`` decoded, as
    ``ZstdDecompressor().decompress``: a frame that does not state its
    content size needs ``max_output_size`` (the most it may decode to), or
    ``ZstdError`` ("could not determine content size in frame header") is
    raised; ``ZstdDecompressor().stream_reader`` reads such data whatever
    its size.

    Data that starts with a filter frame (``compress(..., filter=...)``)
    is unfiltered after decoding; a filter frame that cannot be used
    raises ``lzkit.filter.FilterFrameError`` (a ``ValueError``). Only this
    function undoes filters: ``ZstdDecompressor`` keeps python-zstandard's
    behaviour."""
    name, _, rest = _filter._split(data)
    if name is None:
        return ZstdDecompressor().decompress(data, max_output_size)
    return _filter.decode(ZstdDecompressor().decompress(rest, max_output_size), name)


def open(filename, mode="rb", cctx=None, dctx=None, encoding=None, errors=None, newline=None, closefd=None):
    """A zstd file: read (``"r"``, ``"rb"``, ``"rt"``) through ``dctx``,
    written (``"w"``, ``"a"``, ``"x"``, with ``"b"`` or ``"t"``) through
    ``cctx``; ``filename``: a path or a file object."""
    normalized = mode.replace("t", "").replace("b", "")
    if normalized not in ("r", "w", "a", "x"):
        raise ValueError(f"Invalid mode: {mode!r}")
    binary = "b" in mode
    if binary and (encoding is not None or errors is not None or newline is not None):
        raise ValueError("Argument 'encoding' not supported in binary mode")
    if isinstance(filename, (str, bytes, os.PathLike)):
        fh = _builtins.open(filename, normalized + "b")
        closefd = True
    elif hasattr(filename, "read") or hasattr(filename, "write"):
        fh = filename
        closefd = bool(closefd)
    else:
        raise TypeError("filename must be a str, bytes, file or PathLike object")
    if normalized == "r":
        stream = (dctx or ZstdDecompressor()).stream_reader(fh, closefd=closefd)
    else:
        stream = (cctx or ZstdCompressor()).stream_writer(fh, closefd=closefd)
    if binary:
        return stream
    return io.TextIOWrapper(stream, encoding=encoding, errors=errors, newline=newline)
