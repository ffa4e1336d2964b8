"""lzkit.dask.recompress of 16 files on a LocalCluster of worker processes:
one worker against two (one thread each); every output is checked.

    python python/bench/bench_dask.py [DIR] [--mb-per-file N] [--to zstd] [--level L]
    python python/bench/bench_dask.py [DIR] --one-file MB [--split MB] [--to lz4]

DIR: files whose content is spread over the 16 inputs (gzip-compressed
here); without one, generated text. Prints the wall time of each run and
the speed-up. With --one-file, one seekable zstd file of MB MiB of content
is recompressed to a seekable file (1 MiB chunks), cut into parts of
--split MiB (default 32) spread over the workers.
"""

import argparse
import gzip
import os
import random
import tempfile
import time

import distributed

import lzkit.dask
import lzkit.lz4
import lzkit.zstd


def contents(src, n, size):
    if src:
        blob = b"".join(open(os.path.join(src, f), "rb").read()
                        for f in sorted(os.listdir(src)) if os.path.isfile(os.path.join(src, f)))
    else:
        rng = random.Random(1)
        words = [b"event", b"run", b"basket", b"jet", b"muon", b"lumi"]
        blob = b"".join(rng.choice(words) + b" " + str(rng.randint(0, 999)).encode() + b"\n"
                        for _ in range(size * n // 8))
    while len(blob) < n * size:
        blob += blob
    return [blob[i * size:(i + 1) * size] for i in range(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--mb-per-file", type=int, default=8)
    ap.add_argument("--to", default="zstd")
    ap.add_argument("--level", type=int, default=9)
    ap.add_argument("--one-file", type=int, default=0, metavar="MB")
    ap.add_argument("--split", type=int, default=32, metavar="MB")
    args = ap.parse_args()
    work = tempfile.mkdtemp()
    seekable, split = 0, 0
    if args.one_file:
        (d,) = contents(args.dir, 1, args.one_file << 20)
        data = [d]
        p = os.path.join(work, "big.zst")
        with open(p + ".raw", "wb") as f:
            f.write(d)
        with open(p + ".gz", "wb") as f:
            f.write(gzip.compress(d, compresslevel=1))
        lzkit.recompress_file(p + ".gz", p, to="zstd", level=3, seekable=1 << 20)
        paths = [p]
        seekable, split = 1 << 20, args.split << 20
    else:
        data = contents(args.dir, 16, args.mb_per_file << 20)
        paths = []
        for i, d in enumerate(data):
            p = os.path.join(work, f"f{i:02}.gz")
            with open(p, "wb") as f:
                f.write(gzip.compress(d, compresslevel=6))
            paths.append(p)
    times = {}
    for workers in (1, 2, 1, 2):
        out = os.path.join(work, f"out{workers}")
        os.makedirs(out, exist_ok=True)
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:
            with distributed.Client(cluster) as client:
                client.run(lambda: None)
                t = time.perf_counter()
                res = lzkit.dask.recompress(paths, to=args.to, level=args.level, client=client,
                                            out_dir=out, verify=False, seekable=seekable,
                                            split=split)
                dt = time.perf_counter() - t
        for r, d in zip(res, data):
            with open(r["output"], "rb") as f:
                out_bytes = f.read()
            if args.to == "zstd":
                # Seekable or split outputs hold several frames: read them all.
                assert lzkit.zstd.ZstdDecompressor().stream_reader(out_bytes).read() == d
            else:
                assert lzkit.lz4.frame.decompress(out_bytes) == d
        times.setdefault(workers, []).append(dt)
        print(f"{workers} worker(s): {dt:.2f} s")
    best = {w: min(t) for w, t in times.items()}
    what = (f"1 seekable zstd file of {args.one_file} MiB in parts of {args.split} MiB"
            if args.one_file else f"16 files of {args.mb_per_file} MiB, gzip")
    print(f"{what} -> {args.to} -{args.level}: "
          f"1 worker {best[1]:.2f} s, 2 workers {best[2]:.2f} s, speed-up {best[1] / best[2]:.2f}x")


if __name__ == "__main__":
    main()
