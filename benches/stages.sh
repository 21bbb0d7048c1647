#!/usr/bin/env bash
# Builds signatures one stage at a time on top of an existing table directory (e.g. the
# international 2-5 set of benches/generate.sh --keep) and prints, per stage: pairs and
# positions solved, wall time, positions/s, peak memory, bytes and bits per position per
# metric of the files the stage wrote (both tables of each pair, and the one the set keeps
# once built: the smaller); then verifies them (every checksum of the directory, every
# stored value of the stage's tables derived again). The stages keep both tables of each
# pair (--both-sides), as a set to be extended should.
# Usage: benches/stages.sh VARIANT DIR MEMORY SIG [SIG ...]   e.g. international DIR 16G 0501 0402 0303
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:?variant}
dir=${2:?table directory}
memory=${3:?memory budget}
shift 3
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe
kabe="$root/target/release/kabe"
sizes=$(mktemp)
"$kabe" info --variant "$variant" --pieces 8 | awk 'NF==6 && length($3)==4 && $3 ~ /^[0-9]+$/ {print $3, $5}' >"$sizes"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for sig in "$@"; do
  marker=$(mktemp)
  log=$(mktemp)
  /usr/bin/time -v "$kabe" generate --variant "$variant" --closure "$sig" --tables "$dir" --memory "$memory" --both-sides 2>"$log" >"$log.out"
  solved=$(awk '/^built/{print $4}' "$log.out" | tr -d '(')
  wall=$(awk '/Elapsed \(wall clock\)/{print $NF}' "$log")
  secs=$(echo "$wall" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else if (NF==2) print $1*60+$2; else print $1+0 }')
  peak_kb=$(awk -F: '/Maximum resident/{gsub(/ /,"",$2); print $2}' "$log")
  echo "stage closure of $sig: $(grep '^built' "$log.out")"
  awk -v s="$secs" -v p="$solved" -v k="$peak_kb" -v w="$wall" -v t="$(nproc)" \
    'BEGIN{printf "  wall %s, %.2f M positions/s (%.2f M per thread; theory and rule positions), peak memory %.2f GiB\n", w, p/s/1e6, p/s/t/1e6, k/1048576}'
  for metric in wld dtw other; do
    case $metric in
      wld|dtw) files=$(find "$dir/$variant" -name "*.$metric.kabe" -newer "$marker") ;;
      other) files=$(find "$dir/$variant" -name '*.kabe' ! -name '*.wld.kabe' ! -name '*.dtw.kabe' -newer "$marker") ;;
    esac
    [ -n "$files" ] || continue
    bytes=$(cat $files | wc -c)
    # One table of each pair kept, the smaller.
    one_side=$(python3 - $files <<'PY'
import os, sys
sizes = {os.path.basename(f): os.path.getsize(f) for f in sys.argv[1:]}
total = 0
for name, size in sizes.items():
    sig, rest = name[:4], name[4:]
    flip = sig[2:] + sig[:2] + rest
    if flip == name or flip not in sizes:
        total += size
    elif name < flip:
        total += min(size, sizes[flip])
print(total)
PY
)
    positions=0
    for f in $files; do
      s=$(basename "$f" | cut -c1-4)
      n=$(awk -v s="$s" '$1==s{print $2; exit}' "$sizes")
      positions=$((positions + ${n:-0}))
    done
    awk -v m="$metric" -v b="$bytes" -v o="$one_side" -v p="$positions" \
      'BEGIN{printf "  %-5s %.1f MB for %d positions: %.3f bits/position; one side kept %.1f MB, %.3f\n", (m=="other"?"rules":m), b/1e6, p, (p>0?b*8/p:0), o/1e6, (p>0?o*8/p:0)}'
  done
  # Every table the stage wrote (a closure also builds the smaller materials it reaches).
  sigs=$(find "$dir/$variant" -name '*.dtw.kabe' -newer "$marker" -printf '%f\n' | cut -c1-4 | sort -u | paste -sd,)
  if [ -n "$sigs" ]; then
    /usr/bin/time -f "  verify $sigs: %e s, peak memory %M kB" "$kabe" verify --variant "$variant" --tables "$dir" \
      --signature "$sigs" --memory "$memory" 2>&1 | tail -n 2 | sed 's/^\([0-9]\)/  \1/'
  fi
  rm -f "$marker" "$log" "$log.out"
done
