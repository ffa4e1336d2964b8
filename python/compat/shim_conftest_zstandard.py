"""Run python-zstandard's tests against lzkit.zstd
(ZSTANDARD_UNDER_TEST=lzkit): the module they import, ``zstandard``, is
lzkit's. Loaded by pytest before the tests' own conftest file (it sits
above them); with any other value the real python-zstandard is tested."""

import os
import sys

if os.environ.get("ZSTANDARD_UNDER_TEST") == "lzkit":
    import lzkit.zstd

    sys.modules["zstandard"] = lzkit.zstd
