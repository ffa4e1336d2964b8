"""lzkit for Dask, the distributed engine.

Importing this module registers lzkit, where the packages are installed:

* in Dask's network layer, as the compression ``"lzkit"`` (LZ4 blocks
  through lzkit): ``dask.config.set(lzkit.dask.config())`` before a cluster
  starts sets it, with this module preloaded on the scheduler, the nannies
  and the workers, so every process knows the name;
* in fsspec, as the ``"lz4"`` and ``"zstd"`` compressions:
  ``fsspec.open("x.lz4", compression="lz4")`` reads and writes through lzkit.

``recompress(paths, to="zstd", client=...)`` spreads files over a cluster's
workers (one file per task, each written under a temporary name and renamed
when complete, with the same bytes as ``lzkit recompress`` on one machine
at the same settings); without a client, the files are done here, one after
another. With ``seekable=CHUNK``, a large file that lzkit reads at any
offset (a seek table, or frames that say their sizes) is cut into parts of
``split`` bytes of content, recompressed by several tasks and joined under
one seek table: the same bytes again.
"""

import io
import os
import secrets
from functools import partial

from . import lz4 as _lz4
from . import zstd as _zstd
from ._lzkit import formats as _formats
from ._lzkit import join_parts as _join_parts
from ._lzkit import probe_files as _probe_files
from ._lzkit import recompress_file as _recompress_file
from ._lzkit import recompress_part as _recompress_part
from ._lzkit import recompressed_name as _recompressed_name
from ._lzkit import seekable_content as _seekable_content

__all__ = ["NAME", "register", "config", "recompress", "probe", "output_name"]

NAME = "lzkit"

#: The codecs lzkit writes and their suffixes (the library's format
#: layer): {"lz4": ".lz4", "zstd": ".zst"}.
_CODECS = _formats()["codecs"]


def _lz4_open(infile, mode="rb", **kwargs):
    return _lz4.frame.LZ4FrameFile(infile, mode=mode)


class _ZstdWriter(io.RawIOBase):
    """zstd output in frames of 4 MiB of content (libzstd)."""

    CHUNK = 4 << 20

    def __init__(self, fileobj, level=3):
        self._f = fileobj
        self._level = level
        self._buf = bytearray()

    def writable(self):
        return True

    def write(self, data):
        with memoryview(data) as view:
            self._buf += view
            n = view.nbytes
        while len(self._buf) >= self.CHUNK:
            self._f.write(_zstd.compress(bytes(self._buf[:self.CHUNK]), level=self._level, checksum=True))
            del self._buf[:self.CHUNK]
        return n

    def close(self):
        if not self.closed:
            if self._buf:
                self._f.write(_zstd.compress(bytes(self._buf), level=self._level, checksum=True))
                self._buf.clear()
            self._f.flush()
        super().close()


def _zstd_open(infile, mode="rb", **kwargs):
    if "r" in mode:
        return _zstd.ZstdDecompressor().stream_reader(infile)
    return io.BufferedWriter(_ZstdWriter(infile))


def register():
    """Register lzkit in Dask's network layer and in fsspec (where they are
    installed); returns the names of what was registered."""
    done = []
    try:
        from distributed.protocol import compression as dc
    except ImportError:
        pass
    else:
        dc.compressions[NAME] = dc.Compression(
            NAME,
            _lz4.block.compress,
            # A writable result, as Dask's own lz4 entry returns.
            partial(_lz4.block.decompress, return_bytearray=True),
        )
        done.append("distributed")
    try:
        import fsspec.compression as fc
    except ImportError:
        pass
    else:
        for name, opener in (("lz4", _lz4_open), ("zstd", _zstd_open)):
            fc.register_compression(name, opener, _CODECS[name][1:], force=True)
        done.append("fsspec")
    return done


