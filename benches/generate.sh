#!/usr/bin/env bash
# Times a full table build and prints the figures the README records: wall time,
# positions per second (per thread too), peak memory, bytes on disk per signature and in
# total, bits per position. Usage: benches/generate.sh VARIANT PIECES [--keep]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:?variant}
pieces=${2:?pieces}
dir="$root/target/bench-tables/$variant-$pieces"
rm -rf "$dir"
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe
kabe="$root/target/release/kabe"
threads=$(nproc)
echo "machine: $threads cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
log=$(mktemp)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v "$kabe" generate --variant "$variant" --pieces "$pieces" --dir "$dir" 2>"$log" | tail -n 2
  peak_kb=$(awk -F: '/Maximum resident/{gsub(/ /,"",$2); print $2}' "$log")
  wall=$(awk '/Elapsed \(wall clock\)/{print $NF}' "$log")
else
  start=$(date +%s)
  "$kabe" generate --variant "$variant" --pieces "$pieces" --dir "$dir" 2>/dev/null | tail -n 2
  wall="$(( $(date +%s) - start )) s"
  peak_kb=0
fi
positions=$("$kabe" info --variant "$variant" --pieces "$pieces" | awk '/signatures,/{print $3}')
bytes=$(du -sb "$dir/$variant" | cut -f1)
secs=$(echo "$wall" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else if (NF==2) print $1*60+$2; else print $1+0 }')
echo "variant $variant, 2-$pieces pieces, WLD+DTW"
echo "wall time:            $wall"
echo "positions:            $positions"
awk -v p="$positions" -v s="$secs" -v t="$threads" 'BEGIN{printf "positions/s:          %.2f M (%.2f M per thread)\n", p/s/1e6, p/s/t/1e6}'
awk -v k="$peak_kb" 'BEGIN{printf "peak memory:          %.2f GiB\n", k/1048576}'
awk -v b="$bytes" -v p="$positions" 'BEGIN{printf "on disk:              %.1f MB, %.3f bits/position\n", b/1e6, b*8/p}'
echo "largest tables (bytes, file):"
ls -lS "$dir/$variant" | awk 'NR>1 && NR<=9 {printf "  %12d  %s\n", $5, $9}'
[ "${3:-}" = "--keep" ] || rm -rf "$dir"
