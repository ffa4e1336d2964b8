"""lzkit from several threads at once: the extension declares that it needs
no GIL (a free-threaded build keeps the GIL off once it is imported), so
every call may run beside any other. Threads decode independent frames
and blocks at the same moment and each gets its own bytes back; an object
made in one thread is used in another.

On a build with the GIL these run too (the codec calls release it).
"""

import io
import sys
import sysconfig
import threading

import pytest

import lzkit
import lzkit.lz4 as lz4
import lzkit.zstd as zstd

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
THREADS = 8


def payload(k, n=200_000):
    """Thread ``k``'s data: different for every thread, compressible."""
    words = [b"basket", b"branch", b"event", b"%d" % k, b"page", b"cluster"]
    out = bytearray()
    i = k
    while len(out) < n:
        i = (i * 1103515245 + 12345) & 0x7FFFFFFF
        out += words[i % len(words)] + (b" " if i & 8 else b"\n")
    return bytes(out[:n])


def run_together(work, n=THREADS):
    """``work(k)`` on ``n`` threads started together (a barrier), each
    ``work`` repeated; the first failure raised here."""
    barrier = threading.Barrier(n)
    errors = []

    def body(k):
        try:
            barrier.wait()
            work(k)
        except BaseException as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@pytest.mark.skipif(not FREE_THREADED, reason="a free-threaded build (3.13t, 3.14t)")
def test_the_gil_stays_off_on_a_free_threaded_build():
    # An extension that did not declare gil_used=false would have turned
    # the GIL on when imported (with a RuntimeWarning).
    assert not sys._is_gil_enabled()


def test_threads_decode_independent_frames_at_once():
    datas = [payload(k) for k in range(THREADS)]
    frames = [lz4.frame.compress(d, block_size=lz4.frame.BLOCKSIZE_MAX64KB,
                                 content_checksum=True) for d in datas]
    linked = [lz4.frame.compress(d, block_linked=True) for d in datas]
    blocks = [lz4.block.compress(d) for d in datas]
    zframes = [zstd.ZstdCompressor(level=3).compress(d) for d in datas]

    def work(k):
        # Each thread its own frame, the others' at the same moment; the
        # bytes must be its own, every time.
        for i in range(25):
            j = (k + i) % THREADS
            assert lz4.frame.decompress(frames[j]) == datas[j]
            assert lz4.frame.decompress(linked[j]) == datas[j]
            assert lz4.block.decompress(blocks[j]) == datas[j]
            assert zstd.decompress(zframes[j]) == datas[j]
            out = bytearray(len(datas[j]))
            dec = lz4.block.Decoder()
            raw = lz4.block.compress(datas[j], store_size=False)
            assert dec.decompress_into(raw, out) == len(out) and out == datas[j]

    run_together(work)


def test_threads_compress_at_once_as_one_thread_does():
    datas = [payload(k, 100_000) for k in range(THREADS)]
    want = [lz4.frame.compress(d) for d in datas]
    zwant = [zstd.ZstdCompressor(level=3).compress(d) for d in datas]

    def work(k):
        for _ in range(10):
            assert lz4.frame.compress(datas[k]) == want[k]
            assert zstd.ZstdCompressor(level=3).compress(datas[k]) == zwant[k]

    run_together(work)


def test_a_file_opened_in_one_thread_is_read_in_another():
    data = payload(1)
    packed = lz4.frame.compress(data)
    f = lz4.frame.open(io.BytesIO(packed))
    z = zstd.ZstdDecompressor().stream_reader(io.BytesIO(zstd.compress(data)))
    got = {}

    def read():
        got["lz4"] = f.read()
        got["zstd"] = z.read(len(data) + 1)

    t = threading.Thread(target=read)
    t.start()
    t.join()
    assert got == {"lz4": data, "zstd": data}
    f.close()


def test_one_file_read_by_several_threads_in_turn():
    # A shared reader: each read whole (python-lz4's file serializes with
    # a lock too), the pieces together the content.
    data = payload(2, 400_000)
    f = lz4.frame.open(io.BytesIO(lz4.frame.compress(data)))
    lock = threading.Lock()
    pieces = []

    def work(k):
        while True:
            with lock:
                at = f.tell()
                piece = f.read(4096)
                pieces.append((at, piece))
            if not piece:
                return

    run_together(work, 4)
    assert b"".join(p for _, p in sorted(pieces)) == data
    assert lzkit.__version__
