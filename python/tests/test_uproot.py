"""lzkit.uproot: uproot writes ROOT files with LZ4 and ZSTD baskets from
column-like arrays and reads them back through lzkit, equal; files written
through lzkit read with uproot's own codecs (cramjam) and the reverse.
Skipped where uproot is not installed.
"""

import pytest

uproot = pytest.importorskip("uproot")
np = pytest.importorskip("numpy")

import lzkit.uproot  # noqa: E402


def columns(n=200_000, seed=3):
    rng = np.random.default_rng(seed)
    return {
        "run": np.repeat(np.arange(n // 1000, dtype=np.int32), 1000)[:n],
        "pt": np.round(rng.exponential(30.0, n), 2).astype(np.float32),
        "nhits": rng.poisson(12, n).astype(np.int16),
        "flag": (rng.random(n) < 0.1).astype(np.bool_),
    }


def write(path, data, compression):
    with uproot.recreate(path, compression=compression) as f:
        f["events"] = data


def read(path):
    with uproot.open(path) as f:
        return f["events"].arrays(library="np")


@pytest.fixture
def counted(monkeypatch):
    """lzkit installed, with its calls counted."""
    import lzkit._lzkit as native

    calls = {name: 0 for name in ("block_compress", "zstd_compress", "root_decompress_into")}
    for name in calls:
        real = getattr(native, name)

        def wrapper(*args, _real=real, _name=name):
            calls[_name] += 1
            return _real(*args)

        # The names lzkit.uproot's functions call.
        monkeypatch.setattr(lzkit.uproot, "_" + name, wrapper)
    lzkit.uproot.install()
    yield calls
    lzkit.uproot.uninstall()


@pytest.mark.parametrize("compression,key", [
    (lambda: uproot.LZ4(1), "block_compress"),
    (lambda: uproot.LZ4(9), "block_compress"),
    (lambda: uproot.ZSTD(5), "zstd_compress"),
])
def test_round_trip_through_lzkit(tmp_path, counted, compression, key):
    data = columns()
    path = str(tmp_path / "f.root")
    write(path, data, compression())
    back = read(path)
    assert counted[key] > 0, "lzkit's encoder was not used"
    assert counted["root_decompress_into"] > 0, "lzkit's decoder was not used"
    for name, arr in data.items():
        np.testing.assert_array_equal(back[name], arr)


def write_tree(path, data, compression, per_basket):
    """A TTree (not an RNTuple): one basket per branch per `extend`."""
    n = len(next(iter(data.values())))
    with uproot.recreate(path, compression=compression) as f:
        tree = f.mktree("tree", {k: v.dtype for k, v in data.items()})
        for i in range(0, n, per_basket):
            tree.extend({k: v[i:i + per_basket] for k, v in data.items()})


@pytest.mark.parametrize("compression", [lambda: uproot.LZ4(1), lambda: uproot.ZSTD(3)])
def test_ttree_baskets_through_lzkit(tmp_path, counted, compression):
    data = columns()
    path = str(tmp_path / "t.root")
    write_tree(path, data, compression(), 30_000)
    with uproot.open(path) as f:
        back = f["tree"].arrays(library="np")
    assert counted["root_decompress_into"] >= 7 * len(data)
    for name, arr in data.items():
        np.testing.assert_array_equal(back[name], arr)
    # uproot's record of each basket's blocks, as uproot itself fills it.
    with uproot.open(path) as f:
        ours = [f["tree"][k].basket(i).block_compression_info for k in data for i in range(7)]
    lzkit.uproot.uninstall()
    with uproot.open(path) as f:
        theirs = [f["tree"][k].basket(i).block_compression_info for k in data for i in range(7)]
    assert ours == theirs and all(ours)


def read_through_lzkit(path, threads=None):
    lzkit.uproot.install(threads=threads)
    try:
        return read(path)
    finally:
        lzkit.uproot.uninstall()


@pytest.mark.parametrize("threads", [1, 2, None])
def test_records_of_several_blocks(tmp_path, threads):
    """A record over 16 MiB holds several ROOT blocks: decoded in place,
    on one or more threads, equal to uproot's own reading."""
    n = 5_000_000
    rng = np.random.default_rng(5)
    data = {"a": np.arange(n, dtype=np.int64) // 7, "b": rng.normal(size=n).astype(np.float32)}
    for comp in (uproot.LZ4(1), uproot.ZSTD(1)):
        path = str(tmp_path / f"big{type(comp).__name__}.root")
        write(path, data, comp)
        back = read_through_lzkit(path, threads)
        for name, arr in data.items():
            np.testing.assert_array_equal(back[name], arr)


def test_zlib_and_lzma_still_read_with_lzkit_installed(tmp_path):
    data = columns(20_000)
    for comp in (uproot.ZLIB(4), uproot.LZMA(2)):
        path = str(tmp_path / f"{type(comp).__name__}.root")
        write(path, data, comp)
        back = read_through_lzkit(path)
        for name, arr in data.items():
            np.testing.assert_array_equal(back[name], arr)


def test_hooks_set_before_install_are_still_called(tmp_path):
    import uproot.compression as uc

    data = columns(20_000)
    path = str(tmp_path / "h.root")
    write(path, data, uproot.LZ4(1))
    seen = []
    uc.decompress.hook_before_block = lambda **kw: seen.append(kw["num_blocks"])
    try:
        back = read_through_lzkit(path)
        assert seen, "a hook set before install() was skipped"
        for name, arr in data.items():
            np.testing.assert_array_equal(back[name], arr)
    finally:
        uc.decompress.hook_before_block = uc.hook_before_block
    # Hooks set while installed stay set after uninstall.
    lzkit.uproot.install()
    uc.decompress.hook_after_block = marker = lambda **kw: None
    lzkit.uproot.uninstall()
    try:
        assert uc.decompress.hook_after_block is marker
    finally:
        uc.decompress.hook_after_block = uc.hook_after_block


def test_a_damaged_lz4_basket_raises(tmp_path):
    data = {"x": np.arange(100_000, dtype=np.int64)}
    path = str(tmp_path / "d.root")
    write_tree(path, data, uproot.LZ4(1), 100_000)
    raw = bytearray(open(path, "rb").read())
    at = raw.find(b"L4\x01")
    assert at > 0
    raw[at + 9 + 8 + 20] ^= 0xFF  # inside the compressed bytes: the XXH64 no longer matches
    open(path, "wb").write(bytes(raw))
    lzkit.uproot.install()
    try:
        with pytest.raises(ValueError, match="checksum"):
            with uproot.open(path) as f:
                f["tree"]["x"].array(library="np")
    finally:
        lzkit.uproot.uninstall()


def lz4_record(payload):
    """One ROOT LZ4 block: header, XXH64 of the compressed bytes, block."""
    import lzkit.lz4.block as blk
    import xxhash

    body = blk.compress(payload, store_size=False)
    size = len(body) + 8
    head = b"L4\x01" + size.to_bytes(3, "little") + len(payload).to_bytes(3, "little")
    return head + xxhash.xxh64(body).intdigest().to_bytes(8, "big") + body


def test_root_decompress_into_refuses_bad_records():
    from lzkit._lzkit import root_decompress_into

    payload = bytes(range(256)) * 40
    rec = lz4_record(payload)
    out = np.empty(len(payload), dtype=np.uint8)
    assert root_decompress_into(rec, out) is True
    assert out.tobytes() == payload
    # A destination of any dtype is its bytes.
    for dtype in (np.uint32, np.float64):
        wide = np.empty(len(payload) // np.dtype(dtype).itemsize, dtype=dtype)
        assert root_decompress_into(rec, wide) is True
        assert wide.tobytes() == payload
    with pytest.raises(ValueError, match="C-contiguous"):
        root_decompress_into(rec, np.empty(len(payload) // 2, dtype=np.uint32)[::2])
    two = np.empty(2 * len(payload), dtype=np.uint8)
    assert root_decompress_into(rec + rec, two, 2) is True
    assert two.tobytes() == payload * 2
    # A codec lzkit leaves to uproot, or a record that does not add up:
    # nothing written, False (uproot's own code reads it).
    assert root_decompress_into(b"ZL\x08" + rec[3:], out) is False
    for src, n in [(rec[:5], len(payload)), (rec[:-1], len(payload)),
                   (rec, len(payload) + 1), (rec, len(payload) - 1),
                   (rec[:3] + bytes([4, 0, 0]) + rec[6:], len(payload))]:
        assert root_decompress_into(src, np.empty(n, dtype=np.uint8)) is False
    # As uproot: a first block that fills the record ends it (bytes after
    # it are ignored).
    assert root_decompress_into(rec + b"\0" * 5, out) is True
    assert out.tobytes() == payload
    # Damaged data: an error.
    with pytest.raises(ValueError, match="checksum"):
        root_decompress_into(rec[:9] + bytes(8) + rec[17:], np.empty(len(payload), dtype=np.uint8))
    corrupt = bytearray(rec)
    corrupt[-1] ^= 0xFF
    with pytest.raises(ValueError, match="checksum"):
        root_decompress_into(bytes(corrupt), np.empty(len(payload), dtype=np.uint8))
    with pytest.raises(ValueError, match="writable"):
        root_decompress_into(rec, bytes(len(payload)))
    shared = bytearray(rec + bytes(len(payload)))
    view = memoryview(shared)
    with pytest.raises(ValueError, match="shares memory"):
        root_decompress_into(view[: len(rec)], view[len(rec) - 1 :][: len(payload)])


@pytest.mark.parametrize("compression", [lambda: uproot.LZ4(4), lambda: uproot.ZSTD(3)])
def test_files_interoperate_with_uproots_own_codecs(tmp_path, compression):
    data = columns(50_000)
    ours, theirs = str(tmp_path / "ours.root"), str(tmp_path / "theirs.root")
    lzkit.uproot.install()
    try:
        assert lzkit.uproot.installed()
        write(ours, data, compression())
    finally:
        lzkit.uproot.uninstall()
    assert not lzkit.uproot.installed()
    write(theirs, data, compression())
    back = read(ours)  # uproot's codecs on lzkit's baskets
    lzkit.uproot.install()
    try:
        back2 = read(theirs)  # lzkit on uproot's baskets
    finally:
        lzkit.uproot.uninstall()
    for name, arr in data.items():
        np.testing.assert_array_equal(back[name], arr)
        np.testing.assert_array_equal(back2[name], arr)
