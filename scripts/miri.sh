#!/usr/bin/env bash
# Run a decoder test sized for Miri on the portable paths (undefined behaviour,
# out-of-bounds and aliasing checks). Under Miri no SIMD feature is detected
# at run time, so every decode goes through the portable kernels.
# Exit codes: 0 passed, 1 Miri found a problem or a test failed, 2 Miri could
# not be installed here.
set -uo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  { rustup toolchain install nightly --profile minimal \
      && rustup component add miri rust-src --toolchain nightly; } >/dev/null 2>&1 \
    || { echo "miri: cannot install the nightly toolchain with miri" >&2; exit 2; }
fi
cargo +nightly miri setup >/dev/null 2>&1 || { echo "miri: setup failed" >&2; exit 2; }
# The decode loop and its copy kernels (portable variants) on small inputs:
# matches at every offset up to 70, exact and roomy buffers, truncated and
# corrupt blocks. The ordinary suites' inputs would take hours under Miri.
cargo +nightly miri test -p lzkit --test miri_portable || exit 1
# The zstd decoder's portable paths: small frames through every portable
# variant, streaming, truncations and corruptions.
cargo +nightly miri test -p lzkit --test miri_zstd || exit 1
