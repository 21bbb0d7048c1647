#!/usr/bin/env bash
# Times table builds of an earlier kabe (BASE, a git revision built in a worktree) and of
# this checkout on the same work, one after the other in one run, and prints each time,
# peak memory and the ratio (timings on a shared VM differ by up to 30% from run to run;
# ratios within one run do not), and whether both wrote the same files byte for byte.
#
#   benches/build_speed.sh quick [BASE]   international 2-4 from nothing (one table of each
#                                         pair kept); on it, the pair 0104+0401 and the
#                                         closure of 1103 (a few minutes)
#   benches/build_speed.sh full [BASE]    international 2-5 from nothing; on it, the pair
#                                         0105+0501, the closure of 2004 and the pair
#                                         0321+2103 (hours for the older builds)
#   benches/build_speed.sh set PIECES [BASE]
#                                         international 2-PIECES from nothing and its
#                                         verification only
#   benches/build_speed.sh pair SET PAIR MEMORY [BASE]
#                                         the pair PAIR rebuilt with --memory MEMORY on
#                                         the international tables of SET (a finished set,
#                                         linked, not copied, less PAIR's files): where
#                                         a pair's inputs do not fit its budget
#   benches/build_speed.sh verify SET SIGS [BASE]
#                                         `kabe verify --again --signature SIGS` (e.g.
#                                         3030 or 0321,2103) of the international tables
#                                         of SET, each binary on its own link of them
#
# quick, full and set also time `kabe verify --again` of the set built from nothing (every
# value derived again, the rule tables' too), each binary on its own set; a verification
# that fails or finds a disagreement stops the run.
# BASE defaults to 4fc86a2 (main before builds read a working form of their inputs).
# Work goes to target/build-speed/; KABE_BENCH_KEEP=1 keeps the tables.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-quick}
base_rev=${2:-4fc86a2}
[ "$mode" = pair ] && base_rev=${5:-4fc86a2}
[ "$mode" = verify ] && base_rev=${4:-4fc86a2}
[ "$mode" = set ] && base_rev=${3:-4fc86a2}
work="$root/target/build-speed"
mkdir -p "$work"

case "$mode" in
  quick) pieces=4; extensions=("--pair 0104" "--closure 1103") ;;
  full) pieces=5; extensions=("--pair 0105" "--closure 2004" "--pair 0321") ;;
  set)
    [ $# -ge 2 ] || { echo "usage: $0 set PIECES [BASE]" >&2; exit 2; }
    pieces=$2; extensions=() ;;
  pair)
    [ $# -ge 4 ] || { echo "usage: $0 pair SET PAIR MEMORY [BASE]" >&2; exit 2; }
    set_dir=$(cd "$2" && pwd); pair=$3; memory=$4
    [ -d "$set_dir/international" ] || { echo "$set_dir has no international tables" >&2; exit 2; } ;;
  verify)
    [ $# -ge 3 ] || { echo "usage: $0 verify SET SIGS [BASE]" >&2; exit 2; }
    set_dir=$(cd "$2" && pwd); sigs=$3
    [ -d "$set_dir/international" ] || { echo "$set_dir has no international tables" >&2; exit 2; } ;;
  *) echo "usage: $0 quick|full [BASE] | set PIECES [BASE] | pair SET PAIR MEMORY [BASE] | verify SET SIGS [BASE]" >&2; exit 2 ;;
esac

base_tree="$work/base-$base_rev"
if [ ! -d "$base_tree" ]; then
  git -C "$root" worktree add --detach -f "$base_tree" "$base_rev" >/dev/null
fi
cargo build --release --quiet --manifest-path "$base_tree/Cargo.toml" --bin kabe
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kabe
declare -A kabe=([base]="$base_tree/target/release/kabe" [new]="$root/target/release/kabe")

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "base: $base_rev; new: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ' with changes')"
printf '%-34s %12s %12s %8s %10s %10s  %s\n' work base new ratio "base peak" "new peak" files

# Runs `kabe generate ARGS` with tables in DIR for one binary; sets secs and peak (GiB).
run() {
  local who=$1 dir=$2; shift 2
  local log; log=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$log" "${kabe[$who]}" generate --variant international --tables "$dir" "$@" >/dev/null 2>&1 \
    || { echo "$who: kabe generate $* failed" >&2; cat "$log" >&2; exit 1; }
  read -r secs peak_kb <"$log"
  peak=$(awk -v k="$peak_kb" 'BEGIN{printf "%.2f", k/1048576}')
  rm -f "$log"
}

