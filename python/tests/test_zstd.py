"""lzkit.zstd: lzkit's zstd decoder and libzstd's compressor, through the
zstd command where it is installed, the stream reader, limits and hostile
input.
"""

import io
import random
import shutil
import subprocess

import pytest

import lzkit.zstd as zstd

DATA = b"".join(i.to_bytes(4, "little") for i in range(100_000)) + b"text " * 20_000


def test_round_trip_and_levels():
    for level in [-3, 1, 3, 19]:
        packed = zstd.compress(DATA, level=level)
        assert zstd.decompress(packed) == DATA
        assert zstd.ZstdDecompressor().decompress(packed) == DATA
        assert zstd.ZstdCompressor(level=level).compress(DATA) == packed
    assert zstd.decompress(zstd.compress(b"")) == b""


@pytest.mark.skipif(shutil.which("zstd") is None, reason="the zstd command is not installed")
def test_the_zstd_command_both_ways(tmp_path):
    path = tmp_path / "a"
    path.write_bytes(DATA)
    subprocess.run(["zstd", "-q", "-f", "-5", str(path), "-o", str(tmp_path / "a.zst")], check=True)
    assert zstd.decompress((tmp_path / "a.zst").read_bytes()) == DATA
    (tmp_path / "b.zst").write_bytes(zstd.compress(DATA, level=9))
    out = subprocess.run(["zstd", "-dc", str(tmp_path / "b.zst")], check=True, capture_output=True)
    assert out.stdout == DATA


def test_stream_reader():
    packed = zstd.compress(DATA) + zstd.compress(b"second frame")
    d = zstd.ZstdDecompressor()
    with d.stream_reader(io.BytesIO(packed)) as r:
        assert r.read(10) == DATA[:10]
        assert r.read() == DATA[10:] + b"second frame"
    assert d.stream_reader(packed).read() == DATA + b"second frame"


def test_limits_and_errors():
    packed = zstd.compress(DATA)
    with pytest.raises(zstd.ZstdError):
        zstd.decompress(packed, max_output_size=1000)
    assert zstd.decompress(packed, max_output_size=len(DATA)) == DATA
    for bad in [packed[:-3], b"not zstd at all", packed[:5]]:
        with pytest.raises(zstd.ZstdError):
            zstd.decompress(bad)
    with pytest.raises(zstd.ZstdError):
        zstd.ZstdDecompressor().stream_reader(io.BytesIO(packed[:-3])).read()


def test_hostile_input_raises_and_never_crashes():
    rng = random.Random(5)
    packed = zstd.compress(DATA[:60_000], level=3)
    for _ in range(2000):
        src = bytearray(packed)
        for _ in range(rng.randint(1, 6)):
            src[rng.randrange(len(src))] ^= 1 << rng.randrange(8)
        try:
            zstd.decompress(bytes(src))
        except zstd.ZstdError:
            pass