def config():
    """Dask settings that make ``"lzkit"`` the network compression, with
    this module preloaded everywhere (``dask.config.set(config())`` before
    the cluster starts)."""
    return {
        "distributed.comm.compression": NAME,
        "distributed.scheduler.preload": [__name__],
        "distributed.worker.preload": [__name__],
        "distributed.nanny.preload": [__name__],
    }


def output_name(path, to="zstd", out_dir=None):
    """``path`` without its compressed suffix, plus ``.zst`` or ``.lz4``
    (``x.tgz``: ``x.tar.zst``), as ``lzkit recompress`` names it (the
    library's suffixes), in ``out_dir`` if given."""
    out = os.fspath(_recompressed_name(path, to))
    if out_dir is not None:
        out = os.path.join(out_dir, os.path.basename(out))
    return out


def _output(path, to, out_dir, overwrite):
    dst = output_name(path, to, out_dir)
    if os.path.abspath(dst) == os.path.abspath(path):
        raise ValueError(f"{path}: the output name is the input's; give out_dir")
    # Before any task runs (the native side checks again when it writes).
    if not overwrite and os.path.lexists(dst):
        raise FileExistsError(f"{dst}: already exists; not overwritten (overwrite=True replaces it)")
    return dst


def _recompress_one(path, to, level, out_dir, verify, seekable, threads, overwrite):
    dst = _output(path, to, out_dir, overwrite)
    summary = _recompress_file(path, dst, to, level, threads, verify, seekable,
                               overwrite=overwrite)
    summary.update(path=path, output=dst)
    return summary


def _part_name(dst, token, k):
    """Part ``k``'s file: a name no one can guess (``token`` is random per
    recompression), which the native side writes under a temporary name
    created exclusively and renames when complete."""
    return f"{dst}.lzkit-part-{token}-{k}"


def _remove_parts(dst, token, n):
    """Remove the part files of one split recompression that are left (a
    join removes its parts; a failed part task or join may leave some)."""
    for k in range(n):
        try:
            os.remove(_part_name(dst, token, k))
        except FileNotFoundError:
            pass


def _part(path, dst, token, k, to, level, chunk, start, end):
    name = _part_name(dst, token, k)
    entries, xxh = _recompress_part(path, name, to, level, chunk, start, end)
    return name, entries, xxh


def _join(path, dst, to, overwrite, *parts):
    summary = _join_parts(path, dst, to, list(parts), overwrite)
    summary.update(path=path, output=dst)
    return summary


