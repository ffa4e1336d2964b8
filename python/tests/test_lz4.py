"""lzkit.lz4 against python-lz4 (the ``lz4`` package), whose behaviour is the
specification: each decodes what the other writes, at every block size,
level and flag; the same frame information, exceptions and edge cases;
hostile input raises and never crashes; threads.
"""

import array
import io
import os
import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import lz4.block as ref_block
import lz4.frame as ref_frame

import lzkit
import lzkit.lz4 as lz4


def column(n, seed=1):
    """Column-like data: small integers, runs, a little noise."""
    rng = random.Random(seed)
    out = bytearray()
    v = 0
    while len(out) < n:
        v = (v + rng.randint(0, 3)) % 5000
        out += v.to_bytes(4, "little") * rng.randint(1, 4)
    return bytes(out[:n])


def prose(n, seed=2):
    rng = random.Random(seed)
    words = [b"lorem", b"ipsum", b"dolor", b"sit", b"amet", b"basket", b"branch", b"event"]
    out = bytearray()
    while len(out) < n:
        out += rng.choice(words) + (b" " if rng.random() < 0.9 else b"\n")
        if rng.random() < 0.02:
            out += os.urandom(rng.randint(1, 40))
    return bytes(out[:n])


DATA = {
    "empty": b"",
    "one": b"x",
    "column": column(300_000),
    "prose": prose(700_000),
    "random": random.Random(3).randbytes(100_000),
}

BLOCK_SIZES = [
    lz4.frame.BLOCKSIZE_DEFAULT,
    lz4.frame.BLOCKSIZE_MAX64KB,
    lz4.frame.BLOCKSIZE_MAX256KB,
    lz4.frame.BLOCKSIZE_MAX1MB,
    lz4.frame.BLOCKSIZE_MAX4MB,
]


def test_constants_match_python_lz4():
    for name in ["BLOCKSIZE_DEFAULT", "BLOCKSIZE_MAX64KB", "BLOCKSIZE_MAX256KB",
                 "BLOCKSIZE_MAX1MB", "BLOCKSIZE_MAX4MB", "COMPRESSIONLEVEL_MIN",
                 "COMPRESSIONLEVEL_MINHC", "COMPRESSIONLEVEL_MAX"]:
        assert getattr(lz4.frame, name) == getattr(ref_frame, name), name


@pytest.mark.parametrize("block_size", BLOCK_SIZES)
@pytest.mark.parametrize("level", [-3, 0, 3, 9, 16])
@pytest.mark.parametrize("flags", [
    dict(),
    dict(content_checksum=True, block_checksum=True),
    dict(block_linked=False, store_size=False),
    dict(block_linked=False, content_checksum=True),
])
def test_frames_decode_both_ways(block_size, level, flags):
    for name, data in DATA.items():
        ours = lz4.frame.compress(data, compression_level=level, block_size=block_size, **flags)
        assert ref_frame.decompress(ours) == data, name
        theirs = ref_frame.compress(data, compression_level=level, block_size=block_size, **flags)
        assert lz4.frame.decompress(theirs) == data, name
        assert lz4.frame.get_frame_info(ours) == ref_frame.get_frame_info(ours), name
        assert lz4.frame.get_frame_info(theirs) == ref_frame.get_frame_info(theirs), name
        assert lz4.frame.decompress(theirs, return_bytes_read=True) == \
            ref_frame.decompress(theirs, return_bytes_read=True)


def test_frame_options_and_threads():
    data = DATA["prose"] * 8
    one = lz4.frame.compress(data, block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=False)
    for threads in [0, 2, 3]:
        assert lz4.frame.compress(data, block_size=lz4.frame.BLOCKSIZE_MAX64KB,
                                  block_linked=False, threads=threads) == one
        assert lz4.frame.decompress(one, threads=threads) == data
    assert isinstance(lz4.frame.compress(b"abc", return_bytearray=True), bytearray)
    assert isinstance(lz4.frame.decompress(one, return_bytearray=True), bytearray)
    with pytest.raises(ValueError):
        lz4.frame.compress(b"abc", block_size=9)


