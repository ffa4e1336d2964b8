"""Run python-lz4's tests against lzkit.lz4 (LZ4_UNDER_TEST=lzkit): the
modules they import, ``lz4``, ``lz4.block`` and ``lz4.frame``, are lzkit's.
Loaded by pytest before the tests' own conftest files (it sits above
them); with any other value the real python-lz4 is tested."""

import os
import sys

if os.environ.get("LZ4_UNDER_TEST") == "lzkit":
    import lzkit.lz4
    import lzkit.lz4.block
    import lzkit.lz4.frame

    sys.modules["lz4"] = lzkit.lz4
    sys.modules["lz4.block"] = lzkit.lz4.block
    sys.modules["lz4.frame"] = lzkit.lz4.frame
