#!/usr/bin/env bash
# Run every cargo-fuzz target of fuzz/ for a bounded time each.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]    (default 60)
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Corpora grow in fuzz/corpus/TARGET; crashes land in fuzz/artifacts/TARGET
# (reproduce one with `cargo +nightly fuzz run TARGET ARTIFACT`).
# Exits 0 when no target crashed, 1 when one did, 2 when the build failed.
set -u

secs="${1:-60}"
case "$secs" in
    ''|*[!0-9]*) echo "usage: $0 [SECONDS_PER_TARGET]" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz" || exit 2

if ! cargo +nightly fuzz build; then
    echo "fuzz.sh: build failed" >&2
    exit 2
fi
targets="$(cargo +nightly fuzz list)"

failed=()
for t in $targets; do
    echo "=== fuzz.sh: $t for ${secs}s"
    start=$(date +%s)
    # -timeout: one input taking over 30 s is a hang; -rss_limit_mb: memory
    # blow-ups (e.g. allocating what a header claims) count as crashes.
    if cargo +nightly fuzz run "$t" -- \
        -max_total_time="$secs" \
        -timeout=30 \
        -rss_limit_mb=4096 \
        -dict="$root/fuzz/lz4.dict" \
        -print_final_stats=1; then
        echo "=== fuzz.sh: $t: no crash in $(( $(date +%s) - start ))s"
    else
        echo "=== fuzz.sh: $t: CRASH (see fuzz/artifacts/$t/)" >&2
        failed+=("$t")
    fi
done

if [ "${#failed[@]}" -ne 0 ]; then
    echo "fuzz.sh: crashes in: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz.sh: all targets ran ${secs}s without a crash"
