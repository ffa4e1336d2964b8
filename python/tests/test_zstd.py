"""lzkit.zstd: lzkit's zstd decoder and libzstd's compressor, through the
zstd command where it is installed, the stream reader, limits and hostile
input.
"""

import array
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
    # Several frames: decompress() decodes the first, as python-zstandard,
    # and refuses read_across_frames=True as it does.
    sized = zstd.compress(b"sized")
    assert zstd.decompress(sized + frame) == b"sized"
    assert zstd.decompress(sized + sized) == b"sized"
    with pytest.raises(zstd.ZstdError, match="could not determine content size"):
        zstd.decompress(frame + sized)
    d = zstd.ZstdDecompressor()
    with pytest.raises(zstd.ZstdError, match="unused data"):
        d.decompress(sized + frame, allow_extra_data=False)
    with pytest.raises(zstd.ZstdError, match="read_across_frames=True is not yet implemented"):
        d.decompress(sized + sized, read_across_frames=True)
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


# -- python-zstandard's API ---------------------------------------------------

def test_defaults_are_python_zstandards():
    frame = zstd.compress(b"foobar")
    p = zstd.get_frame_parameters(frame)
    assert (p.content_size, p.has_checksum, p.dict_id) == (6, False, 0)
    assert zstd.frame_content_size(frame) == 6
    assert zstd.frame_header_size(frame) == 6
    unsized = zstd.ZstdCompressor(write_content_size=False, write_checksum=True).compress(b"foobar")
    p = zstd.get_frame_parameters(unsized)
    assert p.content_size == zstd.CONTENTSIZE_UNKNOWN and p.has_checksum
    assert zstd.frame_content_size(unsized) == -1
    for bad, fn in [(b"", zstd.get_frame_parameters), (b"foobarbaz", zstd.get_frame_parameters),
                    (b"ab", zstd.frame_content_size), (b"ab", zstd.frame_header_size)]:
        with pytest.raises(zstd.ZstdError):
            fn(bad)
    with pytest.raises(ValueError):
        zstd.ZstdCompressor(level=23)


def test_compressobj_and_decompressobj_piecewise():
    cobj = zstd.ZstdCompressor(level=5).compressobj()
    parts = [cobj.compress(DATA[i:i + 7919]) for i in range(0, len(DATA), 7919)]
    parts.append(cobj.flush(zstd.COMPRESSOBJ_FLUSH_BLOCK))
    parts.append(cobj.flush())
    with pytest.raises(zstd.ZstdError, match="already finished"):
        cobj.flush()
    frame = b"".join(parts)
    assert zstd.frame_content_size(frame) == -1
    dobj = zstd.ZstdDecompressor().decompressobj()
    out = [dobj.decompress(frame[i:i + 1000]) for i in range(0, len(frame), 1000)]
    assert b"".join(out) == DATA and dobj.eof
    # What follows the frame is unused_data; with read_across_frames, the
    # next frames are decoded too.
    two = zstd.compress(b"one") + zstd.compress(b"two")
    dobj = zstd.ZstdDecompressor().decompressobj()
    assert dobj.decompress(two + b"tail") == b"one"
    assert dobj.unused_data == zstd.compress(b"two") + b"tail"
    with pytest.raises(zstd.ZstdError, match="multiple times"):
        dobj.decompress(b"x")
    assert zstd.ZstdDecompressor().decompressobj(read_across_frames=True).decompress(two) == b"onetwo"
    with pytest.raises(zstd.ZstdError):
        zstd.ZstdDecompressor().decompressobj().decompress(b"not a zstd frame")


def test_content_size_is_enforced_when_pledged():
    cobj = zstd.ZstdCompressor().compressobj(size=2)
    with pytest.raises(zstd.ZstdError, match="Src size is incorrect"):
        cobj.compress(b"foo")
        cobj.flush()


