"""lzkit.recompress_file and the split recompression of lzkit.dask (run
here, without a cluster): outputs are written under random names created
exclusively, never through a link planted at a name an attacker can guess,
and a file is never recompressed over itself.
"""

import gzip
import os

import pytest

import lzkit
import lzkit.dask
import lzkit.zstd as zstd

DATA = b"".join(b"event %d run %d\n" % (i, i % 97) for i in range(40_000))
PRECIOUS = b"the link's target: must survive unchanged"


def plant_links(tmp_path, names):
    """A symbolic link at each of `names`, all to one victim file."""
    victim = tmp_path / "victim"
    victim.write_bytes(PRECIOUS)
    for name in names:
        os.symlink(victim, name)
    return victim


def test_recompress_file_never_writes_through_a_planted_link(tmp_path):
    src = tmp_path / "in.gz"
    src.write_bytes(gzip.compress(DATA))
    dst = tmp_path / "out.zst"
    # Every name the old scheme (DST.lzkit-tmp-<pid>) would use, for this
    # process and its neighbours.
    pid = os.getpid()
    names = [f"{dst}.lzkit-tmp-{p}" for p in range(max(1, pid - 50), pid + 50)]
    victim = plant_links(tmp_path, names)
    summary = lzkit.recompress_file(str(src), str(dst), to="zstd")
    assert victim.read_bytes() == PRECIOUS
    assert not dst.is_symlink()
    assert zstd.decompress(dst.read_bytes(), max_output_size=len(DATA)) == DATA
    assert summary["content"] == len(DATA) and summary["verified"]
    # The links are left as they were, and no temporary file is left.
    assert all(os.path.islink(n) for n in names)
    left = set(os.listdir(tmp_path)) - {os.path.basename(n) for n in names}
    assert left == {"in.gz", "out.zst", "victim"}, left


def test_recompress_file_refuses_its_own_source(tmp_path):
    src = tmp_path / "in.gz"
    packed = gzip.compress(DATA)
    src.write_bytes(packed)
    with pytest.raises(Exception, match="same file"):
        lzkit.recompress_file(str(src), str(src), to="zstd")
    assert src.read_bytes() == packed
    # Also through a symbolic link and a hard link to it.
    link = tmp_path / "link.zst"
    os.symlink(src, link)
    hard = tmp_path / "hard.zst"
    os.link(src, hard)
    for dst in (link, hard):
        with pytest.raises(Exception, match="same file"):
            lzkit.recompress_file(str(src), str(dst), to="zstd")
        assert src.read_bytes() == packed
    assert link.is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["hard.zst", "in.gz", "link.zst"]


def test_a_failed_recompression_leaves_nothing(tmp_path):
    src = tmp_path / "in.gz"
    src.write_bytes(gzip.compress(DATA)[:-20])  # truncated
    dst = tmp_path / "out.zst"
    with pytest.raises(RuntimeError):
        lzkit.recompress_file(str(src), str(dst), to="zstd")
    assert sorted(os.listdir(tmp_path)) == ["in.gz"]


def test_split_recompression_never_writes_through_a_planted_link(tmp_path):
    seek = tmp_path / "big.zst"
    lzkit.recompress_file(str(gzip_file(tmp_path)), str(seek), to="zstd", seekable=64 << 10)
    out = tmp_path / "out"
    out.mkdir()
    dst = lzkit.dask.output_name(str(seek), "lz4", str(out))
    # Every part name of the old scheme (DST.lzkit-part-<k>).
    names = [f"{dst}.lzkit-part-{k}" for k in range(64)]
    victim = plant_links(tmp_path, names)
    (r,) = lzkit.dask.recompress([str(seek)], to="lz4", seekable=64 << 10, split=256 << 10,
                                 out_dir=str(out))
    assert victim.read_bytes() == PRECIOUS
    assert r["content"] == len(DATA) and r["verified"]
    assert sorted(set(os.listdir(out)) - {os.path.basename(n) for n in names}) == [
        os.path.basename(dst)]
    with lzkit.lz4.frame.open(dst, "rb") as f:
        assert f.read() == DATA


def gzip_file(tmp_path):
    p = tmp_path / "src.gz"
    p.write_bytes(gzip.compress(DATA))
    return p


