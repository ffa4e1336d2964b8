"""lzkit: fast, safe LZ4 and zstd, on lzkit's Rust decoders.

* ``lzkit.lz4``: python-lz4's API (``import lzkit.lz4 as lz4`` is a drop-in
  for ``import lz4``): ``lz4.block`` and ``lz4.frame``, plus ``threads=``
  for frame compression and decoding and reusable block ``Decoder`` objects.
* ``lzkit.filter``: pre-filters (byte shuffle, delta) for columns of numbers,
  and ``filter=`` in ``lzkit.lz4.frame`` and ``lzkit.zstd`` compression.
* ``lzkit.zstd``: zstd decoding with lzkit's own decoder (``decompress``,
  ``ZstdDecompressor``) and compression through libzstd.

Every codec call releases the GIL; inputs are read through the buffer
protocol without a copy.
"""

from . import filter, lz4, zstd
from ._lzkit import __version__
from ._lzkit import probe_defaults as _probe_defaults
from ._lzkit import probe_files as _probe_files
from ._lzkit import recompress_file

__all__ = ["filter", "lz4", "zstd", "probe", "recompress_file", "__version__"]

#: The probe's default settings, as ``lzkit probe`` has them (the
#: library's list): (codec, level, favor_dec_speed).
DEFAULT_SETTINGS = _probe_defaults()


def probe(paths, settings=None, sample_bytes=32 << 20, block_size=64 << 10,
          threads=0, time_limit=1.5, calibrate=1.5):
    """``lzkit probe`` on ``paths``: which codec and level for this data.

    An evenly spread sample of ``sample_bytes`` (the same every time), cut
    into ``block_size`` blocks (None: whole files), compressed with each
    setting ``(codec, level, favor_dec_speed)`` (default:
    ``DEFAULT_SETTINGS``). Returns the report: ``candidates`` with
    ``ratio``, ``compress_mbps``, ``decompress_mbps``, memory and the
    Pareto flags, and each ratio's 95% interval (``ratio_low``,
    ``ratio_high``). ``time_limit`` (seconds, None: none) stops slow
    settings early and estimates their ratio. ``calibrate`` (seconds, 0:
    off): how long a pass over many more blocks than the sample may run,
    from which the ratios are estimated (``lzkit probe --calibrate``).
    """
    return _probe_files([str(p) for p in paths], settings, sample_bytes, block_size,
                        threads, time_limit, calibrate)