def test_only_the_first_frame_is_decoded():
    a, b = ref_frame.compress(b"first"), ref_frame.compress(b"second")
    assert lz4.frame.decompress(a + b) == ref_frame.decompress(a + b) == b"first"
    assert lz4.frame.decompress(a + b, return_bytes_read=True) == (b"first", len(a))


def test_buffer_inputs_without_copies():
    data = DATA["column"]
    packed = lz4.frame.compress(data)
    for form in [bytes, bytearray, memoryview]:
        assert lz4.frame.decompress(form(packed)) == data
        assert lz4.frame.compress(form(data)) == packed
        assert lz4.block.decompress(lz4.block.compress(form(data))) == data
    strided = memoryview(bytearray(packed))[::2]
    with pytest.raises(ValueError):
        lz4.frame.decompress(strided)
    np = pytest.importorskip("numpy")
    arr = np.frombuffer(data, dtype=np.uint32)
    assert lz4.frame.decompress(lz4.frame.compress(arr)) == data


@pytest.mark.parametrize("mode,kw", [
    ("default", {}),
    ("fast", {"acceleration": 8}),
    ("high_compression", {"compression": 4}),
    ("high_compression", {"compression": 12}),
])
@pytest.mark.parametrize("store_size", [True, False])
def test_blocks_decode_both_ways(mode, kw, store_size):
    for name, data in DATA.items():
        ours = lz4.block.compress(data, mode=mode, store_size=store_size, **kw)
        theirs = ref_block.compress(data, mode=mode, store_size=store_size, **kw)
        size = {} if store_size else {"uncompressed_size": len(data)}
        assert ref_block.decompress(ours, **size) == data, name
        assert lz4.block.decompress(theirs, **size) == data, name


def test_block_dictionaries_and_sizes():
    dict_ = DATA["prose"][:60_000]
    data = DATA["prose"][60_000:120_000]
    ours = lz4.block.compress(data, dict=dict_)
    assert ref_block.decompress(ours, dict=dict_) == data
    theirs = ref_block.compress(data, dict=dict_)
    assert lz4.block.decompress(theirs, dict=dict_) == data
    # A generous size: the result is what the block decodes to.
    raw = ref_block.compress(data, store_size=False)
    assert lz4.block.decompress(raw, uncompressed_size=len(data) + 1000) == \
        ref_block.decompress(raw, uncompressed_size=len(data) + 1000)
    # Too small: an error for both.
    with pytest.raises(ref_block.LZ4BlockError):
        ref_block.decompress(raw, uncompressed_size=len(data) - 1)
    with pytest.raises(lz4.block.LZ4BlockError):
        lz4.block.decompress(raw, uncompressed_size=len(data) - 1)


def test_errors_are_python_lz4s():
    packed = ref_frame.compress(DATA["prose"], content_checksum=True)
    for bad in [packed[:-5], packed[:10], b"garbage!", b""]:
        with pytest.raises(RuntimeError):
            ref_frame.decompress(bad)
        with pytest.raises(RuntimeError):
            lz4.frame.decompress(bad)
    with pytest.raises(RuntimeError):
        lz4.frame.get_frame_info(b"xx")
    for bad in [b"\x10\x00\x00\x00xx", b"\x05\x00\x00\x00\xff\xff\xff"]:
        with pytest.raises(ref_block.LZ4BlockError):
            ref_block.decompress(bad)
        with pytest.raises(lz4.block.LZ4BlockError):
            lz4.block.decompress(bad)
    for bad in [b"\x00", b""]:
        with pytest.raises(ValueError):
            ref_block.decompress(bad)
        with pytest.raises(ValueError):
            lz4.block.decompress(bad)
    with pytest.raises(ValueError):
        lz4.block.compress(b"x", mode="nope")


