"""lzkit.lz4 against python-lz4 and cramjam: block and frame decompression
speed per file and their geometric means, compression speed, and
multithreaded compression; every output is checked.

    python python/bench/bench_lz4.py [DIR] [--rounds N]

DIR: the files to measure (the development corpus from
../shared/corpus/make_corpus.sh); without one, generated column-like data.
Each case takes the best of N rounds (default 5), the contenders
interleaved in each round.
"""

import argparse
import math
import os
import random
import sys
import time

import lz4.block as ref_block
import lz4.frame as ref_frame

import lzkit.lz4 as lz4

try:
    import cramjam
except ImportError:  # optional
    cramjam = None


def generated():
    rng = random.Random(1)
    files = {}
    for name, width in [("ints", 4), ("longs", 8), ("shorts", 2)]:
        out = bytearray()
        v = 0
        while len(out) < 4 << 20:
            v = (v + rng.randint(0, 5)) % (1 << (8 * width - 1))
            out += v.to_bytes(width, "little") * rng.randint(1, 3)
        files[name] = bytes(out[:4 << 20])
    words = [b"event", b"branch", b"basket", b"run", b"lumi", b"jet", b"muon"]
    text = bytearray()
    while len(text) < 4 << 20:
        text += rng.choice(words) + b" " + str(rng.randint(0, 999)).encode() + b"\n"
    files["text"] = bytes(text[:4 << 20])
    return files


