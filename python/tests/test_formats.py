"""What the Python package takes from the library's format layer: the
codecs and their suffixes, the formats read, output names as
``lzkit recompress`` gives them, and the probe's default settings.
"""

import pytest

import lzkit
import lzkit.dask
from lzkit._lzkit import formats


def test_formats_lists_the_codecs_and_what_is_read():
    f = formats()
    assert f["codecs"] == {"lz4": ".lz4", "zstd": ".zst"}
    assert f["reads"][:2] == ["lz4", "zstd"]
    assert {"gzip", "zlib", "xz", "lzma"} <= set(f["reads"])


@pytest.mark.parametrize("path, to, out", [
    ("a/x.gz", "zstd", "a/x.zst"),
    ("x.tgz", "lz4", "x.tar.lz4"),
    ("x.TGZ", "zst", "x.tar.zst"),
    ("x.txz", "zstd", "x.tar.zst"),
    ("x.tar.zst", "lz4", "x.tar.lz4"),
    ("x.lzma", "lz4", "x.lz4"),
    ("x.zz", "zstd", "x.zst"),
    ("x.txt", "zstd", "x.txt.zst"),
    ("x", "lz4", "x.lz4"),
])
def test_output_names_are_the_commands(path, to, out):
    assert lzkit.dask.output_name(path, to) == out


def test_output_name_in_a_directory_and_unknown_codecs():
    assert lzkit.dask.output_name("in/x.gz", "lz4", "out") == "out/x.lz4"
    with pytest.raises(ValueError, match="lz4 or zstd"):
        lzkit.dask.output_name("x.gz", "gz")


def test_default_settings_are_the_librarys():
    assert lzkit.DEFAULT_SETTINGS[0] == ("lz4", -8, False)
    assert ("lz4", 12, True) in lzkit.DEFAULT_SETTINGS
    assert ("zstd", 3, False) in lzkit.DEFAULT_SETTINGS
