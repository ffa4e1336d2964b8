#!/usr/bin/env bash
# Seekable-file benchmark: random 4 KiB reads (fresh reader per read, and
# one reader kept open), decoding through the seek table on 1 and 2
# threads, and the size cost of independent chunks and of the table.
# Every output is checked against the input.
#
#   scripts/bench-seekable.sh [DIR|FILE] [SIZE_MB] [RUNS]
#
# DIR: files concatenated (in name order, repeated) into SIZE_MB MiB of
# input (default 1024: a 1 GiB file; the development corpus from
# ../shared/corpus/make_corpus.sh is a good DIR); without one, this
# repository's files repeated. RUNS (default 3): runs of each timed
# decode; the median is printed.
set -euo pipefail
cd "$(dirname "$0")/.."

src=${1:-}
size_mb=${2:-1024}
runs=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release -q -p lzkit-cli
cargo build --release -q -p lzkit --example seekable_latency
target=${CARGO_TARGET_DIR:-$(pwd)/target}
lzkit=$target/release/lzkit
latency=$target/release/examples/seekable_latency

files=()
if [ -z "$src" ]; then
  mapfile -t files < <(git ls-files | sort)
elif [ -d "$src" ]; then
  mapfile -t files < <(find "$src" -maxdepth 1 -type f | sort)
else
  files=("$src")
fi
bytes=$((size_mb << 20))
total=$(cat "${files[@]}" | wc -c)
[ "$total" -gt 0 ] || { echo "no input bytes in ${src:-the repository}" >&2; exit 1; }
for _ in $(seq $((bytes / total + 1))); do cat "${files[@]}"; done | head -c "$bytes" >"$work/in" || true
echo "input: $bytes bytes from ${src:-the repository}"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Seconds of one run of "$@" (output to /dev/null).
timed() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

echo
echo "== random reads (1 MiB chunks, LZ4 level 1, page cache warm)"
"$lzkit" -q -f -T2 --seekable "$work/in" -o "$work/in.lz4"
cat "$work/in" "$work/in.lz4" >/dev/null
"$latency" "$work/in.lz4" "$work/in" 2000 4096

for fmt in lz4 zstd; do
  if [ $fmt = lz4 ]; then f=$work/in.lz4; else
    f=$work/in.zst
    "$lzkit" -q -f -T2 --zstd --seekable "$work/in" -o "$f"
  fi
  echo
  echo "== decoding through the seek table: $fmt, 1 MiB chunks, $(stat -c %s "$f") bytes"
  for t in 1 2; do
    "$lzkit" -q -d -c -T$t "$f" | cmp - "$work/in"
  done
  declare -A med
  for t in 1 2; do
    med[$t]=$(for _ in $(seq "$runs"); do timed "$lzkit" -q -d -c -T$t "$f"; done | median)
  done
  printf '  -T1 %.3f s   -T2 %.3f s   speed-up %.2fx (same bytes: checked)\n' \
    "${med[1]}" "${med[2]}" "$(echo "${med[1]} / ${med[2]}" | bc -l)"
done

echo
echo "== size: independent chunks against one stream, and the table"
plain_lz4=$("$lzkit" -q -c -T2 "$work/in" | wc -c)
linked_lz4=$("$lzkit" -q -c -T2 -BD "$work/in" | wc -c)
plain_zstd=$("$lzkit" -q -c -T2 --zstd "$work/in" | wc -c)
echo "  plain: lz4 -1 (4 MiB independent blocks) $plain_lz4, lz4 -1 -BD $linked_lz4, zstd -3 $plain_zstd"
printf '  %-6s %-5s %12s %10s %10s %12s %9s\n' chunk codec bytes "vs plain" "vs -BD" "table bytes" "table %"
for chunk in 64K 256K 1M 4M; do
  for fmt in lz4 zstd; do
    flag=; [ $fmt = zstd ] && flag=--zstd
    "$lzkit" -q -f -T2 $flag --seekable=$chunk "$work/in" -o "$work/s"
    "$lzkit" -q -d -c "$work/s" | cmp - "$work/in"
    size=$(stat -c %s "$work/s")
    frames=$("$lzkit" --list "$work/s" | sed -n 's/.*seek table: \([0-9]*\) .*/\1/p')
    if [ $fmt = lz4 ]; then entry=21; base=$plain_lz4; else entry=12; base=$plain_zstd; fi
    table=$((8 + frames * entry + 9)); [ $fmt = lz4 ] && table=$((table + 4))
    vs_linked=-; [ $fmt = lz4 ] && vs_linked=$(printf '%+.2f%%' "$(echo "($size / $linked_lz4 - 1) * 100" | bc -l)")
    printf '  %-6s %-5s %12d %+9.2f%% %10s %12d %8.4f%%\n' $chunk $fmt "$size" \
      "$(echo "($size / $base - 1) * 100" | bc -l)" "$vs_linked" "$table" \
      "$(echo "$table * 100 / $size" | bc -l)"
  done
done