def test_a_lying_size_prefix_allocates_nothing():
    # 4 GiB claimed by 6 bytes: refused at once, as python-lz4 refuses it.
    for mod in (lz4.block, ref_block):
        with pytest.raises(ValueError, match="^Invalid size"):
            mod.decompress(b"\xff\xff\xff\xff\x10\x00")
    # 2 GiB claimed by a block of 64 bytes: decoded into what the block
    # can make (never the claim), then python-lz4's error.
    block = lz4.block.compress(b"A" * 64, store_size=False)
    lying = (0x7FFFFFFF).to_bytes(4, "little") + block
    with pytest.raises(lz4.block.LZ4BlockError,
                       match="^Decompressor wrote 64 bytes, but 2147483647 bytes expected"):
        lz4.block.decompress(lying)


def test_fast_mode_acceleration_is_python_lz4s():
    data = DATA["prose"][:300_000]
    for n in (0, 1, 2, 3, 7, 40):
        assert (lz4.block.compress(data, mode="fast", acceleration=n)
                == ref_block.compress(data, mode="fast", acceleration=n)), n


def test_block_errors_in_python_lz4s_words_with_lzkits_detail():
    block = lz4.block.compress(b"A" * 64, store_size=False)
    message = (r"^Decompression failed: corrupt input or insufficient space in "
               r"destination buffer. Error code: \d+$")
    for mod in (lz4.block, ref_block):
        with pytest.raises(mod.LZ4BlockError, match=message):
            mod.decompress(block[4:], uncompressed_size=64)
    with pytest.raises(lz4.block.LZ4BlockError) as e:
        lz4.block.decompress(block, uncompressed_size=60)
    assert "does not fit in 60 bytes" in e.value.detail
    # python-lz4 takes the size as a C int, and a str dictionary as UTF-8.
    for mod in (lz4.block, ref_block):
        with pytest.raises(OverflowError):
            mod.decompress(block, uncompressed_size=(1 << 32) + 64)
        assert mod.decompress(mod.compress(b"xyz" * 99, dict="ab"), dict="ab") == b"xyz" * 99


def test_frame_errors_in_python_lz4s_words():
    data = os.urandom(100_000)
    cases = [
        (lambda m: m.compress(data)[:6], "^LZ4F_getFrameInfo failed with code: ERROR_frameHeader_incomplete"),
        (lambda m: m.compress(data)[:5000], "^Frame incomplete. LZ4F_decompress returned:"),
        (lambda m: (lambda c: c[:-1] + bytes([c[-1] ^ 0x42]))(m.compress(data, content_checksum=True)),
         "^LZ4F_decompress failed with code: ERROR_contentChecksum_invalid$"),
    ]
    for make, message in cases:
        for mod in (lz4.frame, ref_frame):
            with pytest.raises(RuntimeError, match=message):
                mod.decompress(make(mod))


def test_a_cut_file_raises_eoferror(tmp_path):
    path = tmp_path / "cut.lz4"
    path.write_bytes(ref_frame.compress(DATA["prose"][:200_000])[:-100])
    for mod in (lz4.frame, ref_frame):
        with mod.open(path) as f, pytest.raises(EOFError):
            f.read()


def test_flush_ends_the_frame_so_a_reader_sees_it(tmp_path):
    path = tmp_path / "flushed.lz4"
    with lz4.frame.open(path, mode="w") as w:
        w.write(b"first ")
        w.flush()
        for mod in (lz4.frame, ref_frame):
            with mod.open(path) as r:
                assert r.read() == b"first "
        w.write(b"second")
    for mod in (lz4.frame, ref_frame):
        with mod.open(path) as r:
            assert r.read() == b"first second"


def test_decompressor_state_after_the_end_is_python_lz4s():
    data = DATA["column"][:50_000]
    for mod in (lz4.frame, ref_frame):
        c = mod.compress(data)
        d = mod.LZ4FrameDecompressor()
        assert d.decompress(c + c) == data
        assert d.eof and d.needs_input and d.unused_data == c
        d = mod.LZ4FrameDecompressor()
        assert d.decompress(c) == data
        assert d.eof and d.needs_input and d.unused_data is None


