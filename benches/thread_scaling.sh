#!/usr/bin/env bash
# Times building one pair at several thread counts on the same inputs, and prints each
# time, the speed-up over the first count, the efficiency per thread and whether every
# run wrote the same files byte for byte (a build must not depend on its thread count).
#
#   benches/thread_scaling.sh INPUTS SIG [THREADS...]
#
#   INPUTS   a table directory holding the pair's inputs (a 2-5 set for a 5-piece pair,
#            say); it is copied for each run, never written
#   SIG      the pair's signature, e.g. 2111 (the pair 2111+1121)
#   THREADS  thread counts (default: 2, then powers of two up to this machine's cores)
#
# KABE names the binary (default: target/release/kabe, built here). Work goes to
# target/thread-scaling/ (WORK replaces it). With TRACE=DIR, each run's CPU use is
# sampled every quarter second into DIR/cpu-THREADS.txt (seconds, cores busy): where a
# run falls below its thread count is where it stops scaling.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 INPUTS SIG [THREADS...]" >&2; exit 2; }
inputs=$1 sig=$2
shift 2
threads=("$@")
if [ ${#threads[@]} -eq 0 ]; then
  threads=(2)
  for ((n = 4; n <= $(nproc); n *= 2)); do threads+=("$n"); done
fi
if [ -z "${KABE:-}" ]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe
  KABE=$root/target/release/kabe
fi
work=${WORK:-$root/target/thread-scaling}
mkdir -p "$work"
[[ $sig =~ ^[0-9]{4}$ ]] || { echo "$0: SIG must be four digits (wm wk bm bk), not '$sig'" >&2; exit 2; }
flip=${sig:2:2}${sig:0:2}

echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f", $2/1048576}' /proc/meminfo) GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "binary: $KABE ($("$KABE" --version))"
echo "pair: $sig+$flip on the inputs in $inputs"
printf '%8s %10s %9s %11s  %s\n' threads seconds speed-up efficiency files

# Samples PID's CPU use (all its threads) every quarter second into FILE.
trace() {
  local pid=$1 file=$2 tick last=0 start now cpu
  tick=$(getconf CLK_TCK)
  start=$(date +%s.%N)
  while [ -r "/proc/$pid/stat" ]; do
    read -r -a stat <"/proc/$pid/stat" || break
    cpu=$((stat[13] + stat[14]))
    now=$(date +%s.%N)
    awk -v t="$now" -v s="$start" -v c="$cpu" -v l="$last" -v k="$tick" \
      'BEGIN { printf "%.2f %.2f\n", t - s, (c - l) / k / 0.25 }' >>"$file"
    last=$cpu
    sleep 0.25
  done
}

first_secs="" first_sums="" differ=false
for n in "${threads[@]}"; do
  dir="$work/threads-$n"
  rm -rf "$dir"
  cp -r "$inputs" "$dir"
  rm -f "$dir"/*/"$sig".* "$dir"/*/"$flip".*
  start=$(date +%s.%N)
  "$KABE" generate --tables "$dir" --pair "$sig" --threads "$n" >"$dir.log" 2>&1 &
  pid=$!
  if [ -n "${TRACE:-}" ]; then
    mkdir -p "$TRACE"
    rm -f "$TRACE/cpu-$n.txt"
    trace "$pid" "$TRACE/cpu-$n.txt" &
  fi
  wait "$pid" || { echo "kabe generate --pair $sig --threads $n failed:" >&2; cat "$dir.log" >&2; exit 1; }
  wait
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  sums=$(cd "$dir" && sha256sum */"$sig".* */"$flip".* | sort -k2)
  if [ -z "$first_secs" ]; then
    first_secs=$secs first_sums=$sums first_n=$n
    files="$(echo "$sums" | wc -l) files"
  elif [ "$sums" = "$first_sums" ]; then
    files="identical to $first_n threads"
  else
    files="DIFFERENT from $first_n threads" differ=true
  fi
  awk -v n="$n" -v s="$secs" -v f="$first_secs" -v fn="$first_n" -v files="$files" \
    'BEGIN { printf "%8d %10.1f %8.2fx %10.0f%%  %s\n", n, s, f / s, 100 * f * fn / (s * n), files }'
  if [ -z "${KABE_BENCH_KEEP:-}" ] && [ "$n" != "$first_n" ]; then rm -rf "$dir" "$dir.log"; fi
done
if $differ; then exit 1; fi
