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
    # As python-zstandard: a frame that states its content size is decoded
    # to that size, whatever max_output_size says (it limits frames that
    # state none).
    assert zstd.decompress(packed, max_output_size=1000) == DATA
    assert zstd.decompress(packed, max_output_size=len(DATA)) == DATA
    unsized = zstd.ZstdCompressor(write_content_size=False).compress(DATA)
    with pytest.raises(zstd.ZstdError, match="did not decompress full frame"):
        zstd.decompress(unsized, max_output_size=1000)
    assert zstd.decompress(unsized, max_output_size=len(DATA)) == DATA
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


def rle_frame(blocks, byte=b"a", content_size=None, block=128 << 10):
    """A zstd frame of `blocks` RLE blocks of `block` bytes each (4 bytes
    of input per block), window 128 KiB; its content size in the header
    only if given (8 bytes)."""
    if content_size is None:
        head = b"\x28\xb5\x2f\xfd" + bytes([0x00, (17 - 10) << 3])
    else:
        head = b"\x28\xb5\x2f\xfd" + bytes([0xC0, (17 - 10) << 3]) + content_size.to_bytes(8, "little")
    out = bytearray(head)
    for i in range(blocks):
        last = 1 if i == blocks - 1 else 0
        out += (block << 3 | 1 << 1 | last).to_bytes(3, "little") + byte
    return bytes(out)


def test_a_frame_without_content_size_needs_max_output_size():
    """As python-zstandard: decompress() refuses a frame that does not say
    its size unless max_output_size is given, which it may not exceed."""
    frame = rle_frame(8)  # 1 MiB, no content size
    for decompress in (zstd.decompress, zstd.ZstdDecompressor().decompress):
        with pytest.raises(zstd.ZstdError, match="could not determine content size in frame header"):
            decompress(frame)
        assert decompress(frame, max_output_size=1 << 20) == b"a" * (1 << 20)
        assert decompress(frame, max_output_size=1 << 30) == b"a" * (1 << 20)
        with pytest.raises(zstd.ZstdError):
            decompress(frame, max_output_size=(1 << 20) - 1)
    # Several frames: decompress() decodes the first, as python-zstandard;
    # read_across_frames=True all of them (python-zstandard refuses it).
    sized = zstd.compress(b"sized")
    assert zstd.decompress(sized + frame) == b"sized"
    assert zstd.decompress(sized + sized) == b"sized"
    with pytest.raises(zstd.ZstdError, match="could not determine content size"):
        zstd.decompress(frame + sized)
    d = zstd.ZstdDecompressor()
    with pytest.raises(zstd.ZstdError, match="unused data"):
        d.decompress(sized + frame, allow_extra_data=False)
    assert d.decompress(sized + frame, read_across_frames=True) == b"sized" + b"a" * (1 << 20)
    with pytest.raises(zstd.ZstdError, match="did not decompress full frame"):
        d.decompress(sized + frame, read_across_frames=True, max_output_size=1 << 20)
    # The stream reader decodes it whatever its size.
    assert zstd.ZstdDecompressor().stream_reader(frame).read() == b"a" * (1 << 20)


def peak_rss_of(code):
    """The growth of peak memory (bytes) while `code` runs in a new
    interpreter (after lzkit.zstd is imported)."""
    import sys
    # VmHWM, the peak of this process image: ru_maxrss would start from
    # the parent's peak at fork time (a pytest process that ran the Dask
    # tests is larger than what is measured here).
    prog = (
        "import sys\n"
        "def hwm():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) * 1024\n"
        "import lzkit.zstd as zstd\n"
        "from test_zstd import rle_frame\n"
        "before = hwm()\n"
        + code +
        "\nafter = hwm()\n"
        "print(after - before)\n"
    )
    import os
    env = dict(os.environ, PYTHONPATH=os.path.dirname(__file__) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", prog], check=True, capture_output=True, env=env)
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="VmHWM: Linux")
def test_decompress_takes_memory_for_the_output_only():
    # 32 KB of frame, no content size, 1 GiB of RLE content: refused at
    # once, nothing decoded.
    grown = peak_rss_of(
        "frame = rle_frame(8192)\n"
        "try:\n"
        "    zstd.ZstdDecompressor().decompress(frame)\n"
        "    sys.exit('decoded')\n"
        "except zstd.ZstdError as e:\n"
        "    assert 'content size' in str(e), e\n"
    )
    assert grown < 64 << 20, grown
    # 128 MiB stated in the header: decoded straight into the bytes
    # returned (no second copy of the content).
    grown = peak_rss_of(
        "n = 1024\n"
        "out = zstd.decompress(rle_frame(n, content_size=n << 17))\n"
        "assert len(out) == n << 17 and out.count(b'a') == n << 17\n"
    )
    assert (64 << 20) < grown < (180 << 20), grown


CLAIM_PROG = r"""
import os, random
import lzkit.lz4 as lz4
import lzkit.zstd as zstd
from lzkit._lzkit import FrameCompressor
from test_zstd import rle_frame

rng = random.Random(3)
data = bytes(rng.getrandbits(8) for _ in range(1 << 16)) * 72  # 4.5 MiB
claim = 1 << 30
# zstd: 32 raw blocks of 128 KiB under a header claiming 1 GiB.
head = b"\x28\xb5\x2f\xfd" + bytes([0xC0, (22 - 10) << 3]) + claim.to_bytes(8, "little")
blocks = b"".join(
    ((128 << 10) << 3 | (i == 31)).to_bytes(3, "little") + data[i << 17:(i + 1) << 17]
    for i in range(32))
# LZ4: a frame begun with a 1 GiB size, its 4.5 MiB of blocks, an end mark
# (over 1 GiB / 255 bytes: the old bound let the claim through).
c = FrameCompressor(0, 7)
lz = c.begin(claim) + c.compress(data) + c.flush_blocks() + bytes(4)
for name, call in [
    ("zstd.decompress", lambda: zstd.decompress(head + blocks)),
    ("ZstdDecompressor.decompress", lambda: zstd.ZstdDecompressor().decompress(head + blocks)),
    ("lz4.frame.decompress", lambda: lz4.frame.decompress(lz)),
]:
    try:
        call()
        print(name, "decoded")
    except Exception as e:
        # lzkit's account is the message, or (python-lz4's words) the detail.
        print(name, type(e).__name__, e, getattr(e, "detail", ""))
"""


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs sh for ulimit")
def test_a_claimed_size_is_never_allocated():
    """4 MiB of blocks under a header claiming 1 GiB, decoded with at most
    1 GB of address space: the content-size mismatch, never "out of
    memory" (the output follows the blocks, not the claim)."""
    import os
    import sys
    env = dict(os.environ, PYTHONPATH=os.path.dirname(__file__) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(["sh", "-c", 'ulimit -v 1000000 && exec "$0" -c "$1"', sys.executable, CLAIM_PROG],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 3, out.stdout
    for line in lines:
        assert "content size mismatch" in line and "1073741824" in line, line
        assert "memory" not in line.lower(), line