def test_hostile_input_raises_and_never_crashes():
    rng = random.Random(7)
    frames = [lz4.frame.compress(DATA["prose"][:50_000], block_size=4, block_linked=linked,
                                 content_checksum=cs, block_checksum=bs)
              for linked in (True, False) for cs in (True, False) for bs in (True, False)]
    blocks = [lz4.block.compress(DATA["column"][:40_000], store_size=True)]
    for _ in range(3000):
        src = bytearray(rng.choice(frames + blocks))
        for _ in range(rng.randint(1, 8)):
            src[rng.randrange(len(src))] ^= 1 << rng.randrange(8)
        if rng.random() < 0.3:
            del src[rng.randrange(len(src)):]
        for fn in (lz4.frame.decompress, lz4.block.decompress, lz4.frame.get_frame_info):
            try:
                fn(bytes(src))
            except (RuntimeError, ValueError, lz4.block.LZ4BlockError):
                pass


def test_streaming_compressor_and_decompressor():
    data = DATA["prose"]
    for kw in [dict(), dict(block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=False,
                             content_checksum=True)]:
        with lz4.frame.LZ4FrameCompressor(**kw) as c:
            out = c.begin(source_size=len(data))
            for i in range(0, len(data), 10_000):
                out += c.compress(data[i:i + 10_000])
            out += c.flush()
        assert ref_frame.decompress(out) == data
        assert ref_frame.get_frame_info(out)["content_size"] == len(data)
    # Fed in small pieces, with data after the frame.
    stream = ref_frame.compress(data) + b"after"
    d = lz4.frame.LZ4FrameDecompressor()
    got = b""
    for i in range(0, len(stream), 4096):
        got += d.decompress(stream[i:i + 4096])
    assert got == data and d.eof and d.unused_data == b"after"
    # max_length.
    d = lz4.frame.LZ4FrameDecompressor()
    first = d.decompress(ref_frame.compress(data), max_length=1000)
    assert first == data[:1000] and not d.needs_input and not d.eof
    rest = d.decompress(b"")
    assert first + rest == data and d.eof


