"""lzkit.dask: the "lzkit" network compression on a real LocalCluster of
worker processes, fsspec compressions, and recompression spread over the
workers with the same bytes as on one machine. Skipped where
dask.distributed is not installed.
"""

import gzip
import io
import lzma
import os
import random

import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

import lzkit  # noqa: E402
import lzkit.dask  # noqa: E402
import lzkit.lz4 as lz4  # noqa: E402
import lzkit.zstd as zstd  # noqa: E402


def content(i, n=300_000):
    rng = random.Random(i)
    words = [b"event", b"run", b"basket", b"jet", b"muon", b"lumi"]
    out = bytearray()
    while len(out) < n:
        out += rng.choice(words) + b" " + str(rng.randint(0, 99)).encode() + b"\n"
    return bytes(out[:n])


@pytest.fixture(scope="module")
def cluster():
    with dask.config.set(lzkit.dask.config()):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as c:
            with distributed.Client(c) as client:
                yield client


def test_network_compression_is_lzkit(cluster):
    def setting():
        from distributed.protocol.compression import compressions
        return dask.config.get("distributed.comm.compression"), "lzkit" in compressions

    for name, known in cluster.run(setting).values():
        assert name == "lzkit" and known
    # Large, compressible results travel between processes.
    data = content(1, 2_000_000)
    fut = cluster.submit(lambda d: d + d, cluster.scatter(data), pure=False)
    assert fut.result() == data + data


