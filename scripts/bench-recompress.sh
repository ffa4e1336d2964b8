#!/usr/bin/env bash
# Recompression benchmark: `lzkit recompress` on 1 and 2 threads against its
# slowest stage alone and against the obvious pipelines of the reference
# commands. Every output is decoded and compared with the input.
#
#   scripts/bench-recompress.sh [DIR|FILE] [SIZE_MB] [RUNS]
#
# DIR: files concatenated (in name order, repeated) into SIZE_MB of input
# (default 128; the development corpus from ../shared/corpus/make_corpus.sh
# is a good DIR); without one, lzkit's built-in generator is not a file, so
# the input is this repository's sources and target files repeated. Prints,
# per case, the median wall time of RUNS runs (default 3), the peak memory,
# and the ratios the issue asks for.
set -euo pipefail
cd "$(dirname "$0")/.."

src=${1:-}
size_mb=${2:-128}
runs=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release -q -p lzkit-cli
lzkit=$(pwd)/target/release/lzkit
[ -n "${CARGO_TARGET_DIR:-}" ] && lzkit=$CARGO_TARGET_DIR/release/lzkit

# The input: SIZE_MB bytes of the files in SRC, repeated as needed.
files=()
if [ -z "$src" ]; then
  mapfile -t files < <(git ls-files | sort)
elif [ -d "$src" ]; then
  mapfile -t files < <(find "$src" -maxdepth 1 -type f | sort)
else
  files=("$src")
fi
bytes=$((size_mb * 1000 * 1000))
total=$(cat "${files[@]}" | wc -c)
[ "$total" -gt 0 ] || { echo "no input bytes in ${src:-the repository}" >&2; exit 1; }
for _ in $(seq $((bytes / total + 1))); do cat "${files[@]}"; done | head -c "$bytes" >"$work/in" || true
"$lzkit" -q --zstd -3 -T2 -c "$work/in" >"$work/in.zst"
"$lzkit" -q -1 -c "$work/in" >"$work/in.lz4"
echo "input: $(stat -c %s "$work/in") bytes; in.zst (zstd -3) $(stat -c %s "$work/in.zst"), in.lz4 (lz4 -1) $(stat -c %s "$work/in.lz4")"

have_time=0
[ -x /usr/bin/time ] && have_time=1

# median wall seconds (and peak KiB) of RUNS runs of the shell command $2,
# whose output file $3 must decode (lzkit -dc) to the input, or be it.
declare -A secs
measure() {
  local name=$1 cmd=$2 out=$3 t peak=0 all=()
  for _ in $(seq "$runs"); do
    if [ $have_time = 1 ]; then
      /usr/bin/time -f '%e %M' -o "$work/time" sh -c "$cmd"
      read -r t peak <"$work/time"
    else
      local s e
      s=$(date +%s.%N); sh -c "$cmd"; e=$(date +%s.%N)
      t=$(echo "$e - $s" | bc)
    fi
    all+=("$t")
  done
  # A compressed output must decode to the input; a decoded one (.raw) must
  # be it.
  case $out in
    *.raw) cmp -s "$out" "$work/in" ;;
    *) "$lzkit" -dc "$out" | cmp -s - "$work/in" ;;
  esac || { echo "$name: output differs from the input" >&2; exit 1; }
  local med
  med=$(printf '%s\n' "${all[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
  secs[$name]=$med
  printf '%-44s %7.2f s  peak %6d KiB\n' "$name" "$med" "$peak"
}

cd "$work"
L=$lzkit
measure "decode zstd alone"                "$L -dc in.zst >o.raw" o.raw
measure "lz4 -9 encode alone, T1"          "$L -q -9 -T1 -c in >o.lz4" o.lz4
measure "lz4 -9 encode alone, T2"          "$L -q -9 -T2 -c in >o.lz4" o.lz4
measure "recompress zst -> lz4 -9, T1"     "$L recompress -q -f --to lz4 -9 -T1 in.zst -o o.lz4" o.lz4
measure "recompress zst -> lz4 -9, T2"     "$L recompress -q -f --to lz4 -9 -T2 in.zst -o o.lz4" o.lz4
if command -v zstd >/dev/null && command -v lz4 >/dev/null; then
  measure "zstd -dc | lz4 -9"              "zstd -qdc in.zst | lz4 -q -9 >o.lz4" o.lz4
fi
measure "lzkit -dc | lzkit -9 -T2"         "$L -dc in.zst | $L -q -9 -T2 -c >o.lz4" o.lz4
measure "zstd -19 encode alone, T2"        "$L -q --zstd -19 -T2 -c in >o.zst" o.zst
measure "recompress lz4 -> zstd -19, T1"   "$L recompress -q -f --to zstd -19 -T1 in.lz4 -o o.zst" o.zst
measure "recompress lz4 -> zstd -19, T2"   "$L recompress -q -f --to zstd -19 -T2 in.lz4 -o o.zst" o.zst
if command -v zstd >/dev/null && command -v lz4 >/dev/null; then
  measure "lz4 -dc | zstd -19 -T2"         "lz4 -qdc in.lz4 | zstd -q -19 -T2 >o.zst" o.zst
fi

ratio() { echo "scale=3; ${secs[$1]} / ${secs[$2]}" | bc; }
echo
echo "zst -> lz4 -9: T2 speed-up over T1 $(ratio 'recompress zst -> lz4 -9, T1' 'recompress zst -> lz4 -9, T2')x;" \
  "speed vs the slowest stage (encode alone, T2) $(ratio 'lz4 -9 encode alone, T2' 'recompress zst -> lz4 -9, T2')"
echo "lz4 -> zstd -19: T2 speed-up over T1 $(ratio 'recompress lz4 -> zstd -19, T1' 'recompress lz4 -> zstd -19, T2')x;" \
  "speed vs the slowest stage (encode alone, T2) $(ratio 'zstd -19 encode alone, T2' 'recompress lz4 -> zstd -19, T2')"
if [ -n "${secs['zstd -dc | lz4 -9']:-}" ]; then
  echo "against the pipelines: zstd -dc | lz4 -9 takes $(ratio 'zstd -dc | lz4 -9' 'recompress zst -> lz4 -9, T2')x the time;" \
    "lz4 -dc | zstd -19 -T2 $(ratio 'lz4 -dc | zstd -19 -T2' 'recompress lz4 -> zstd -19, T2')x"
fi