def test_stream_writers_both_ways():
    sink = io.BytesIO()
    with zstd.ZstdCompressor(write_checksum=True).stream_writer(sink, closefd=False) as w:
        for i in range(0, len(DATA), 65536):
            assert w.write(DATA[i:i + 65536]) == len(DATA[i:i + 65536])
        w.flush()
        assert w.tell() == sink.tell()
    frame = sink.getvalue()
    assert zstd.get_frame_parameters(frame).has_checksum
    out = io.BytesIO()
    with zstd.ZstdDecompressor().stream_writer(out, closefd=False) as w:
        for i in range(0, len(frame), 333):
            w.write(frame[i:i + 333])
    assert out.getvalue() == DATA
    # A corrupted frame raises, through the writer too.
    bad = bytearray(frame)
    bad[len(bad) // 2] ^= 0xFF
    with pytest.raises(zstd.ZstdError):
        with zstd.ZstdDecompressor().stream_writer(io.BytesIO()) as w:
            w.write(bytes(bad))


def test_read_to_iter_copy_stream_and_stream_reader():
    c = zstd.ZstdCompressor(level=1)
    frame = b"".join(c.read_to_iter(io.BytesIO(DATA), read_size=10000, write_size=5000))
    assert zstd.decompress(frame, max_output_size=len(DATA)) == DATA
    chunks = list(zstd.ZstdDecompressor().read_to_iter(frame, write_size=4096))
    assert all(len(x) <= 4096 for x in chunks) and b"".join(chunks) == DATA
    dst = io.BytesIO()
    assert c.copy_stream(io.BytesIO(DATA), dst) == (len(DATA), len(dst.getvalue()))
    back = io.BytesIO()
    assert zstd.ZstdDecompressor().copy_stream(io.BytesIO(dst.getvalue()), back) == (len(dst.getvalue()), len(DATA))
    assert back.getvalue() == DATA
    with zstd.ZstdDecompressor().stream_reader(dst.getvalue()) as r:
        r.seek(1000)
        assert r.read(10) == DATA[1000:1010] and r.tell() == 1010
        with pytest.raises(OSError, match="backwards"):
            r.seek(0)
    with pytest.raises(ValueError, match="stream is closed"):
        r.read(1)
    with pytest.raises(zstd.ZstdError, match="Unknown frame descriptor"):
        list(zstd.ZstdDecompressor().read_to_iter(b"foobar"))


def test_dictionaries_and_content_dict_chains():
    samples = [b"foo" * 64, b"bar" * 64, b"foobar" * 64] * 128
    d = zstd.train_dictionary(1024, samples, dict_id=42)
    assert d.dict_id() == 42 and len(d) <= 1024
    frame = zstd.ZstdCompressor(level=1, dict_data=d).compress(b"foobarfoobar" * 10)
    assert zstd.get_frame_parameters(frame).dict_id == 42
    assert zstd.ZstdDecompressor(dict_data=d).decompress(frame) == b"foobarfoobar" * 10
    with pytest.raises(zstd.ZstdError):
        zstd.ZstdDecompressor().decompress(frame)
    chain = [zstd.compress(b"first")]
    prev = b"first"
    for text in [b"first and second", b"first and second and third"]:
        cd = zstd.ZstdCompressionDict(prev, dict_type=zstd.DICT_TYPE_RAWCONTENT)
        chain.append(zstd.ZstdCompressor(dict_data=cd).compress(text))
        prev = text
    assert zstd.ZstdDecompressor().decompress_content_dict_chain(chain) == prev


def test_magicless_frames_and_parameters():
    params = zstd.ZstdCompressionParameters.from_level(3, format=zstd.FORMAT_ZSTD1_MAGICLESS)
    assert params.window_log > 0
    frame = zstd.ZstdCompressor(compression_params=params).compress(DATA)
    assert not frame.startswith(zstd.FRAME_HEADER)
    assert zstd.ZstdDecompressor(format=zstd.FORMAT_ZSTD1_MAGICLESS).decompress(frame) == DATA
    with pytest.raises(zstd.ZstdError):
        zstd.ZstdDecompressor().decompress(frame)
    with pytest.raises(ValueError):
        zstd.ZstdCompressor(compression_params=params, write_checksum=True)
    with pytest.raises(zstd.ZstdError):
        zstd.ZstdCompressionParameters(window_log=64)


def test_frames_made_by_python_zstandard_and_for_it():
    zstandard = pytest.importorskip("zstandard")
    for level in [1, 3, 19]:
        for kw in [{}, {"write_checksum": True}, {"write_content_size": False}]:
            ours = zstd.ZstdCompressor(level=level, **kw).compress(DATA)
            theirs = zstandard.ZstdCompressor(level=level, **kw).compress(DATA)
            assert ours == theirs
            assert zstd.decompress(theirs, max_output_size=len(DATA)) == DATA
    cobj = zstandard.ZstdCompressor().compressobj()
    streamed = cobj.compress(DATA) + cobj.flush()
    assert b"".join(zstd.ZstdDecompressor().read_to_iter(streamed)) == DATA
    ours = zstd.ZstdCompressor().compressobj()
    assert zstandard.ZstdDecompressor().decompressobj().decompress(ours.compress(DATA) + ours.flush()) == DATA


def test_hostile_input_to_the_incremental_paths_raises_zstd_error_only():
    rng = random.Random(11)
    packed = zstd.ZstdCompressor(write_checksum=True).compress(DATA[:30_000])
    for _ in range(500):
        src = bytearray(packed)
        for _ in range(rng.randint(1, 4)):
            src[rng.randrange(len(src))] ^= 1 << rng.randrange(8)
        src = bytes(src[:rng.randint(0, len(src))])
        for call in (
            lambda: zstd.ZstdDecompressor().decompressobj().decompress(src),
            lambda: zstd.ZstdDecompressor().decompress(src, max_output_size=1 << 20),
            lambda: b"".join(zstd.ZstdDecompressor().read_to_iter(src)),
            lambda: zstd.get_frame_parameters(src),
        ):
            try:
                call()
            except zstd.ZstdError:
                pass


def test_decompressobj_hands_out_each_flushed_block_at_once():
    """A flushed block decodes as soon as it has arrived whole (a stream
    protocol that flushes must see its data before the frame ends)."""
    cobj = zstd.ZstdCompressor(write_checksum=True).compressobj()
    dobj = zstd.ZstdDecompressor().decompressobj()
    w = zstd.ZstdDecompressor().stream_writer(io.BytesIO(), closefd=False)
    sink = w._writer
    seen = b""
    for i in range(0, 200_000, 20_000):
        piece = DATA[i:i + 20_000]
        chunk = cobj.compress(piece) + cobj.flush(zstd.COMPRESSOBJ_FLUSH_BLOCK)
        # Given in two parts: nothing of a block before it is whole.
        half = len(chunk) // 2
        got = dobj.decompress(chunk[:half]) + dobj.decompress(chunk[half:])
        assert got == piece
        w.write(chunk)
        seen += piece
        assert sink.getvalue() == seen
    assert dobj.decompress(cobj.flush()) == b"" and dobj.eof
    # Input cut inside a block: nothing, then the error at the end of the
    # data (never a hang).
    frame = zstd.compress(DATA)
    dobj = zstd.ZstdDecompressor().decompressobj()
    assert len(dobj.decompress(frame[:100])) < len(DATA)
    bad = bytearray(frame[100:])
    bad[50] ^= 0xFF
    with pytest.raises(zstd.ZstdError):
        dobj.decompress(bytes(bad))


def test_compressors_and_decompressobjs_move_between_threads():
    """As python-zstandard's: made on one thread, used on another."""
    import concurrent.futures
    c = zstd.ZstdCompressor(level=3)
    dobj = zstd.ZstdDecompressor().decompressobj()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        frame = pool.submit(c.compress, DATA).result()
        assert pool.submit(dobj.decompress, frame).result() == DATA
    assert c.compress(DATA) == frame


def test_stream_reader_with_a_dictionary():
    samples = [b"foo" * 64, b"bar" * 64, b"foobar" * 64] * 128
    d = zstd.train_dictionary(2048, samples)
    frame = zstd.ZstdCompressor(dict_data=d, write_content_size=False).compress(DATA)
    dec = zstd.ZstdDecompressor(dict_data=d)
    with dec.stream_reader(io.BytesIO(frame)) as r:
        assert r.read(5) == DATA[:5]
        assert r.read() == DATA[5:]
    with pytest.raises(zstd.ZstdError):
        dec.stream_reader(frame[:-10]).read()


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="fork()")
def test_a_decompressobj_from_before_a_fork_goes_on_in_the_child():
    # It decodes on the caller's thread (no decoding thread left in the
    # parent): the child and the parent each finish the frame.
    import os
    frame = zstd.compress(DATA)
    dobj = zstd.ZstdDecompressor().decompressobj()
    assert dobj.decompress(frame[:10]) == b""
    pid = os.fork()
    if pid == 0:
        try:
            code = 0 if dobj.decompress(frame[10:]) == DATA and dobj.eof else 1
        except BaseException:
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert dobj.decompress(frame[10:]) == DATA


