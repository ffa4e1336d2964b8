"""uproot reading LZ4 (and ZSTD) compressed ROOT data with and without
lzkit: total read time and the time inside uproot.compression.decompress
(the decompression of whole records: ROOT's block headers, LZ4's XXH64,
the codec, the copies), its profile share, the arrays checked equal.

    python python/bench/bench_uproot.py [--events N] [--rounds R]

Two layouts, written by uproot from column-like arrays (ints, floats,
counters, flags) with uproot.LZ4(1) and uproot.ZSTD(3):
- "rntuple": `f["events"] = arrays`, uproot's default (RNTuple pages of up
  to 40 MB, several 16 MiB ROOT blocks each);
- "ttree": a TTree filled by `extend` in steps of --basket events (one
  basket per branch per step, one ROOT block each).
lzkit is timed decoding on the calling thread (threads=1) and on every
core (the default).
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


def write(path, data, comp, layout, basket):
    with uproot.recreate(path, compression=comp) as f:
        if layout == "rntuple":
            f["events"] = data
            return
        tree = f.mktree("events", {k: v.dtype for k, v in data.items()})
        n = len(data["event"])
        for i in range(0, n, basket):
            tree.extend({k: v[i:i + basket] for k, v in data.items()})


def timed_reads(path, rounds):
    """(best total read time, time in uproot.compression.decompress that
    round, the arrays)."""
    spent = [0.0]
    real = uc.decompress

    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t

    wrapper.hook_before_block = real.hook_before_block
    wrapper.hook_after_block = real.hook_after_block
    uc.decompress = wrapper
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
        uc.decompress = real
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=5_000_000)
    ap.add_argument("--basket", type=int, default=100_000,
                    help="events per TTree basket (default 100000)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--layout", choices=["rntuple", "ttree"], action="append",
                    help="only this layout (repeatable; default both)")
    ap.add_argument("--codec", choices=["LZ4", "ZSTD"], action="append",
                    help="only this codec (repeatable; default both)")
    args = ap.parse_args()
    data = columns(args.events)
    work = tempfile.mkdtemp()
    runs = [("uproot (cramjam)", None), ("lzkit, 1 thread", 1), ("lzkit", None)]
    for layout in args.layout or ("rntuple", "ttree"):
        for comp in (uproot.LZ4(1), uproot.ZSTD(3)):
            name = type(comp).__name__
            if args.codec and name not in args.codec:
                continue
            path = os.path.join(work, f"{layout}-{name}.root")
            write(path, data, comp, layout, args.basket)
            size = os.path.getsize(path)
            results = {}
            # Each setting twice, interleaved; the better round of each.
            for label, threads in runs + runs:
                if label != "uproot (cramjam)":
                    lzkit.uproot.install(threads=threads)
                try:
                    total, spent, arrays = timed_reads(path, args.rounds)
                finally:
                    lzkit.uproot.uninstall()
                for k, v in data.items():
                    np.testing.assert_array_equal(arrays[k], v)
                prev = results.get(label)
                if prev is None or total < prev[0]:
                    results[label] = (total, spent)
            t0, d0 = results["uproot (cramjam)"]
            print(f"{layout} {name}: {args.events} events, {size} bytes")
            for label, _ in runs:
                t, d = results[label]
                print(f"  {label:17s} read {t * 1e3:6.1f} ms, decompression {d * 1e3:6.1f} ms "
                      f"({d / t:4.0%} of the read), {d0 / d:.2f}x less decompression time than cramjam")


if __name__ == "__main__":
    main()
