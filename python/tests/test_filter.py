"""lzkit.filter: the pre-filters on buffers, and ``filter=`` in
``lzkit.lz4.frame.compress`` and ``lzkit.zstd.compress``, recorded in a
filter frame that ``decompress`` reads to undo the filter; other decoders
(python-lz4, ``lz4 -d``, ``zstd -d``) return the filtered bytes.
"""

import shutil
import struct
import subprocess

import pytest

import lz4.frame as ref_frame

import lzkit
import lzkit.filter
import lzkit.lz4.frame as frame
import lzkit.zstd as zstd


def column(n):
    """``n`` slowly growing 8-byte integers and 3 stray bytes."""
    return b"".join(struct.pack("<q", 10**6 + 7 * i + i % 3) for i in range(n)) + b"end"


def ref_delta(data, w):
    """delta of ``data`` by the definition, one element at a time."""
    out = bytearray(data)
    prev = 0
    mask = (1 << (8 * w)) - 1
    for i in range(len(data) // w):
        v = int.from_bytes(data[i * w:(i + 1) * w], "little")
        out[i * w:(i + 1) * w] = ((v - prev) & mask).to_bytes(w, "little")
        prev = v
    return bytes(out)


def ref_shuffle(data, w):
    """The byte shuffle of ``data`` by the definition."""
    n = len(data) // w
    out = bytearray(data)
    for i in range(n):
        for j in range(w):
            out[j * n + i] = data[i * w + j]
    return bytes(out)


@pytest.mark.parametrize("name", lzkit.filter.FILTERS)
def test_encode_decode_match_the_definitions(name):
    data = column(300)
    w = int(name[-1])
    ref = ref_delta(data, w) if name.startswith("delta") else ref_shuffle(data, w)
    enc = lzkit.filter.encode(data, name)
    assert enc == ref
    assert lzkit.filter.decode(enc, name) == data
    # Any buffer: a bytearray, a memoryview.
    assert lzkit.filter.encode(bytearray(data), name) == ref
    assert lzkit.filter.decode(memoryview(enc), name) == data
    assert lzkit.filter.encode(b"", name) == b""


def test_names():
    assert lzkit.filter.FILTERS == (
        "shuffle2", "shuffle4", "shuffle8", "delta1", "delta2", "delta4", "delta8")
    for bad in ["shuffle3", "delta", "zigzag", ""]:
        with pytest.raises(ValueError, match="filter"):
            lzkit.filter.encode(b"abcd", bad)
        with pytest.raises(ValueError):
            frame.compress(b"abcd", filter=bad)
        with pytest.raises(ValueError):
            zstd.compress(b"abcd", filter=bad)


def test_numpy_arrays():
    np = pytest.importorskip("numpy")
    a = np.arange(1000, dtype="<i8") * 3
    enc = lzkit.filter.encode(a, "delta8")
    assert np.frombuffer(enc, dtype="<i8")[1:].tolist() == [3] * 999
    back = frame.decompress(frame.compress(a, filter="shuffle8"))
    assert back == a.tobytes()


@pytest.mark.parametrize("name", ["shuffle8", "delta8", "delta4", "shuffle2"])
def test_lz4_frames_record_and_undo_the_filter(name):
    data = column(20000)
    out = frame.compress(data, filter=name)
    head = lzkit.filter.frame(name)
    assert out.startswith(head)
    assert lzkit.filter.read_frame(out) == (name, len(head))
    assert frame.decompress(out) == data
    back, read = frame.decompress(out, return_bytes_read=True)
    assert back == data and read == len(out)
    assert frame.decompress(out, return_bytearray=True) == bytearray(data)
    assert isinstance(frame.compress(data, filter=name, return_bytearray=True), bytearray)
    # python-lz4 decodes one frame at a time: the filter frame, a skippable
    # frame, to nothing, then the LZ4 frame to the filtered bytes.
    assert ref_frame.decompress(out, return_bytes_read=True) == (b"", len(head))
    assert ref_frame.decompress(out[len(head):]) == lzkit.filter.encode(data, name)


@pytest.mark.parametrize("name", ["shuffle4", "delta8"])
def test_zstd_frames_record_and_undo_the_filter(name):
    data = column(20000)
    out = zstd.compress(data, filter=name)
    assert out.startswith(lzkit.filter.frame(name))
    assert zstd.decompress(out) == data
    # The decompressor object keeps python-zstandard's behaviour: it
    # refuses a skippable frame first; the zstd frame after it holds the
    # filtered bytes.
    with pytest.raises(zstd.ZstdError):
        zstd.ZstdDecompressor().decompress(out)
    n = len(lzkit.filter.frame(name))
    assert zstd.ZstdDecompressor().decompress(out[n:]) == lzkit.filter.encode(data, name)


def test_unfiltered_data_as_before():
    data = column(1000)
    assert frame.decompress(frame.compress(data)) == data
    assert zstd.decompress(zstd.compress(data)) == data
    assert lzkit.filter.read_frame(frame.compress(data)) is None
    assert lzkit.filter.read_frame(b"") is None
    # Another skippable frame with the filter frame's magic number, without
    # the tag: not a filter frame.
    other = struct.pack("<II", 0x184D2A54, 8) + b"NOTLZKF!"
    assert lzkit.filter.read_frame(other + frame.compress(data)) is None


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_unusable_filter_frames_raise(codec):
    mod = frame if codec == "lz4" else zstd
    good = mod.compress(column(5000), filter="delta8")
    newer = bytearray(good)
    newer[12] = 2
    with pytest.raises(lzkit.filter.FilterFrameError, match="version 2"):
        mod.decompress(bytes(newer))
    for at in [4, 13, 15, 20]:
        bad = bytearray(good)
        bad[at] ^= 1
        with pytest.raises(lzkit.filter.FilterFrameError, match="corrupt filter frame"):
            mod.decompress(bytes(bad))
    with pytest.raises(ValueError):
        mod.decompress(good[:20])


@pytest.mark.skipif(shutil.which("lz4") is None or shutil.which("zstd") is None,
                    reason="the lz4 and zstd commands are not installed")
def test_commands_give_the_filtered_bytes(tmp_path):
    data = column(30000)
    for name in ["shuffle8", "delta2"]:
        expected = lzkit.filter.encode(data, name)
        for mod, cmd in [(frame, "lz4"), (zstd, "zstd")]:
            path = tmp_path / f"f.{cmd}"
            path.write_bytes(mod.compress(data, filter=name))
            out = subprocess.run([cmd, "-d", "-c", str(path)], check=True,
                                 capture_output=True).stdout
            assert out == expected, (name, cmd)
