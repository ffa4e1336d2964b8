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


def test_probe_gives_each_ratio_an_interval(tmp_path):
    """A sampled file: every ratio inside its 95% interval, narrower with
    the calibration pass than from the sample alone; a whole file: exact."""
    import random
    rng = random.Random(3)
    words = [bytes(rng.choices(b"abcdefghij", k=rng.randrange(2, 9))) for _ in range(300)]
    # Text, then noise, then zeros: blocks whose ratios differ a lot.
    data = b" ".join(rng.choice(words) for _ in range(200_000))[:1 << 20]
    data += rng.randbytes(1 << 20) + bytes(1 << 20)
    path = tmp_path / "mixed.bin"
    path.write_bytes(data)
    settings = [("lz4", 1, False), ("lz4", 9, False)]
    calibrated = lzkit.probe([path], settings=settings, sample_bytes=256 << 10, calibrate=60)
    alone = lzkit.probe([path], settings=settings, sample_bytes=256 << 10, calibrate=0)
    for c, a in zip(calibrated["candidates"], alone["candidates"]):
        assert c["ratio_low"] <= c["ratio"] <= c["ratio_high"]
        assert a["ratio_low"] <= a["ratio"] <= a["ratio_high"]
        assert c["ratio_high"] - c["ratio_low"] < a["ratio_high"] - a["ratio_low"]
    whole = lzkit.probe([path], settings=settings[:1], sample_bytes=8 << 20)
    c = whole["candidates"][0]
    assert c["ratio_low"] == c["ratio"] == c["ratio_high"]
    with pytest.raises(ValueError):
        lzkit.probe([path], settings=settings, calibrate=-1)