def test_stream_reader_reads_end_at_frame_ends_unless_across():
    skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"xyz"
    data = zstd.compress(b"foo") + skippable + zstd.compress(b"bar") + skippable
    d = zstd.ZstdDecompressor()
    r = d.stream_reader(io.BytesIO(data))
    assert [r.read(2), r.read(2), r.read(2), r.read(2), r.read(2)] == [b"fo", b"o", b"ba", b"r", b""]
    assert d.stream_reader(data, read_across_frames=True).read(100) == b"foobar"
    assert d.stream_reader(data).read() == b"foobar"
    with pytest.raises(zstd.ZstdError):
        d.stream_reader(data + b"garbage!").read()


class CountingBytesIO(io.BytesIO):
    """A BytesIO that counts its read() calls."""

    reads = 0

    def read(self, *args):
        self.reads += 1
        return super().read(*args)


def test_stream_reader_read1_reads_the_source_once_at_most_while_it_gives_output():
    foo = zstd.compress(b"foo")
    for dict_data in (None, zstd.ZstdCompressionDict(b"for the dictionary path")):
        d = zstd.ZstdDecompressor(dict_data=dict_data)
        src = CountingBytesIO(foo)
        r = d.stream_reader(src)
        assert r.read1(0) == b"" and src.reads == 0
        assert r.read1(2) == b"fo" and src.reads == 1
        assert r.read1(1) == b"o" and src.reads == 1
        assert r.read1(1) == b"" and src.reads == 2
        assert r.tell() == 3
    # Block by block: one read1() gives at most the block at hand, reading
    # only as far as the source's next chunk; readinto1 likewise.
    blocks = zstd.ZstdCompressor(level=1).compressobj()
    packed = b"".join([blocks.compress(DATA[:1000]), blocks.flush(zstd.COMPRESSOBJ_FLUSH_BLOCK),
                       blocks.compress(DATA[1000:3000]), blocks.flush()])
    src = CountingBytesIO(packed)
    r = zstd.ZstdDecompressor().stream_reader(src, read_size=len(packed))
    assert r.read1() == DATA[:1000] and src.reads == 1
    buf = bytearray(5000)
    assert r.readinto1(buf) == 2000 and buf[:2000] == DATA[1000:3000] and src.reads == 1
    assert r.read1() == b""
    # Across frames (and skippable ones), read1() goes on to the next frame
    # when the one at hand has nothing left.
    skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"xyz"
    r = zstd.ZstdDecompressor().stream_reader(foo + skippable + zstd.compress(b"bar"))
    assert [r.read1(), r.read1(), r.read1()] == [b"foo", b"bar", b""]
    with pytest.raises(ValueError):
        r.read1(-2)


