"""uproot's LZ4 and ZSTD baskets through lzkit.

``lzkit.uproot.install()`` makes uproot (5.x) read and write LZ4- and
ZSTD-compressed ROOT baskets with lzkit instead of cramjam: LZ4 blocks with
lzkit's decoder and encoders, zstd frames with lzkit's decoder and libzstd.
ROOT's own framing (the 9-byte block headers, LZ4's XXH64 checksum) stays
uproot's. ``uninstall()`` puts uproot's functions back; ``installed()``
says whether lzkit's are in place.

    import uproot, lzkit.uproot
    lzkit.uproot.install()
    with uproot.open("events.root") as f:
        pt = f["Events/pt"].array(library="np")
"""

from ._lzkit import block_compress as _block_compress
from ._lzkit import block_decompress as _block_decompress
from ._lzkit import zstd_compress as _zstd_compress
from ._lzkit import zstd_decompress as _zstd_decompress

__all__ = ["install", "uninstall", "installed"]

_saved = None


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


def install():
    """Route uproot's LZ4 and ZSTD compression through lzkit (idempotent)."""
    global _saved
    import uproot.compression as c

    if _saved is not None:
        return
    _saved = {
        (c._DecompressLZ4, "decompress"): c._DecompressLZ4.__dict__["decompress"],
        (c.LZ4, "compress"): c.LZ4.__dict__["compress"],
        (c._DecompressZSTD, "decompress"): c._DecompressZSTD.__dict__["decompress"],
        (c.ZSTD, "compress"): c.ZSTD.__dict__.get("compress"),
    }
    c._DecompressLZ4.decompress = _lz4_decompress
    c.LZ4.compress = _lz4_compress
    c._DecompressZSTD.decompress = _zstd_decompress_method
    c.ZSTD.compress = _zstd_compress_method


def uninstall():
    """Put uproot's own functions back."""
    global _saved
    if _saved is None:
        return
    for (cls, name), fn in _saved.items():
        if fn is None:
            delattr(cls, name)
        else:
            setattr(cls, name, fn)
    _saved = None


def installed():
    """Whether lzkit's functions are in place."""
    return _saved is not None
