#!/usr/bin/env bash
# Cross-build lzkit for aarch64-unknown-linux-gnu and run the decoder tests
# under qemu-aarch64, so the NEON kernels are exercised on an x86-64 machine.
# Exit codes: 0 passed, 1 tests failed, 2 the toolchain could not be set up.
set -uo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu

if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user; } >/dev/null 2>&1 \
    || { echo "test-aarch64: cannot install the cross toolchain or qemu" >&2; exit 2; }
fi
rustup target list --installed 2>/dev/null | grep -qx "$target" \
  || rustup target add "$target" >/dev/null 2>&1 \
  || { echo "test-aarch64: cannot install the $target standard library" >&2; exit 2; }

# The library itself has no C code: it must cross-build with no C compiler
# for the target (CC pointed at a command that always fails proves it).
CC_aarch64_unknown_linux_gnu=false cargo build -p lzkit --target "$target" \
  || { echo "test-aarch64: the library needs a C cross compiler" >&2; exit 1; }

# The tests link the C reference (lz4-sys, a dev-dependency), which does.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
cargo test -p lzkit --target "$target" --lib --test variants --test block --test zstd_diff --test miri_zstd || exit 1