def test_read_to_iter_reads_the_first_frame_only_and_not_past_it():
    frame = zstd.compress(b"foobarfoobar")
    for dict_data in (None, zstd.ZstdCompressionDict(b"for the dictionary path")):
        d = zstd.ZstdDecompressor(dict_data=dict_data)
        src = CountingBytesIO(frame + zstd.compress(b"next"))
        assert b"".join(d.read_to_iter(src, read_size=1, write_size=1)) == b"foobarfoobar"
        assert src.reads == len(frame)
        assert b"".join(d.read_to_iter(frame + frame)) == b"foobarfoobar"
    # copy_stream decodes every frame, as python-zstandard's.
    out = io.BytesIO()
    assert zstd.ZstdDecompressor().copy_stream(io.BytesIO(frame + frame), out) == (2 * len(frame), 24)
    assert out.getvalue() == b"foobarfoobar" * 2


def test_buffer_types():
    import struct
    b = zstd.BufferWithSegments(b"foofooxfooxy", struct.pack("=6Q", 0, 3, 3, 4, 7, 5))
    assert (len(b), b.size, b.tobytes()) == (3, 12, b"foofooxfooxy")
    assert [(s.offset, len(s), s.tobytes()) for s in (b[0], b[1], b[2])] == [
        (0, 3, b"foo"), (3, 4, b"foox"), (7, 5, b"fooxy")]
    assert len(b.segments()) == 3 and b.segments().tobytes() == struct.pack("=6Q", 0, 3, 3, 4, 7, 5)
    with pytest.raises(IndexError, match="offset must be less than 3"):
        b[3]
    with pytest.raises(ValueError, match="not a multiple of 16"):
        zstd.BufferWithSegments(b"foo", b"\0" * 15)
    with pytest.raises(ValueError, match="outside buffer"):
        zstd.BufferWithSegments(b"foo", struct.pack("=QQ", 1, 3))
    c = zstd.BufferWithSegmentsCollection(b, zstd.BufferWithSegments(b"xy", struct.pack("=QQ", 0, 2)))
    assert (len(c), c.size()) == (4, 14) and c[3].tobytes() == b"xy" and c[2].tobytes() == b"fooxy"
    with pytest.raises(IndexError, match="non-negative"):
        c[-1]
    with pytest.raises(TypeError, match="must be BufferWithSegments"):
        zstd.BufferWithSegmentsCollection(b, b"xy")
    # A segment is a buffer to lzkit.zstd's functions (and, from Python
    # 3.12, to memoryview): a view of the buffer's bytes.
    frame = zstd.compress(b"hello")
    seg = zstd.BufferWithSegments(b"ab" + frame, struct.pack("=QQ", 2, len(frame)))[0]
    assert zstd.decompress(seg) == b"hello" and zstd.frame_content_size(seg) == 5
    import sys
    if sys.version_info >= (3, 12):
        assert bytes(memoryview(seg)) == frame


