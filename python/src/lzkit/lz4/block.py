"""python-lz4's ``lz4.block`` on lzkit: LZ4 blocks, with python-lz4's
arguments, defaults and exceptions.

``compress(source, mode='default', acceleration=1, compression=9,
store_size=True, return_bytearray=False, dict=None)`` and
``decompress(source, uncompressed_size=-1, return_bytearray=False,
dict=None)``. With ``store_size`` (the default) the block starts with its
decoded size, 4 bytes little-endian. ``Decoder`` keeps lzkit's adaptive
choice of copy strategy between the blocks of one stream.
"""

from .._lzkit import LZ4BlockError, BlockDecoder as Decoder
from .._lzkit import block_compress as _compress
from .._lzkit import block_decompress as _decompress

__all__ = ["compress", "decompress", "LZ4BlockError", "Decoder"]


def compress(source, mode="default", acceleration=1, compression=9,
             store_size=True, return_bytearray=False, dict=None):
    """Compress ``source`` (any buffer) into an LZ4 block.

    ``mode``: ``'default'``, ``'fast'`` (with ``acceleration``) or
    ``'high_compression'`` (with ``compression``, 1 to 12).
    """
    return _compress(source, mode, acceleration, compression, store_size,
                     return_bytearray, dict)


def decompress(source, uncompressed_size=-1, return_bytearray=False, dict=None):
    """Decompress an LZ4 block. Without ``uncompressed_size`` the block
    starts with its size (``store_size=True``); with it, it is the most the
    block may decode to. Raises ``LZ4BlockError`` for corrupt input.
    """
    return _decompress(source, uncompressed_size, return_bytearray, dict)
