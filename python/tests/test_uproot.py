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

    calls = {"block_decompress": 0, "zstd_decompress": 0}
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
    (lambda: uproot.LZ4(1), "block_decompress"),
    (lambda: uproot.LZ4(9), "block_decompress"),
    (lambda: uproot.ZSTD(5), "zstd_decompress"),
])
def test_round_trip_through_lzkit(tmp_path, counted, compression, key):
    data = columns()
    path = str(tmp_path / "f.root")
    write(path, data, compression())
    back = read(path)
    assert counted[key] > 0, "lzkit's decoder was not used"
    for name, arr in data.items():
        np.testing.assert_array_equal(back[name], arr)


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