def test_multi_compress_and_decompress_to_buffer():
    import struct
    items = [DATA[i * 7000:(i + 1) * 7000 + i] for i in range(40)] + [b""]
    c = zstd.ZstdCompressor(level=1, write_checksum=True)
    for threads in (0, 1, 3, -1):
        frames = c.multi_compress_to_buffer(items, threads=threads)
        assert isinstance(frames, zstd.BufferWithSegmentsCollection) and len(frames) == len(items)
        assert [frames[i].tobytes() for i in range(len(items))] == [c.compress(x) for x in items]
        back = zstd.ZstdDecompressor().multi_decompress_to_buffer(frames, threads=threads)
        assert [back[i].tobytes() for i in range(len(items))] == items
        assert back.size() == sum(map(len, items))
    # A dictionary, and frames that do not state their size (the sizes
    # given; a wrong one is an error of that item).
    d = zstd.train_dictionary(2048, [DATA[i:i + 300] for i in range(0, 300_000, 997)])
    unsized = zstd.ZstdCompressor(dict_data=d, write_content_size=False)
    frames = [unsized.compress(x) for x in items[:5]]
    dd = zstd.ZstdDecompressor(dict_data=d)
    with pytest.raises(ValueError, match="could not determine decompressed size of item 0"):
        dd.multi_decompress_to_buffer(frames)
    sizes = struct.pack("=5Q", *map(len, items[:5]))
    back = dd.multi_decompress_to_buffer(frames, decompressed_sizes=sizes, threads=2)
    assert [back[i].tobytes() for i in range(5)] == items[:5]
    wrong = struct.pack("=5Q", *[len(x) for x in items[:4]], len(items[4]) + 1)
    with pytest.raises(zstd.ZstdError, match="error decompressing item 4"):
        dd.multi_decompress_to_buffer(frames, decompressed_sizes=wrong)
    with pytest.raises(ValueError, match="size mismatch"):
        dd.multi_decompress_to_buffer(frames, decompressed_sizes=sizes[:8])
    bad = [zstd.compress(b"x" * 128), bytearray(zstd.compress(b"y" * 1000))]
    bad[1][-3] ^= 0xFF
    with pytest.raises(zstd.ZstdError, match="error decompressing item 1"):
        zstd.ZstdDecompressor().multi_decompress_to_buffer(bad, threads=2)
    with pytest.raises(TypeError, match="item 0 not a bytes like object"):
        c.multi_compress_to_buffer(["foo"])
    with pytest.raises(ValueError, match="source elements are empty"):
        c.multi_compress_to_buffer([b"", b""])
    assert zstd.backend_features == {"buffer_types", "multi_compress_to_buffer", "multi_decompress_to_buffer"}