def best(fn, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def interleaved(cases, rounds):
    """{name: seconds}: each round runs every case once, in a shuffled order."""
    out = {name: math.inf for name in cases}
    rng = random.Random(0)
    names = list(cases)
    for _ in range(rounds):
        rng.shuffle(names)
        for name in names:
            t = time.perf_counter()
            cases[name]()
            out[name] = min(out[name], time.perf_counter() - t)
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    if args.dir:
        files = {}
        for name in sorted(os.listdir(args.dir)):
            path = os.path.join(args.dir, name)
            if os.path.isfile(path) and os.path.getsize(path) >= 64 << 10:
                with open(path, "rb") as f:
                    files[name] = f.read()
    else:
        files = generated()
    rounds = args.rounds
    ratios = {"block vs python-lz4": [], "block vs cramjam": [],
              "block Decoder vs python-lz4": [],
              "frame 64K vs python-lz4": [], "frame 1M vs python-lz4": [],
              "frame 4M vs python-lz4": [], "compress vs python-lz4": []}
    worst = {k: [] for k in ratios}
    print(f"{len(files)} files, best of {rounds} rounds; MB/s of decoded bytes")
    for name, data in files.items():
        # Blocks of 64 KiB.
        pieces = [data[i:i + (64 << 10)] for i in range(0, len(data), 64 << 10)]
        blocks = [(ref_block.compress(p, store_size=False), len(p)) for p in pieces]
        dec = lz4.block.Decoder()
        got = [lz4.block.decompress(b, uncompressed_size=n) for b, n in blocks]
        assert got == pieces, name
        assert [dec.decompress(b, n) for b, n in blocks] == pieces, name
        cases = {
            "python-lz4": lambda: [ref_block.decompress(b, uncompressed_size=n) for b, n in blocks],
            "lzkit": lambda: [lz4.block.decompress(b, uncompressed_size=n) for b, n in blocks],
            "lzkit Decoder": lambda: [dec.decompress(b, n) for b, n in blocks],
        }
        if cramjam is not None:
            assert [bytes(cramjam.lz4.decompress_block(b, output_len=n)) for b, n in blocks] == pieces
            cases["cramjam"] = lambda: [cramjam.lz4.decompress_block(b, output_len=n) for b, n in blocks]
        t = interleaved(cases, rounds)
        r = t["python-lz4"] / t["lzkit"]
        ratios["block vs python-lz4"].append(r)
        worst["block vs python-lz4"].append((r, name))
        r = t["python-lz4"] / t["lzkit Decoder"]
        ratios["block Decoder vs python-lz4"].append(r)
        worst["block Decoder vs python-lz4"].append((r, name))
        if cramjam is not None:
            r = t["cramjam"] / t["lzkit"]
            ratios["block vs cramjam"].append(r)
            worst["block vs cramjam"].append((r, name))
        mbps = {k: len(data) / v / 1e6 for k, v in t.items()}
        line = f"{name[:34]:34} block " + " ".join(f"{k} {v:7.0f}" for k, v in sorted(mbps.items()))
        # Frames of 64 KiB, 1 MiB, 4 MiB (python-lz4's defaults).
        for size, label in [(64 << 10, "64K"), (1 << 20, "1M"), (4 << 20, "4M")]:
            chunks = [data[i:i + size] for i in range(0, len(data), size)]
            frames = [ref_frame.compress(c) for c in chunks]
            assert [lz4.frame.decompress(f) for f in frames] == chunks, name
            t = interleaved({
                "python-lz4": lambda: [ref_frame.decompress(f) for f in frames],
                "lzkit": lambda: [lz4.frame.decompress(f) for f in frames],
            }, rounds)
            r = t["python-lz4"] / t["lzkit"]
            ratios[f"frame {label} vs python-lz4"].append(r)
            worst[f"frame {label} vs python-lz4"].append((r, name))
            line += f" | frame{label} {r:.2f}x"
        # Compression, python-lz4's defaults.
        assert ref_frame.decompress(lz4.frame.compress(data)) == data
        t = interleaved({
            "python-lz4": lambda: ref_frame.compress(data),
            "lzkit": lambda: lz4.frame.compress(data),
        }, rounds)
        r = t["python-lz4"] / t["lzkit"]
        ratios["compress vs python-lz4"].append(r)
        worst["compress vs python-lz4"].append((r, name))
        print(line + f" | compress {r:.2f}x")
        sys.stdout.flush()
    print()
    print("geometric means (speed of lzkit / speed of the other; > 1: lzkit faster)")
    for k, v in ratios.items():
        if v:
            w = ", ".join(f"{n} {r:.2f}" for r, n in sorted(worst[k])[:3])
            print(f"  {k:30} {geomean(v):.3f}   worst: {w}")
    # Multithreaded compression of one large frame.
    big = b"".join(files.values())
    while len(big) < 64 << 20:
        big += big
    big = big[:64 << 20]
    for linked in (True, False):
        one = lz4.frame.compress(big, block_linked=linked, threads=1)
        assert lz4.frame.compress(big, block_linked=linked, threads=2) == one
        assert ref_frame.decompress(one) == big
        t = interleaved({
            "python-lz4": lambda: ref_frame.compress(big, block_linked=linked),
            "1": lambda: lz4.frame.compress(big, block_linked=linked, threads=1),
            "2": lambda: lz4.frame.compress(big, block_linked=linked, threads=2),
        }, max(5, rounds))
        print(f"64 MiB frame, block_linked={linked}: python-lz4 {len(big) / t['python-lz4'] / 1e6:.0f} MB/s, "
              f"lzkit threads=1 {len(big) / t['1'] / 1e6:.0f} MB/s, threads=2 {len(big) / t['2'] / 1e6:.0f} MB/s "
              f"({t['1'] / t['2']:.2f}x)")
    # Per-call overhead: a 1 KiB block.
    small = files[next(iter(files))][:1024]
    sb = ref_block.compress(small, store_size=False)
    n = 200_000
    t = interleaved({
        "python-lz4": lambda: [ref_block.decompress(sb, uncompressed_size=1024) for _ in range(n)],
        "lzkit": lambda: [lz4.block.decompress(sb, uncompressed_size=1024) for _ in range(n)],
    }, 3)
    print(f"1 KiB block, per call: python-lz4 {t['python-lz4'] / n * 1e6:.2f} us, lzkit {t['lzkit'] / n * 1e6:.2f} us")


if __name__ == "__main__":
    main()
