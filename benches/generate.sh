#!/usr/bin/env bash
# Times a full table build and prints the figures docs/benchmarks.md records: wall time,
# positions per second (per thread too), peak memory against the budget, bytes on disk
# and bits per position per metric, the largest files. With KABE_REFERENCE=DIR (a set
# built before, e.g. by an earlier kabe), every file is compared with it byte for byte.
# Usage: benches/generate.sh VARIANT PIECES [--memory SIZE] [--rules RULES] [--keep]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:?variant}
pieces=${2:?pieces}
shift 2
memory=()
rules=()
keep=no
while [ $# -gt 0 ]; do
  case "$1" in
    --memory) memory=(--memory "$2"); shift 2 ;;
    --rules) rules=(--rules "$2"); shift 2 ;;
    --keep) keep=yes; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir="$root/target/bench-tables/$variant-$pieces"
rm -rf "$dir"
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe
kabe="$root/target/release/kabe"
threads=$(nproc)
echo "machine: $threads cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
log=$(mktemp)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v "$kabe" generate --variant "$variant" --pieces "$pieces" --tables "$dir" "${memory[@]}" "${rules[@]}" 2>"$log" | tail -n 2
  peak_kb=$(awk -F: '/Maximum resident/{gsub(/ /,"",$2); print $2}' "$log")
  wall=$(awk '/Elapsed \(wall clock\)/{print $NF}' "$log")
else
  start=$(date +%s)
  "$kabe" generate --variant "$variant" --pieces "$pieces" --tables "$dir" "${memory[@]}" "${rules[@]}" 2>/dev/null | tail -n 2
  wall="$(( $(date +%s) - start )) s"
  peak_kb=0
fi
positions=$("$kabe" info --variant "$variant" --pieces "$pieces" | awk '/signatures,/{print $3}')
secs=$(echo "$wall" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else if (NF==2) print $1*60+$2; else print $1+0 }')
echo "variant $variant, 2-$pieces pieces, WLD + DTW + rule tables (${rules[1]:-the usual rules of the variant}), memory budget: ${memory[1]:-default (3/4 of RAM)}"
echo "wall time:            $wall"
echo "positions:            $positions"
awk -v p="$positions" -v s="$secs" -v t="$threads" 'BEGIN{printf "positions/s:          %.2f M (%.2f M per thread), theory and rule tables together\n", p/s/1e6, p/s/t/1e6}'
awk -v k="$peak_kb" 'BEGIN{printf "peak memory:          %.2f GiB (maximum resident set)\n", k/1048576}'
for metric in wld dtw; do
  bytes=$(cat "$dir/$variant"/*."$metric".kabe | wc -c)
  awk -v m="$metric" -v b="$bytes" -v p="$positions" 'BEGIN{printf "on disk, %-4s         %.1f MB, %.3f bits/position\n", m, b/1e6, b*8/p}'
done
rule_bytes=$(find "$dir/$variant" -name '*.kabe' ! -name '*.wld.kabe' ! -name '*.dtw.kabe' -printf '%s\n' | awk '{s+=$1} END{print s+0}')
awk -v b="$rule_bytes" -v p="$positions" 'BEGIN{printf "on disk, rules        %.1f MB, %.3f bits/position (of all positions)\n", b/1e6, b*8/p}'
echo "largest tables (bytes, file):"
ls -lS "$dir/$variant" | awk 'NR>1 && NR<=9 {printf "  %12d  %s\n", $5, $9}'
if [ -n "${KABE_REFERENCE:-}" ]; then
  differ=0; compared=0
  for f in "$KABE_REFERENCE/$variant"/*.kabe; do
    compared=$((compared + 1))
    cmp -s "$f" "$dir/$variant/$(basename "$f")" || { echo "differs from the reference: $(basename "$f")"; differ=$((differ + 1)); }
  done
  echo "reference $KABE_REFERENCE: $compared files compared byte for byte, $differ differ"
  [ "$differ" -eq 0 ]
fi
[ "$keep" = yes ] || rm -rf "$dir"