def test_train_dictionary_searches_k_and_d_as_python_zstandard():
    samples = [DATA[i:i + 500] + b"tail %d" % i for i in range(0, 200_000, 331)]
    d = zstd.train_dictionary(4096, samples, threads=2, steps=2, d=6)
    assert d.d == 6 and d.k in (50, 2000) and len(d) <= 4096
    fixed = zstd.train_dictionary(4096, samples, k=64, d=8, dict_id=7)
    assert (fixed.k, fixed.d, fixed.dict_id()) == (64, 8, 7)
    frame = zstd.ZstdCompressor(dict_data=fixed).compress(samples[3])
    assert zstd.ZstdDecompressor(dict_data=fixed).decompress(frame) == samples[3]
    with pytest.raises(zstd.ZstdError, match="cannot train dict"):
        zstd.train_dictionary(4096, [b"x"])
    zstandard = pytest.importorskip("zstandard")
    for kw in ({}, {"k": 64, "d": 8, "dict_id": 7}, {"threads": 2, "steps": 2, "d": 6}):
        theirs = zstandard.train_dictionary(4096, samples, **kw)
        ours = zstd.train_dictionary(4096, samples, **kw)
        assert (ours.as_bytes(), ours.k, ours.d) == (theirs.as_bytes(), theirs.k, theirs.d)


def test_multi_decompress_to_buffer_edge_cases():
    import struct
    d = zstd.ZstdDecompressor()
    # python-zstandard's C backend fails hard on these; lzkit answers.
    with pytest.raises(ValueError, match="no source elements found"):
        d.multi_decompress_to_buffer([])
    empty = d.multi_decompress_to_buffer([zstd.compress(b"")] * 3, threads=2)
    assert len(empty) == 3 and empty.size() == 0 and empty[2].tobytes() == b""
    unsized = zstd.ZstdCompressor(write_content_size=False).compress(b"abc")
    with pytest.raises(zstd.ZstdError, match="item 0: Destination buffer is too small"):
        d.multi_decompress_to_buffer([unsized], decompressed_sizes=struct.pack("=Q", 2))
    with pytest.raises(zstd.ZstdError, match="item 0: Destination buffer is too small"):
        d.multi_decompress_to_buffer([zstd.compress(b"abc")], decompressed_sizes=struct.pack("=Q", 2))
    with pytest.raises(zstd.ZstdError, match="item 0: decompressed 3 bytes; expected 4"):
        d.multi_decompress_to_buffer([unsized], decompressed_sizes=struct.pack("=Q", 4))
    with pytest.raises(TypeError, match="list or BufferWithSegments"):
        d.multi_decompress_to_buffer((b"a",))


def test_outputs_over_32_mib_decode_whole():
    # Outputs this large are made unwritten, asked for huge pages (a hint,
    # which no test can observe) and then written: every byte must still
    # be the data's, to the last (the length is not 2 MiB aligned).
    data = array.array("I", range(9_000_000)).tobytes() + DATA[:54_321]
    packed = zstd.compress(data, level=1)
    out = zstd.decompress(packed)
    assert type(out) is bytes and out == data
    # No content size: decoded into max_output_size, then shrunk.
    unsized = zstd.ZstdCompressor(level=1, write_content_size=False).compress(data)
    out = zstd.ZstdDecompressor().decompress(unsized, max_output_size=len(data) + 3_000_000)
    assert type(out) is bytes and out == data
