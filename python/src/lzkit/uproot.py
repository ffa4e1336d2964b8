"""uproot's LZ4 and ZSTD baskets through lzkit.

``lzkit.uproot.install()`` makes uproot (5.x) read and write LZ4- and
ZSTD-compressed ROOT baskets (TTree baskets and RNTuple pages) with lzkit
instead of cramjam: LZ4 blocks with lzkit's decoder and encoders, zstd
frames with lzkit's decoder and libzstd.

Reading, lzkit takes over a whole record: it parses ROOT's 9-byte block
headers and checks LZ4's XXH64 itself, and decodes every block straight
into the one array uproot gets back (no buffer per block, no copy), the
blocks of a large record on ``threads`` threads (default: every core;
``threads=1`` decodes on the calling thread); it fills uproot's
``block_info`` as uproot does. Records with zlib or LZMA blocks, records
that do not add up (uproot's code then gives its own result or error), and
reads with uproot's debugging hooks set go through uproot's own code. ``uninstall()`` puts uproot's functions back; ``installed()``
says whether lzkit's are in place.

    import uproot, lzkit.uproot
    lzkit.uproot.install()
    with uproot.open("events.root") as f:
        pt = f["Events/pt"].array(library="np")
"""

import numpy

from ._lzkit import block_compress as _block_compress
from ._lzkit import block_decompress as _block_decompress
from ._lzkit import root_decompress_into as _root_decompress_into
from ._lzkit import zstd_compress as _zstd_compress
from ._lzkit import zstd_decompress as _zstd_decompress

__all__ = ["install", "uninstall", "installed"]

_saved = None
_threads = 0


def _lz4_decompress(self, data, uncompressed_bytes=None):
    if uncompressed_bytes is None:
        raise ValueError("lz4 block decompression requires the number of uncompressed bytes")
    return _block_decompress(data, uncompressed_bytes, False, None)


def _lz4_compress(self, data):
    # ROOT's levels: up to 3 LZ4's fast mode, from 4 its high compression.
    level = self.level
    if level <= 3:
        return _block_compress(data, "default", 1, 9, False, False, None)
    return _block_compress(data, "high_compression", 1, level, False, False, None)


def _zstd_decompress_method(self, data, uncompressed_bytes=None):
    if uncompressed_bytes is None:
        raise ValueError("zstd block decompression requires the number of uncompressed bytes")
    return _zstd_decompress(data, uncompressed_bytes)


def _zstd_compress_method(self, data):
    return _zstd_compress(data, self.level, False, 0)


def _record_decompress(chunk, cursor, context, compressed_bytes, uncompressed_bytes, block_info=None):
    """uproot.compression.decompress through lzkit (same arguments, same result)."""
    own = _uproot_decompress
    current = _uproot_compression.decompress
    if (current.hook_before_block, current.hook_after_block) != _default_hooks:
        return own(chunk, cursor, context, compressed_bytes, uncompressed_bytes, block_info)
    start = cursor.index
    data = cursor.bytes(chunk, compressed_bytes, context)
    output = numpy.empty(uncompressed_bytes, dtype=numpy.uint8)
    try:
        done = _root_decompress_into(data, output, _threads, block_info)
    except ValueError as e:
        raise ValueError(f"{e}\nin file {chunk.source.file_path}") from None
    if not done:
        # zlib or LZMA: uproot's own code, from the record's start.
        cursor.move_to(start)
        return own(chunk, cursor, context, compressed_bytes, uncompressed_bytes, block_info)
    return _wrap(chunk.source, output)


_default_hooks = None
_uproot_decompress = None
_wrap = None
_uproot_compression = None


def install(threads=None):
    """Route uproot's LZ4 and ZSTD compression through lzkit (idempotent).

    ``threads``: how many threads decode the blocks of one large record
    (None: every core; 1: the calling thread only).
    """
    global _saved, _threads, _default_hooks, _uproot_decompress, _wrap, _uproot_compression
    import uproot.compression as c
    import uproot.source.chunk

    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError("threads must be a positive integer or None")
    _threads = 0 if threads is None else threads
    if _saved is not None:
        return
    if uproot.source.chunk.Chunk._dtype != numpy.uint8:
        raise RuntimeError("this uproot's chunks are not bytes: lzkit.uproot cannot read for it")
    _saved = {
        (c._DecompressLZ4, "decompress"): c._DecompressLZ4.__dict__["decompress"],
        (c.LZ4, "compress"): c.LZ4.__dict__["compress"],
        (c._DecompressZSTD, "decompress"): c._DecompressZSTD.__dict__["decompress"],
        (c.ZSTD, "compress"): c.ZSTD.__dict__.get("compress"),
        (c, "decompress"): c.decompress,
    }
    # uproot's decompress finds its hooks on the module's `decompress`: ours
    # carries the same ones, so its code still finds them when it runs.
    _record_decompress.hook_before_block = c.decompress.hook_before_block
    _record_decompress.hook_after_block = c.decompress.hook_after_block
    # uproot's own do-nothing hooks: any other means someone is watching
    # the blocks, and uproot's code (which calls them) reads the record.
    _default_hooks = (c.hook_before_block, c.hook_after_block)
    _uproot_decompress = c.decompress
    _uproot_compression = c
    _wrap = uproot.source.chunk.Chunk.wrap
    c.decompress = _record_decompress
    c._DecompressLZ4.decompress = _lz4_decompress
    c.LZ4.compress = _lz4_compress
    c._DecompressZSTD.decompress = _zstd_decompress_method
    c.ZSTD.compress = _zstd_compress_method


def uninstall():
    """Put uproot's own functions back."""
    global _saved
    if _saved is None:
        return
    # Hooks set while lzkit was installed stay set.
    own = _saved[(_uproot_compression, "decompress")]
    own.hook_before_block = _record_decompress.hook_before_block
    own.hook_after_block = _record_decompress.hook_after_block
    for (cls, name), fn in _saved.items():
        if fn is None:
            delattr(cls, name)
        else:
            setattr(cls, name, fn)
    _saved = None


def installed():
    """Whether lzkit's functions are in place."""
    return _saved is not None