def _plan(path, seekable, split):
    """The content ranges of ``path``'s parts, or None for one task."""
    if not seekable or not split:
        return None
    part = max(seekable, split // seekable * seekable)
    content = _seekable_content(path, part)
    if content is None or content <= part:
        return None
    return [(a, min(a + part, content)) for a in range(0, content, part)]


def recompress(paths, to="zstd", level=None, client=None, out_dir=None,
               verify=True, seekable=0, threads=1, split=256 << 20, overwrite=True):
    """Recompress ``paths`` (LZ4, zstd, gzip, zlib, xz, LZMA) to ``to``
    (``"lz4"`` or ``"zstd"``) at ``level``, one task per file on
    ``client``'s workers (or here, one after another, without a client).
    ``threads``: threads per file (1 suits one task per worker thread).

    With ``seekable=CHUNK`` (a seekable output of CHUNK-byte frames), a file
    of more than ``split`` bytes of content that lzkit reads at any offset
    (a seek table, or frames that say their sizes, none over ``split``) is
    cut into parts of ``split`` bytes (a whole number of chunks): a task per
    part, then one that joins them under one seek table, decodes the result
    on every core of its worker and checks each part's content. The bytes
    are those of one task; ``split=0`` turns this off.

    ``overwrite``: an existing output is replaced (the default, so that a
    rerun writes over the outputs of an earlier one); with False it raises
    ``FileExistsError`` before any task starts, as ``recompress_file``
    does by default.

    Returns one summary per file, in order: ``path``, ``output``,
    ``source``, ``read``, ``content``, ``content_xxh64``, ``written``,
    ``verified``. The first failure raises.
    """
    job = partial(_recompress_one, to=to, level=level, out_dir=out_dir,
                  verify=verify, seekable=seekable, threads=threads, overwrite=overwrite)
    paths = [os.fspath(p) for p in paths]
    for path in paths:
        _output(path, to, out_dir, overwrite)
    plans = [_plan(p, seekable, split) for p in paths]
    if client is None:
        out = []
        for path, plan in zip(paths, plans):
            if plan is None:
                out.append(job(path))
                continue
            dst = _output(path, to, out_dir, overwrite)
            token = secrets.token_hex(8)
            try:
                parts = [_part(path, dst, token, k, to, level, seekable, a, b)
                         for k, (a, b) in enumerate(plan)]
                out.append(_join(path, dst, to, overwrite, *parts))
            finally:
                _remove_parts(dst, token, len(plan))
        return out
    futures = []
    split_files = []
    for path, plan in zip(paths, plans):
        if plan is None:
            futures.append(client.submit(job, path, pure=False))
            continue
        dst = _output(path, to, out_dir, overwrite)
        token = secrets.token_hex(8)
        parts = [client.submit(_part, path, dst, token, k, to, level, seekable, a, b, pure=False)
                 for k, (a, b) in enumerate(plan)]
        futures.append(client.submit(_join, path, dst, to, overwrite, *parts, pure=False))
        split_files.append((dst, token, len(plan), parts))
    try:
        return client.gather(futures)
    except BaseException:
        # A task failed: once every task has ended (a part still being
        # written, a join still reading its parts), remove the parts no
        # join removed (a join removes its own, failed or not).
        from distributed import wait
        wait(futures + [f for *_, parts in split_files for f in parts])
        for dst, token, n, _ in split_files:
            _remove_parts(dst, token, n)
        raise


def _front(cands, speed):
    """Pareto flags of ratio against ``speed``: no other candidate better in
    both (nor better in one and equal in the other)."""
    flags = []
    for c in cands:
        dominated = any(
            (o["ratio"] >= c["ratio"] and o[speed] >= c[speed])
            and (o["ratio"] > c["ratio"] or o[speed] > c[speed])
            for o in cands
        )
        flags.append(not dominated)
    return flags


def probe(paths, client=None, settings=None, sample_bytes=32 << 20,
          block_size=64 << 10, time_limit=None, calibrate=1.5):
    """``lzkit.probe`` with its settings spread over ``client``'s workers:
    every worker builds the same sample (it is deterministic; the files must
    be readable by every worker) and measures one setting on one thread.
    Ratios are those of a probe on one machine (with ``time_limit=None``,
    the default here, every setting compresses the whole sample); speeds
    are each worker's. Without a client, ``lzkit.probe`` on one thread.

    Every worker also runs its own calibration pass (``calibrate`` seconds,
    0: off; see ``lzkit.probe``). The ratios agree between workers, and
    with ``lzkit.probe``, when that pass ends by itself (the ratios known
    to within 1%, or the end of the input), not when its time runs out
    first: a slower or busier worker then compresses fewer blocks. For
    ratios equal whatever the timing, give ``calibrate=0`` (the sample's
    ratios, with wider intervals) or time enough for the pass to end.
    """
    from . import DEFAULT_SETTINGS

    paths = [os.fspath(p) for p in paths]
    settings = list(settings or DEFAULT_SETTINGS)
    one = partial(_probe_files, paths, sample_bytes=sample_bytes, block_size=block_size,
                  threads=1, time_limit=time_limit, calibrate=calibrate)
    if client is None:
        return one(settings)
    reports = client.gather(client.map(one, [[s] for s in settings], pure=False))
    report = dict(reports[0])
    cands = [r["candidates"][0] for r in reports]
    for c, p, q in zip(cands, _front(cands, "decompress_mbps"), _front(cands, "compress_mbps")):
        c["pareto"], c["pareto_compress"] = p, q
    report["candidates"] = cands
    return report


register()
