"""uproot reading LZ4 (and ZSTD) baskets with and without lzkit: total read
time and the time inside the decompression call (its profile share), the
arrays checked equal.

    python python/bench/bench_uproot.py [--events N] [--rounds R]

The file is written by uproot from column-like arrays (ints, floats,
counters, flags), with uproot.LZ4(1) and uproot.ZSTD(3).
"""

import argparse
import os
import tempfile
import time

import numpy as np
import uproot
import uproot.compression as uc

import lzkit.uproot


def columns(n, seed=3):
    rng = np.random.default_rng(seed)
    return {
        "run": np.repeat(np.arange(n // 1000 + 1, dtype=np.int32), 1000)[:n],
        "event": np.arange(n, dtype=np.int64),
        "pt": np.round(rng.exponential(30.0, n), 2).astype(np.float32),
        "eta": np.round(rng.normal(0, 1.5, n), 3).astype(np.float32),
        "nhits": rng.poisson(12, n).astype(np.int16),
        "flag": (rng.random(n) < 0.1).astype(np.bool_),
    }


def timed_reads(path, rounds):
    """(best total read time, decompression time of that round)."""
    spent = [0.0]
    for cls in (uc._DecompressLZ4, uc._DecompressZSTD):
        real = cls.decompress

        def wrapper(self, data, uncompressed_bytes=None, _real=real):
            t = time.perf_counter()
            try:
                return _real(self, data, uncompressed_bytes)
            finally:
                spent[0] += time.perf_counter() - t

        cls.decompress = wrapper
        cls._bench_real = real
    best = None
    try:
        for _ in range(rounds):
            spent[0] = 0.0
            t = time.perf_counter()
            with uproot.open(path) as f:
                arrays = f["events"].arrays(library="np")
            total = time.perf_counter() - t
            if best is None or total < best[0]:
                best = (total, spent[0], arrays)
    finally:
        for cls in (uc._DecompressLZ4, uc._DecompressZSTD):
            cls.decompress = cls._bench_real
            del cls._bench_real
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=5_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    data = columns(args.events)
    work = tempfile.mkdtemp()
    for comp in (uproot.LZ4(1), uproot.ZSTD(3)):
        path = os.path.join(work, f"{type(comp).__name__}.root")
        with uproot.recreate(path, compression=comp) as f:
            f["events"] = data
        size = os.path.getsize(path)
        results = {}
        for label in ("uproot (cramjam)", "lzkit", "uproot (cramjam) ", "lzkit "):
            if label.strip() == "lzkit":
                lzkit.uproot.install()
            try:
                total, spent, arrays = timed_reads(path, args.rounds)
            finally:
                lzkit.uproot.uninstall()
            for k, v in data.items():
                np.testing.assert_array_equal(arrays[k], v)
            prev = results.get(label.strip())
            if prev is None or total < prev[0]:
                results[label.strip()] = (total, spent)
        (t0, d0), (t1, d1) = results["uproot (cramjam)"], results["lzkit"]
        print(f"{type(comp).__name__}: {args.events} events, {size} bytes: "
              f"cramjam read {t0 * 1e3:.0f} ms (decompression {d0 * 1e3:.0f} ms, {d0 / t0:.0%}); "
              f"lzkit read {t1 * 1e3:.0f} ms (decompression {d1 * 1e3:.0f} ms, {d1 / t1:.0%}); "
              f"decompression {d0 / d1:.2f}x faster")


if __name__ == "__main__":
    main()