# Runs `kabe verify --again ARGS` of the tables in DIR for one binary; sets secs and
# peak (GiB). A failed run or a disagreement (a non-zero exit) stops the benchmark.
run_verify() {
  local who=$1 dir=$2; shift 2
  local log; log=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$log" "${kabe[$who]}" verify --variant international --tables "$dir" --again "$@" \
    >"$log.out" 2>&1 || { echo "$who: kabe verify $* failed" >&2; tail -5 "$log.out" >&2; exit 1; }
  read -r secs peak_kb <"$log"
  peak=$(awk -v k="$peak_kb" 'BEGIN{printf "%.2f", k/1048576}')
  rm -f "$log" "$log.out"
}

# Times `kabe verify --again ARGS` for both binaries, each on its own link of SOURCE
# (WHO in it stands for each binary's own directory), so that neither reads the other's
# ledger.
compare_verify() {
  local name=$1 source=$2; shift 2
  local -A time mem
  for who in base new; do
    local from=${source//WHO/$who} dir="$work/$who-verify"
    rm -rf "$dir"; mkdir -p "$dir/international"
    for file in "$from"/international/*.kabe; do
      ln "$file" "$dir/international/" 2>/dev/null || cp "$file" "$dir/international/"
    done
    run_verify "$who" "$dir" "$@"
    time[$who]=$secs; mem[$who]=$peak
    rm -rf "$dir"
  done
  printf '%-34s %11.1fs %11.1fs %7.2fx %9sG %9sG  %s\n' "$name" "${time[base]}" "${time[new]}" \
    "$(awk -v a="${time[base]}" -v b="${time[new]}" 'BEGIN{print a/b}')" "${mem[base]}" "${mem[new]}" \
    "0 disagreements"
}

# Times one piece of work for both binaries; `prepare WHO DIR` lays its input first.
compare() {
  local name=$1 prepare=$2; shift 2
  local -A time mem
  for who in base new; do
    local dir="$work/$who"
    $prepare "$who" "$dir"
    run "$who" "$dir" "$@"
    time[$who]=$secs; mem[$who]=$peak
  done
  local same=identical
  diff -rq "$work/base/international" "$work/new/international" >/dev/null || same=DIFFER
  printf '%-34s %11.1fs %11.1fs %7.2fx %9sG %9sG  %s\n' "$name" "${time[base]}" "${time[new]}" \
    "$(awk -v a="${time[base]}" -v b="${time[new]}" 'BEGIN{print a/b}')" "${mem[base]}" "${mem[new]}" "$same"
  [ "$same" = identical ]
}

fresh() { rm -rf "$2"; }
# Each extension starts from the binary's own from-nothing set, kept aside.
from_set() { rm -rf "$2"; cp -r "$work/$1-set" "$2"; }

# The pair's files left out of a link of SET: PAIR and its colour flip (wm wk bm bk).
without_pair() {
  rm -rf "$2"; mkdir -p "$2/international"
  local flip="${pair:2:2}${pair:0:2}" file
  for file in "$set_dir"/international/*.kabe; do
    case $(basename "$file") in
      "$pair".* | "$flip".*) ;;
      *) ln "$file" "$2/international/" 2>/dev/null || cp "$file" "$2/international/" ;;
    esac
  done
}

if [ "$mode" = verify ]; then
  compare_verify "verify --signature $sigs" "$set_dir" --signature "$sigs"
  exit
fi

if [ "$mode" = pair ]; then
  compare "on a set: --pair $pair --memory $memory" without_pair --pair "$pair" --memory "$memory"
  rm -rf "$work/base" "$work/new"
  exit
fi

compare "2-$pieces from nothing" fresh --pieces "$pieces"
for who in base new; do rm -rf "$work/$who-set"; cp -r "$work/$who" "$work/$who-set"; done
compare_verify "verify 2-$pieces" "$work/WHO-set"
for extension in "${extensions[@]+"${extensions[@]}"}"; do
  # shellcheck disable=SC2086 # the extension is two words
  compare "on 2-$pieces: $extension" from_set $extension
done
[ "${KABE_BENCH_KEEP:-}" = 1 ] || rm -rf "$work/base" "$work/new" "$work/base-set" "$work/new-set"
