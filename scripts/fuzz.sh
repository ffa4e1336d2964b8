#!/usr/bin/env bash
# Run the cargo-fuzz targets of fuzz/ for a bounded time each.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60, all)
#   scripts/fuzz.sh 1800 block_decode                     (one target)
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Before fuzzing, writes seed corpora of large valid inputs (blocks and
# frames of tens to hundreds of KB, compressed by lzkit and C, fast and HC,
# linked and independent, with dictionaries; zstd frames from libzstd and
# hand-built ones; see fuzz/examples/seeds.rs)
# into fuzz/corpus/TARGET/seed-* (not committed: fuzz/corpus is ignored),
# then runs each target with a -max_len large enough for them, so that the
# decoders' fast loops and the parallel frame decoders are fuzzed.
# Set FUZZ_SEEDS=0 to skip the seeds, FUZZ_ARGS to add libFuzzer options.
#
# Corpora grow in fuzz/corpus/TARGET; findings (crashes, hangs, memory
# blow-ups) land in fuzz/artifacts/TARGET (reproduce one with
# `cargo +nightly fuzz run TARGET ARTIFACT`).
# Exits 0 when no target found anything, 1 when one did, 2 when the build
# or the seeds failed (or the arguments are wrong).
set -u

secs="${1:-60}"
case "$secs" in
    ''|*[!0-9]*) echo "usage: $0 [SECONDS_PER_TARGET] [TARGET...]" >&2; exit 2 ;;
esac
shift $(( $# > 0 ? 1 : 0 ))

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz" || exit 2

if ! cargo +nightly fuzz build; then
    echo "fuzz.sh: build failed" >&2
    exit 2
fi
all="$(cargo +nightly fuzz list)"
if [ "$#" -gt 0 ]; then
    for t in "$@"; do
        if ! grep -qx "$t" <<<"$all"; then
            echo "fuzz.sh: no target '$t' (targets: $(echo $all))" >&2
            exit 2
        fi
    done
    targets="$*"
else
    targets="$all"
fi

# Seeds: a normal (uninstrumented) build of the fuzz crate's example.
if [ "${FUZZ_SEEDS:-1}" != 0 ]; then
    # shellcheck disable=SC2086
    if ! cargo run --release --quiet --example seeds -- "$root/fuzz/corpus" $targets; then
        echo "fuzz.sh: writing the seeds failed" >&2
        exit 2
    fi
fi

# Longest input per target: whole large blocks (1 MiB and the 8 control
# bytes) and streams of several large frames; the structured targets
# generate their data and need only a small body.
max_len() {
    case "$1" in
        block_decode) echo $(( (1 << 20) + 8 )) ;;
        frame_decode) echo $(( 8 << 20 )) ;;
        frame_mutate) echo 65536 ;;
        roundtrip) echo 262144 ;;
        zstd_decode) echo 262144 ;;
        zstd_roundtrip) echo 262144 ;;
        zstd_mutate) echo 65536 ;;
        seekable_read) echo 524288 ;;
        seek_table) echo 262144 ;;
        *) echo 1048576 ;;
    esac
}

# libFuzzer dictionary: the zstd targets' tokens, or the LZ4 formats'.
dict_for() {
    case "$1" in
        zstd_*) echo "$root/fuzz/zstd.dict" ;;
        *) echo "$root/fuzz/lz4.dict" ;;
    esac
}

failed=()
for t in $targets; do
    echo "=== fuzz.sh: $t for ${secs}s"
    mkdir -p "$root/fuzz/corpus/$t"
    before=$(find "$root/fuzz/artifacts/$t" -type f 2>/dev/null | wc -l)
    start=$(date +%s)
    # -timeout: one input taking over 30 s is a hang; -rss_limit_mb: memory
    # blow-ups (e.g. allocating what a header claims) count as findings.
    # -detect_leaks=0: the parallel decoders' worker threads free their
    # buffers as they exit, which may be after the input that started them
    # has returned, so LeakSanitizer reports thread-pool memory as leaked
    # (a 30-minute frame_mutate run stopped on such a report in rayon's
    # worker deques); a leak is not a memory-safety defect in Rust, and
    # memory blow-ups are still caught by -rss_limit_mb.
    # shellcheck disable=SC2086
    cargo +nightly fuzz run "$t" "$root/fuzz/corpus/$t" -- \
        -max_total_time="$secs" \
        -max_len="$(max_len "$t")" \
        -timeout=30 \
        -rss_limit_mb=4096 \
        -detect_leaks=0 \
        -dict="$(dict_for "$t")" \
        -print_final_stats=1 \
        ${FUZZ_ARGS:-}
    rc=$?
    after=$(find "$root/fuzz/artifacts/$t" -type f 2>/dev/null | wc -l)
    if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]; then
        echo "=== fuzz.sh: $t: nothing found in $(( $(date +%s) - start ))s"
    else
        echo "=== fuzz.sh: $t: FINDING (exit $rc; see fuzz/artifacts/$t/)" >&2
        failed+=("$t")
    fi
done

if [ "${#failed[@]}" -ne 0 ]; then
    echo "fuzz.sh: findings in: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz.sh: $(echo $targets | wc -w) target(s) ran ${secs}s each with no finding"