def test_decompressor_decodes_blocks_as_they_arrive():
    """Output comes out block by block, not at the frame's end; the
    result, the errors and eof agree with python-lz4's decompressor."""
    data = DATA["prose"] * 4
    for kw in [dict(), dict(block_linked=False, block_checksum=True, content_checksum=True),
               dict(block_size=lz4.frame.BLOCKSIZE_MAX256KB)]:
        stream = ref_frame.compress(data, **kw)
        ours, theirs = lz4.frame.LZ4FrameDecompressor(), ref_frame.LZ4FrameDecompressor()
        got, want, early = b"", b"", False
        for i in range(0, len(stream), 1000):
            got += ours.decompress(stream[i:i + 1000])
            want += theirs.decompress(stream[i:i + 1000])
            early |= 0 < len(got) and not ours.eof
            assert data.startswith(got)
        assert got == want == data and ours.eof and theirs.eof
        assert early, "nothing decoded before the frame's end"
    # Byte by byte.
    stream = ref_frame.compress(data[:50_000], content_checksum=True)
    d = lz4.frame.LZ4FrameDecompressor()
    assert b"".join(d.decompress(stream[i:i + 1]) for i in range(len(stream))) == data[:50_000]
    assert d.eof
    # Damage: an error from both, never wrong data.
    bad = bytearray(stream)
    bad[len(bad) // 2] ^= 0x10
    for cls in (lz4.frame.LZ4FrameDecompressor, ref_frame.LZ4FrameDecompressor):
        with pytest.raises(RuntimeError):
            cls().decompress(bytes(bad))


def test_low_level_context_functions():
    """python-lz4's create_compression_context / compress_begin /
    compress_chunk / compress_flush and decompress_chunk, both ways."""
    data = DATA["prose"]
    for lib_c, lib_d in [(lz4.frame, ref_frame), (ref_frame, lz4.frame), (lz4.frame, lz4.frame)]:
        for kw in [dict(), dict(auto_flush=True, content_checksum=True, compression_level=9),
                   dict(block_linked=False, block_size=lz4.frame.BLOCKSIZE_MAX256KB)]:
            ctx = lib_c.create_compression_context()
            out = lib_c.compress_begin(ctx, source_size=len(data), **kw)
            pieces = []
            for i in range(0, len(data), 30_000):
                pieces.append(lib_c.compress_chunk(ctx, data[i:i + 30_000]))
            if kw.get("auto_flush"):
                assert all(pieces), "auto_flush returns every chunk's blocks"
            mid = lib_c.compress_flush(ctx, end_frame=False)
            out += b"".join(pieces) + mid + lib_c.compress_flush(ctx)
            assert ref_frame.get_frame_info(out)["content_size"] == len(data)
            d = lib_d.create_decompression_context()
            got, pos = b"", 0
            stream = out + b"tail"
            while True:
                part, used, ended = lib_d.decompress_chunk(d, stream[pos:pos + 5000])
                got += part
                pos += used
                if ended:
                    break
            assert got == data and stream[pos:] == b"tail", (lib_c, lib_d, kw)
    # The defaults are python-lz4's: the same header, the same buffering.
    infos = []
    for lib in (lz4.frame, ref_frame):
        ctx = lib.create_compression_context()
        head = lib.compress_begin(ctx, source_size=90_000)
        sizes = [len(lib.compress_chunk(ctx, data[i:i + 30_000])) for i in range(0, 90_000, 30_000)]
        infos.append((ref_frame.get_frame_info(head), [s > 0 for s in sizes]))
        lib.compress_flush(ctx)
    assert infos[0] == infos[1]
    # max_length: the same pieces as python-lz4's, and the end reported once.
    frame = ref_frame.compress(data[:20_000])
    results = []
    for lib in (lz4.frame, ref_frame):
        d = lib.create_decompression_context()
        pos, got, calls = 0, b"", 0
        while True:
            part, used, ended = lib.decompress_chunk(d, frame[pos:], max_length=3000)
            got, pos, calls = got + part, pos + used, calls + 1
            assert len(part) <= 3000
            if ended:
                break
        results.append(got)
        assert pos == len(frame)
    assert results[0] == results[1] == data[:20_000]
    with pytest.raises(RuntimeError):
        lz4.frame.compress_chunk(lz4.frame.create_compression_context(), b"x")


def test_files_both_ways(tmp_path):
    data = DATA["prose"] * 3
    path = tmp_path / "a.lz4"
    with lz4.frame.open(path, "wb", compression_level=9, content_checksum=True) as f:
        f.write(data[:100_000])
        f.write(memoryview(data[100_000:]))
    with ref_frame.open(path, "rb") as f:
        assert f.read() == data
    with ref_frame.open(path, "wb") as f:
        f.write(data)
    with lz4.frame.open(path, "rb") as f:
        assert f.read(10) == data[:10]
        assert f.read() == data[10:]
    # Two frames in one file, read in pieces and by line.
    path.write_bytes(ref_frame.compress(b"line one\nline two\n") + ref_frame.compress(b"three\n"))
    with lz4.frame.open(path, "rt", encoding="ascii") as f:
        assert f.readlines() == ["line one\n", "line two\n", "three\n"]
    with lz4.frame.LZ4FrameFile(str(path)) as f:
        assert list(f) == [b"line one\n", b"line two\n", b"three\n"]
    # A file object.
    buf = io.BytesIO()
    with lz4.frame.LZ4FrameFile(buf, "wb") as f:
        f.write(b"to a file object")
    assert ref_frame.decompress(buf.getvalue()) == b"to a file object"
    # A corrupt file: an error, not wrong data.
    good = ref_frame.compress(data, content_checksum=True)
    path.write_bytes(good[:len(good) // 2] + bytes([good[len(good) // 2] ^ 4]) + good[len(good) // 2 + 1:])
    with pytest.raises(Exception):
        with lz4.frame.open(path, "rb") as f:
            f.read()


def test_block_decoder_objects():
    data = DATA["column"]
    raw = lz4.block.compress(data, store_size=False)
    dec = lz4.block.Decoder()
    for _ in range(3):
        assert dec.decompress(raw, len(data)) == data
    out = bytearray(len(data))
    assert dec.decompress_into(raw, out) == len(data) and bytes(out) == data
    with pytest.raises(lz4.block.LZ4BlockError):
        dec.decompress_into(raw, bytearray(10))
    with pytest.raises(ValueError):
        dec.decompress_into(raw, b"read-only bytes")


def test_destinations_of_any_dtype_are_bytes():
    """A writable destination is taken as its bytes whatever its dtype
    (itemsize * len), as sources are; a strided one is refused with
    ValueError, a read-only one too."""
    np = pytest.importorskip("numpy")
    data = DATA["column"][:40_000]
    raw = lz4.block.compress(data, store_size=False)
    dec = lz4.block.Decoder()
    for dtype in (np.uint32, np.float64, np.int16):
        out = np.zeros(len(data) // np.dtype(dtype).itemsize, dtype=dtype)
        assert dec.decompress_into(raw, out) == len(data)
        assert out.tobytes() == data
        # Two dimensions, C order: still its bytes.
        out2 = np.zeros((4, len(data) // 4 // np.dtype(dtype).itemsize), dtype=dtype)
        assert dec.decompress_into(raw, out2) == len(data)
        assert out2.tobytes() == data
    wide = np.zeros(len(data) // 2, dtype=np.uint32)  # twice the room
    strided = wide[::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        dec.decompress_into(raw, strided)
    assert not wide.any()
    with pytest.raises(ValueError, match="C-contiguous"):
        dec.decompress_into(raw, memoryview(bytearray(2 * len(data)))[::2])
    with pytest.raises(ValueError, match="C-contiguous"):
        dec.decompress_into(raw, np.zeros((len(data) // 8, 2), dtype=np.uint32).T)
    frozen = np.zeros(len(data) // 4, dtype=np.uint32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        dec.decompress_into(raw, frozen)
    with pytest.raises(TypeError):
        dec.decompress_into(raw, [0] * len(data))


def test_concurrent_use_from_threads():
    inputs = [DATA["prose"][i * 50_000:(i + 1) * 50_000] for i in range(8)]
    dec = lz4.block.Decoder()
    lock = threading.Lock()

    def work(chunk):
        for _ in range(20):
            packed = lz4.frame.compress(chunk, compression_level=3)
            assert lz4.frame.decompress(packed) == chunk
            raw = lz4.block.compress(chunk, store_size=False)
            with lock:
                assert dec.decompress(raw, len(chunk)) == chunk
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, inputs))


def test_version():
    assert lzkit.__version__ and lz4.library_version_number() >= 11000


def test_a_frame_file_seeks_as_python_lz4s(tmp_path):
    data = DATA["prose"][:300_000]
    path = tmp_path / "seek.lz4"
    path.write_bytes(ref_frame.compress(data, block_size=ref_frame.BLOCKSIZE_MAX64KB) * 2)
    whole = data * 2
    with lz4.frame.open(path) as f, ref_frame.open(path) as g:
        assert f.seekable() and g.seekable()
        for offset, whence in [(1000, 0), (500, 1), (10, 0), (-100, 2), (-5, 1),
                               (len(whole) + 10, 0), (0, 0), (-1, 0)]:
            assert f.seek(offset, whence) == g.seek(offset, whence), (offset, whence)
            assert f.tell() == g.tell()
            assert f.read(777) == g.read(777)
    assert lz4.VERSION == lzkit.__version__ == lz4.__version__


# Seeks of a python-lz4 file: both ways, from every whence, past both ends.
SEEKS = [(1000, 0), (500, 1), (10, 0), (-100, 2), (-5, 1), (250_000, 0), (-1, 0),
         (10**9, 0), (0, 0), (-50_000, 2), (3, 1)]


def seekable_lz4(tmp_path, data, chunk=16 << 10, name="seek.lz4"):
    """``data`` as lzkit's ``--seekable`` writes it: frames of ``chunk``
    bytes, then the seek table."""
    import gzip

    src = tmp_path / (name + ".gz")
    src.write_bytes(gzip.compress(data))
    dst = tmp_path / name
    lzkit.recompress_file(str(src), str(dst), to="lz4", seekable=chunk)
    return dst


class CountingFile(io.FileIO):
    """A file that counts the bytes read from it."""

    read_bytes = 0

    def readinto(self, b):
        n = super().readinto(b)
        self.read_bytes += n or 0
        return n

    def read(self, size=-1):
        data = super().read(size)
        self.read_bytes += len(data)
        return data


def same_seeks(path, data):
    """lzkit's file and python-lz4's agree on every seek and read of
    ``path`` (whose content is ``data``); returns lzkit's underlying file."""
    raw = CountingFile(path)
    with lz4.frame.open(raw) as f, ref_frame.open(path) as g:
        for offset, whence in SEEKS:
            got = f.seek(offset, whence)
            assert got == g.seek(offset, whence), (offset, whence)
            assert f.tell() == g.tell() == got
            assert f.read(777) == g.read(777) == data[got:got + 777]
            assert f.readline() == g.readline()
            assert f.tell() == g.tell()
        f.seek(0)
        assert f.read() == data
    return raw


def test_a_frame_file_seeks_through_its_seek_table(tmp_path):
    data = DATA["prose"][:400_000]
    path = seekable_lz4(tmp_path, data)
    same_seeks(path, data)
    # Only the frames read are decoded: a read near the end of a large
    # file reads little of it.
    big = data * 20
    path = seekable_lz4(tmp_path, big, chunk=64 << 10, name="big.lz4")
    size = os.path.getsize(path)
    with CountingFile(path) as raw, lz4.frame.open(raw) as f:
        assert f.seek(-1000, io.SEEK_END) == len(big) - 1000
        assert f.read() == big[-1000:]
        assert f.seek(12_345) == 12_345 and f.read(100) == big[12_345:12_445]
        assert raw.read_bytes < size // 4, (raw.read_bytes, size)


def lz4_table(blob):
    """(where the entries start, their count, an entry's length) of a
    file's LZ4 seek table (lzkit's format: 17-byte entries, 4 more with
    checksums, then the count, the descriptor and "LZK1")."""
    count = int.from_bytes(blob[-9:-5], "little")
    assert blob[-4:] == b"LZK1"
    size = 21 if blob[-5] & 0x80 else 17
    return len(blob) - 9 - size * count, count, size


def test_a_seek_table_the_file_refutes_is_not_believed(tmp_path):
    xxhash = pytest.importorskip("xxhash")
    data = DATA["prose"][:400_000]
    good = seekable_lz4(tmp_path, data).read_bytes()
    start, count, size = lz4_table(good)
    assert count >= 10

    def entry(blob, k):
        at = start + size * k
        return at, int.from_bytes(blob[at + 12:at + 16], "little")

    # 1. A damaged entry (the table's own checksum is then wrong): refused
    # when the table is read.
    bad = bytearray(good)
    at, _ = entry(bad, 3)
    bad[at + 12] ^= 0x40
    (tmp_path / "damaged.lz4").write_bytes(bad)
    same_seeks(tmp_path / "damaged.lz4", data)

    # 2. A table that lies consistently: the decoded sizes of two entries
    # swapped (the total unchanged) and its checksum made right. Opening
    # accepts it; the first read it places wrongly checks the frame
    # headers and decodes from the start instead.
    bad = bytearray(good)
    (a, sa), (b, sb) = entry(bad, 0), entry(bad, count - 1)
    assert sa != sb
    bad[a + 12:a + 16], bad[b + 12:b + 16] = sb.to_bytes(4, "little"), sa.to_bytes(4, "little")
    body = bytes(bad[start:len(bad) - 4])
    bad[start - 4:start] = (xxhash.xxh64(body).intdigest() & 0xFFFFFFFF).to_bytes(4, "little")
    (tmp_path / "lying.lz4").write_bytes(bad)
    from lzkit._lzkit import TableReader

    with open(tmp_path / "lying.lz4", "rb") as fp:
        assert TableReader.open(fp) is not None  # the lie gets past the open
    with open(tmp_path / "seek.lz4", "rb") as fp:
        assert TableReader.open(fp) is not None
    with open(tmp_path / "damaged.lz4", "rb") as fp:
        assert TableReader.open(fp) is None
    same_seeks(tmp_path / "lying.lz4", data)
    # Reads right after the first seek: (0, 0) and (-5, 1) need no size,
    # so the table is first refuted by the read; then SEEK_END.
    for first in [(0, 0), (-5, 1), (100, 0), (-10, 2), (200_000, 0)]:
        with lz4.frame.open(tmp_path / "lying.lz4") as f:
            got = f.seek(*first)
            assert f.read(300_000) == data[got:got + 300_000]
            assert f.seek(-10, io.SEEK_END) == len(data) - 10 and f.read() == data[-10:]


def test_a_seekable_file_with_corrupt_data_reads_as_a_plain_decode(tmp_path):
    data = DATA["prose"][:400_000]
    good = seekable_lz4(tmp_path, data).read_bytes()
    start, count, size = lz4_table(good)
    # The entry that holds content byte 300,000, and its bytes in the file.
    at = 0
    for k in range(count):
        e = start + size * k
        offset = int.from_bytes(good[e:e + 8], "little")
        length = int.from_bytes(good[e + 8:e + 12], "little")
        at += int.from_bytes(good[e + 12:e + 16], "little")
        if at > 300_000:
            break

    def outcome(read):
        try:
            return "read", read()
        except Exception as e:
            return "raised", type(e)

    # Damage in its header, its first block's size, its data, its end.
    for where in (offset + 4, offset + 8, offset + length // 2, offset + length - 2):
        bad = bytearray(good)
        bad[where] ^= 0x5A
        path = tmp_path / f"corrupt-{where}.lz4"
        path.write_bytes(bad)

        def seek_then_read(module):
            with module.open(path) as f:
                f.seek(300_000)
                return f.read(1000)

        # python-lz4's file decodes up to there and stops before the
        # frame's end: damage further on is not seen yet.
        assert outcome(lambda: seek_then_read(lz4.frame)) == outcome(
            lambda: seek_then_read(ref_frame)), where


def test_outputs_over_32_mib_decode_whole():
    # Outputs this large are made unwritten, asked for huge pages (a hint,
    # which no test can observe) and then written: every byte must still
    # be the data's, to the last (the length is not 2 MiB aligned), in an
    # object of the type asked for.
    data = array.array("I", range(9_000_000)).tobytes() + column(54_321)
    packed = ref_frame.compress(data, store_size=True)
    out = lz4.frame.decompress(packed)
    assert type(out) is bytes and out == data
    out = lz4.frame.decompress(packed, return_bytearray=True)
    assert type(out) is bytearray and out == data
    block = ref_block.compress(data, store_size=False)
    out = lz4.block.decompress(block, uncompressed_size=len(data))
    assert type(out) is bytes and out == data
    out = lz4.block.decompress(block, uncompressed_size=len(data), return_bytearray=True)
    assert type(out) is bytearray and out == data
