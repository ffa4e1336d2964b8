"""Decoding independent frames on 1 thread and on 2 (or more) at once: the
speed-up that Python threads get from lzkit (the issue's target on a
free-threaded build: 2 threads >= 1.8x one).

    python python/bench/bench_threads.py [--frames N] [--size MB] [--rounds R] [--threads T]

N frames of SIZE MiB each (LZ4 frames of independent 64 KiB blocks, and
zstd frames at level 3), all decoded by one thread, then split over T
threads (default 2) started together; each figure is the best of R rounds,
1 and T threads interleaved in each round. Every output is checked.

The GIL: on a free-threaded build (3.13t, 3.14t) it stays off, lzkit
declaring that it needs none; on a build with the GIL, lzkit releases it
for every decode, so threads overlap there too (minus the Python between
calls). The figure needs idle cores: other work on the machine lowers it.
"""

import argparse
import os
import random
import sys
import sysconfig
import threading
import time

import lzkit
import lzkit.lz4 as lz4
import lzkit.zstd as zstd


def data(k, n):
    """Frame ``k``'s content: column-like integers, each frame its own."""
    rng = random.Random(k)
    out = bytearray()
    v = 0
    while len(out) < n:
        v = (v + rng.randint(0, 5)) % 50_000
        out += v.to_bytes(4, "little") * rng.randint(1, 3)
    return bytes(out[:n])


def timed(decode, frames, threads):
    """Seconds for ``threads`` threads, started together, to decode
    ``frames`` (split in turn among them); the outputs' lengths."""
    parts = [frames[t::threads] for t in range(threads)]
    sizes = [0] * threads
    barrier = threading.Barrier(threads + 1)

    def body(t):
        barrier.wait()
        for f in parts[t]:
            sizes[t] += len(decode(f))

    workers = [threading.Thread(target=body, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    barrier.wait()
    start = time.perf_counter()
    for w in workers:
        w.join()
    return time.perf_counter() - start, sum(sizes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=16)
    ap.add_argument("--size", type=float, default=4, help="MiB per frame")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    n = int(args.size * (1 << 20))
    contents = [data(k, n) for k in range(args.frames)]
    total = sum(map(len, contents))
    codecs = {
        "lz4 frame": (
            [lz4.frame.compress(c, block_size=lz4.frame.BLOCKSIZE_MAX64KB,
                                block_linked=False) for c in contents],
            lz4.frame.decompress,
        ),
        "zstd": (
            [zstd.ZstdCompressor(level=3).compress(c) for c in contents],
            zstd.decompress,
        ),
    }
    for name, (frames, decode) in codecs.items():
        for f, c in zip(frames, contents):
            assert decode(f) == c, name

    gil = sys._is_gil_enabled() if hasattr(sys, "_is_gil_enabled") else True
    build = "free-threaded" if sysconfig.get_config_var("Py_GIL_DISABLED") else "with the GIL"
    print(f"Python {sys.version.split()[0]} ({build}; GIL {'on' if gil else 'off'}), "
          f"lzkit {lzkit.__version__}, {os.cpu_count()} cores; "
          f"{args.frames} frames of {args.size:g} MiB, best of {args.rounds}")
    print(f"{'codec':<10} {'1 thread MB/s':>14} {f'{args.threads} threads MB/s':>15} {'speed-up':>9}")
    for name, (frames, decode) in codecs.items():
        best = {1: float("inf"), args.threads: float("inf")}
        for _ in range(args.rounds):
            for t in best:
                secs, size = timed(decode, frames, t)
                assert size == total
                best[t] = min(best[t], secs)
        one, many = (total / best[t] / 1e6 for t in (1, args.threads))
        print(f"{name:<10} {one:>14.0f} {many:>15.0f} {best[1] / best[args.threads]:>8.2f}x")


if __name__ == "__main__":
    main()