def test_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        lzkit.recompress_file(str(tmp_path / "missing.gz"), str(tmp_path / "out.zst"))
    with pytest.raises(FileNotFoundError):
        lzkit.probe([str(tmp_path / "missing")])
    assert not (tmp_path / "out.zst").exists()


def test_recompress_file_refuses_an_existing_destination(tmp_path):
    src = gzip_file(tmp_path)
    dst = tmp_path / "out.zst"
    dst.write_bytes(PRECIOUS)
    with pytest.raises(FileExistsError, match=str(dst)):
        lzkit.recompress_file(str(src), str(dst), to="zstd")
    assert dst.read_bytes() == PRECIOUS
    assert sorted(os.listdir(tmp_path)) == ["out.zst", "src.gz"]
    # overwrite=True replaces it, as the command's -f.
    summary = lzkit.recompress_file(str(src), str(dst), to="zstd", overwrite=True)
    assert summary["content"] == len(DATA)
    assert zstd.decompress(dst.read_bytes(), max_output_size=len(DATA)) == DATA
    assert sorted(os.listdir(tmp_path)) == ["out.zst", "src.gz"]


def test_recompress_file_never_replaces_or_follows_a_link_at_the_destination(tmp_path):
    src = gzip_file(tmp_path)
    dst = tmp_path / "out.lz4"
    victim = plant_links(tmp_path, [dst])
    with pytest.raises(FileExistsError, match=str(dst)):
        lzkit.recompress_file(str(src), str(dst), to="lz4")
    assert dst.is_symlink() and victim.read_bytes() == PRECIOUS
    # A link to nothing is something at the name too.
    dangling = tmp_path / "dangling.lz4"
    os.symlink(tmp_path / "nowhere", dangling)
    with pytest.raises(FileExistsError):
        lzkit.recompress_file(str(src), str(dangling), to="lz4")
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()
    # With overwrite=True the link itself is replaced, its target untouched.
    lzkit.recompress_file(str(src), str(dst), to="lz4", overwrite=True)
    assert not dst.is_symlink() and victim.read_bytes() == PRECIOUS
    with lzkit.lz4.frame.open(dst, "rb") as f:
        assert f.read() == DATA
    assert sorted(os.listdir(tmp_path)) == ["dangling.lz4", "out.lz4", "src.gz", "victim"]


def test_dask_recompress_writes_over_its_own_outputs_unless_told_not_to(tmp_path):
    src = gzip_file(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (first,) = lzkit.dask.recompress([str(src)], to="zstd", out_dir=str(out))
    # A rerun replaces the output (one task, and a split file's join).
    (again,) = lzkit.dask.recompress([str(src)], to="zstd", out_dir=str(out))
    assert again["output"] == first["output"] and again["content"] == len(DATA)
    seek = tmp_path / "big.zst"
    lzkit.recompress_file(str(src), str(seek), to="zstd", seekable=64 << 10)
    for _ in range(2):
        (r,) = lzkit.dask.recompress([str(seek)], to="lz4", seekable=64 << 10,
                                     split=256 << 10, out_dir=str(out))
        assert r["content"] == len(DATA)
    before = {n: (out / n).read_bytes() for n in os.listdir(out)}
    for path, kw in ((src, {}), (seek, dict(seekable=64 << 10, split=256 << 10))):
        to = "zstd" if path == src else "lz4"
        with pytest.raises(FileExistsError):
            lzkit.dask.recompress([str(path)], to=to, out_dir=str(out), overwrite=False, **kw)
    assert {n: (out / n).read_bytes() for n in os.listdir(out)} == before
    # The join refuses too when a file appears at its name after the parts
    # were made (the check before the tasks saw nothing there).
    dst = out / "late.lz4"
    token = "0123456789abcdef"
    part = lzkit.dask._part(str(seek), str(dst), token, 0, "lz4", None, 64 << 10, 0, len(DATA))
    dst.write_bytes(PRECIOUS)
    with pytest.raises(FileExistsError):
        lzkit.dask._join(str(seek), str(dst), "lz4", False, part)
    assert dst.read_bytes() == PRECIOUS
    # The failed join removed its part all the same.
    assert not os.path.exists(part[0])