def test_fsspec(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    lzkit.dask.register()
    data = content(2)
    for comp, check in [("lz4", lz4.frame.decompress), ("zstd", zstd.decompress)]:
        path = str(tmp_path / f"x.{comp}")
        with fsspec.open(path, "wb", compression=comp) as f:
            f.write(data)
        with open(path, "rb") as f:
            assert check(f.read()) == data
        with fsspec.open(path, "rb", compression=comp) as f:
            assert f.read() == data


def test_recompress_on_the_cluster_matches_one_machine(cluster, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    paths = []
    for i in range(6):
        data = content(i)
        p = src / (f"f{i}.gz" if i % 2 else f"f{i}.xz")
        p.write_bytes(gzip.compress(data) if i % 2 else lzma.compress(data))
        paths.append(str(p))
    (tmp_path / "dist").mkdir()
    (tmp_path / "local").mkdir()
    remote = lzkit.dask.recompress(paths, to="zstd", level=5, client=cluster,
                                   out_dir=str(tmp_path / "dist"))
    local = lzkit.dask.recompress(paths, to="zstd", level=5, out_dir=str(tmp_path / "local"))
    for r, l, i in zip(remote, local, range(6)):
        assert r["verified"] and r["content"] == len(content(i))
        with open(r["output"], "rb") as a, open(l["output"], "rb") as b:
            out = a.read()
            assert out == b.read(), "the cluster's output differs from one machine's"
        # Streamed: no content size in the header (python-zstandard's rule).
        assert zstd.decompress(out, max_output_size=len(content(i))) == content(i)
        assert {k: v for k, v in r.items() if k != "output"} == \
            {k: v for k, v in l.items() if k != "output"}
    # LZ4, seekable; a bad file fails and leaves no output.
    out = lzkit.dask.recompress(paths[:2], to="lz4", seekable=64 << 10, client=cluster,
                                out_dir=str(tmp_path / "dist"))
    with lz4.frame.open(out[0]["output"], "rb") as f:  # every frame (seekable: several)
        assert f.read() == content(0)
    bad = src / "bad.gz"
    bad.write_bytes(gzip.compress(content(9))[:-20])
    with pytest.raises(Exception):
        lzkit.dask.recompress([str(bad)], client=cluster, out_dir=str(tmp_path / "dist"))
    assert not (tmp_path / "dist" / "bad.zst").exists()
    assert not [n for n in os.listdir(tmp_path / "dist") if "lzkit-tmp" in n]


def test_probe_on_the_cluster_gives_one_machines_ratios(cluster, tmp_path):
    paths = []
    for i in range(3):
        p = tmp_path / f"c{i}"
        p.write_bytes(content(i, 400_000))
        paths.append(str(p))
    settings = [("lz4", 1, False), ("lz4", 9, False), ("zstd", 3, False)]
    local = lzkit.probe(paths, settings=settings, sample_bytes=1 << 20, time_limit=None)
    spread = lzkit.dask.probe(paths, client=cluster, settings=settings, sample_bytes=1 << 20)
    assert [c["setting"] for c in spread["candidates"]] == ["lz4 -1", "lz4 -9", "zstd -3"]
    for a, b in zip(local["candidates"], spread["candidates"]):
        assert a["ratio"] == b["ratio"] and a["compressed_bytes"] == b["compressed_bytes"]
        assert b["decompress_mbps"] > 0 and b["compress_mbps"] > 0
    assert spread["sample_bytes"] == local["sample_bytes"]
    assert any(c["pareto"] for c in spread["candidates"])


def test_a_failed_split_recompression_leaves_no_part(tmp_path, monkeypatch):
    """A split recompression that fails after its parts were written (here:
    a join that raises before it runs) removes every part file."""
    data = b"".join(content(40 + i, 400_000) for i in range(4))
    src = str(tmp_path / "src.zst")
    lzkit.recompress_file(str(_write(tmp_path / "src.zst1", zstd.compress(data))), src,
                          to="zstd", seekable=64 << 10)
    out = tmp_path / "out"
    out.mkdir()
    assert len(lzkit.dask._plan(src, 64 << 10, 256 << 10)) > 1

    def failing_join(path, dst, to, overwrite, *parts):
        assert all(os.path.exists(p[0]) for p in parts)
        raise RuntimeError("the join failed")

    monkeypatch.setattr(lzkit.dask, "_join", failing_join)
    with pytest.raises(RuntimeError, match="the join failed"):
        lzkit.dask.recompress([src], to="lz4", seekable=64 << 10, split=256 << 10,
                              out_dir=str(out))
    assert os.listdir(out) == []


def _write(path, data):
    path.write_bytes(data)
    return path


def test_probe_on_the_cluster_without_calibration(cluster, tmp_path):
    """calibrate=0 reaches every worker: the sample's ratios alone, equal to
    a local probe's without the pass, and different from those with it
    (the pass reads the whole input here, so it changes the estimate)."""
    paths = []
    for i in range(3):
        p = tmp_path / f"d{i}"
        p.write_bytes(content(10 + i, 400_000))
        paths.append(str(p))
    settings = [("lz4", 1, False), ("zstd", 3, False)]
    local = lzkit.probe(paths, settings=settings, sample_bytes=1 << 18, time_limit=None,
                        calibrate=0)
    spread = lzkit.dask.probe(paths, client=cluster, settings=settings, sample_bytes=1 << 18,
                              calibrate=0)
    calibrated = lzkit.dask.probe(paths, client=cluster, settings=settings,
                                  sample_bytes=1 << 18)
    for a, b in zip(local["candidates"], spread["candidates"]):
        assert a["ratio"] == b["ratio"] and a["compressed_bytes"] == b["compressed_bytes"]
    assert [c["ratio"] for c in calibrated["candidates"]] != \
        [c["ratio"] for c in spread["candidates"]]


def test_large_seekable_inputs_are_split_into_parts(cluster, tmp_path):
    """Files lzkit reads at any offset are cut into parts of whole chunks,
    recompressed by several tasks and joined: the bytes and the summary of
    one task, here and on the cluster; no part file is left."""
    data = b"".join(content(20 + i, 400_000) for i in range(8))  # 3.2 MB
    gz = tmp_path / "big.gz"
    gz.write_bytes(gzip.compress(data))
    seek_zst = str(tmp_path / "big.zst")
    lzkit.recompress_file(str(gz), seek_zst, to="zstd", seekable=128 << 10)
    frames_lz4 = tmp_path / "frames.lz4"  # independent frames that say their sizes
    frames_lz4.write_bytes(b"".join(lz4.frame.compress(data[i:i + 300_000], store_size=True)
                                    for i in range(0, len(data), 300_000)))
    one_frame = tmp_path / "one.zst"
    one_frame.write_bytes(zstd.compress(data))
    assert len(lzkit.dask._plan(seek_zst, 64 << 10, 512 << 10)) == 7
    assert len(lzkit.dask._plan(str(frames_lz4), 64 << 10, 512 << 10)) == 7
    assert lzkit.dask._plan(str(one_frame), 64 << 10, 512 << 10) is None  # one 3.2 MB frame
    assert lzkit.dask._plan(str(gz), 64 << 10, 512 << 10) is None  # gzip: from its start only
    for src, to in [(seek_zst, "lz4"), (str(frames_lz4), "zstd"), (seek_zst, "zstd")]:
        outs = {}
        for how in ("one task", "here", "cluster"):
            d = tmp_path / f"{how.replace(' ', '_')}-{to}-{os.path.basename(src)}"
            d.mkdir()
            kw = dict(to=to, level=3, seekable=64 << 10, out_dir=str(d))
            if how == "one task":
                (r,) = lzkit.dask.recompress([src], split=0, **kw)
            elif how == "here":
                (r,) = lzkit.dask.recompress([src], split=512 << 10, **kw)
            else:
                (r,) = lzkit.dask.recompress([src], split=512 << 10, client=cluster, **kw)
            assert sorted(os.listdir(d)) == [os.path.basename(r["output"])], os.listdir(d)
            with open(r["output"], "rb") as f:
                outs[how] = (f.read(), {k: v for k, v in r.items() if k != "output"})
        one = outs["one task"]
        assert outs["here"] == one and outs["cluster"] == one, (src, to)
        assert one[1]["content"] == len(data) and one[1]["verified"]
        if to == "lz4":
            with lz4.frame.open(io.BytesIO(one[0]), "rb") as f:
                assert f.read() == data
        else:
            # Several frames: decompress() decodes the first only
            # (python-zstandard's rule); a stream reader reads them all.
            assert zstd.ZstdDecompressor().stream_reader(one[0]).read() == data
