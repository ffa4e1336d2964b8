"""python-lz4's ``lz4`` package on lzkit: ``lzkit.lz4.block``, ``lzkit.lz4.frame``."""

from .._lzkit import __version__
from . import block, frame

# python-lz4's name for its package version (here: lzkit's).
VERSION = __version__

__all__ = ["block", "frame", "library_version_number", "library_version_string",
           "VERSION", "__version__"]

# The LZ4 format version lzkit implements (the C library's numbering:
# 1.10.0), for code that checks it.
_LZ4_FORMAT_VERSION = (1, 10, 0)


def library_version_number():
    """The LZ4 version lzkit is compatible with, as the C library numbers it."""
    major, minor, release = _LZ4_FORMAT_VERSION
    return major * 100 * 100 + minor * 100 + release


def library_version_string():
    """The LZ4 version lzkit is compatible with, as text."""
    return ".".join(str(n) for n in _LZ4_FORMAT_VERSION)
