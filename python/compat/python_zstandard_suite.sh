#!/usr/bin/env bash
# python-zstandard's own tests against lzkit.zstd: the `tests` of
# python-zstandard's source package (the version installed), unmodified,
# run twice in the same environment: against python-zstandard (the
# baseline) and against lzkit.zstd, through a shim (a conftest.py above
# the tests that makes `import zstandard` resolve to lzkit.zstd). Fails if
# lzkit fails a test that python-zstandard passes and that
# `known-failures-zstandard.txt` does not list with its reason, or if a
# listed test passes, or if lzkit passes under 90% of the tests of issue
# 34's item 3 APIs that python-zstandard passes (zstandard_api_share.py
# prints the share per API).
#
#   python/compat/python_zstandard_suite.sh [PYTHON]      (default: python3)
#
# Needs pip access to PyPI (the source package), and pytest, zstandard
# and hypothesis installed with lzkit in PYTHON's environment. The
# hypothesis-based fuzzing tests run only with ZSTD_SLOW_TESTS set (as
# upstream: they are skipped otherwise, for both).
# JUNIT_DIR=dir keeps the two JUnit reports there. ZSTANDARD_SDIST=file
# uses that source package (zstandard-VERSION.tar.gz, of the version
# installed) instead of downloading it.
set -euo pipefail
py="${1:-python3}"
here="$(cd "$(dirname "$0")" && pwd)"
version="$("$py" -c 'import importlib.metadata as m; print(m.version("zstandard"))')"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "${ZSTANDARD_SDIST:-}" ]; then
    sdist="$ZSTANDARD_SDIST"
else
    "$py" -m pip download -q --no-binary :all: --no-deps "zstandard==$version" -d "$work"
    sdist="$work/zstandard-$version.tar.gz"
fi
tar xzf "$sdist" -C "$work"
mkdir "$work/run"
# The tests are a package (`from .common import ...`): copied whole.
cp -r "$work/zstandard-$version/tests" "$work/run/tests"
cp "$here/shim_conftest_zstandard.py" "$work/run/conftest.py"
cd "$work/run"
for who in python-zstandard lzkit; do
    echo "== python-zstandard $version's tests against $who"
    # A failing test is reported by the comparison below, not here.
    ZSTANDARD_UNDER_TEST="$who" "$py" -m pytest -q -p no:cacheprovider -W ignore --continue-on-collection-errors \
        --junitxml="$work/$who.xml" tests | tail -n 1 || true
done
if [ -n "${JUNIT_DIR:-}" ]; then cp "$work/python-zstandard.xml" "$work/lzkit.xml" "$JUNIT_DIR/"; fi
# The share per API of issue 34's item 3 (its floor: 90% of the tests of
# the required APIs that python-zstandard passes).
floor=0
"$py" "$here/zstandard_api_share.py" "$work/python-zstandard.xml" "$work/lzkit.xml" --floor 90 || floor=1
"$py" "$here/compare_junit.py" "$work/python-zstandard.xml" "$work/lzkit.xml" \
    "$here/known-failures-zstandard.txt" python-zstandard
exit "$floor"
