"""lzkit: fast, safe LZ4 and zstd, on lzkit's Rust decoders.

* ``lzkit.lz4``: python-lz4's API (``import lzkit.lz4 as lz4`` is a drop-in
  for ``import lz4``): ``lz4.block`` and ``lz4.frame``, plus ``threads=``
  for frame compression and decoding and reusable block ``Decoder`` objects.
* ``lzkit.zstd``: zstd decoding with lzkit's own decoder (``decompress``,
  ``ZstdDecompressor``) and compression through libzstd.

Every codec call releases the GIL; inputs are read through the buffer
protocol without a copy.
"""

from . import lz4, zstd
from ._lzkit import __version__

__all__ = ["lz4", "zstd", "__version__"]
