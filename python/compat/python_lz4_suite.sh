#!/usr/bin/env bash
# python-lz4's own tests against lzkit.lz4: the `tests/block` and
# `tests/frame` of python-lz4's source package (the version installed),
# unmodified, run twice in the same environment: against python-lz4 (the
# baseline) and against lzkit.lz4, through a shim (a conftest.py above
# the tests that makes `import lz4`, `lz4.block` and `lz4.frame` resolve to
# lzkit's modules). Fails if lzkit fails a test that python-lz4 passes and
# that `known-failures.txt` does not list with its reason.
#
#   python/compat/python_lz4_suite.sh [PYTHON]      (default: python3)
#
# Needs pip access to PyPI (the source package), and pytest, lz4, numpy and
# psutil installed with lzkit in PYTHON's environment. `tests/stream` is
# not run: lzkit provides no `lz4.stream` (experimental in python-lz4).
set -euo pipefail
py="${1:-python3}"
here="$(cd "$(dirname "$0")" && pwd)"
version="$("$py" -c 'import importlib.metadata as m; print(m.version("lz4"))')"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$py" -m pip download -q --no-binary :all: --no-deps "lz4==$version" -d "$work"
tar xzf "$work/lz4-$version.tar.gz" -C "$work"
mkdir "$work/run"
cp -r "$work/lz4-$version/tests/block" "$work/lz4-$version/tests/frame" "$work/run/"
cp "$here/shim_conftest.py" "$work/run/conftest.py"
cd "$work/run"
for who in python-lz4 lzkit; do
    echo "== python-lz4 $version's tests/block and tests/frame against $who"
    # A failing test is reported by the comparison below, not here.
    LZ4_UNDER_TEST="$who" "$py" -m pytest -q -p no:cacheprovider -W ignore \
        --junitxml="$work/$who.xml" block frame | tail -n 1 || true
done
"$py" "$here/compare_junit.py" "$work/python-lz4.xml" "$work/lzkit.xml" "$here/known-failures.txt"
