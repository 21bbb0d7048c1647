#!/usr/bin/env bash
# Grows a table set by one number of pieces, one pair at a time, each pair verified and
# its files recorded in the repository's manifest as soon as it is, so that a build
# longer than a sitting survives a new machine:
#
#   scripts/grow-set.sh [--commit] VARIANT PIECES TABLES
#
#   1. The inputs: `kabe generate --pieces PIECES-1` (resumes), checked against
#      data/manifests/VARIANT-2-(PIECES-1).txt; where the repository has no such manifest
#      the inputs are verified (`kabe verify`) and their manifest written.
#   2. The pairs of PIECES pieces in build order (`kabe plan --json`). The first pair
#      the manifest (data/manifests/VARIANT-2-PIECES.txt) does not list is built (`kabe
#      generate --closure`, which keeps one side of a whole pair, and builds first the
#      listed pairs it reads that are missing), verified (`kabe verify --signature`:
#      every value derived again), and its files' lines added to the manifest and the
#      statistics page (docs/stats/VARIANT.md, by scripts/stats-doc.sh) written from the
#      manifests' files (with --commit, both committed at once). A listed pair found on
#      disk must match the manifest byte for byte (else it is built again, and must
#      then); one missing is built only when a pair not listed reads it, or at the end:
#      a run on a bare machine goes on with new pairs first, without rebuilding hours of
#      pairs they do not read.
#
# Interrupt it at any time: a run resumes at the pair it was building. KABE names the
# binary (default: target/release/kabe, built here); NICE the niceness (default 19);
# MANIFESTS the folder of the manifests (default: data/manifests); STATS the folder of the
# statistics page (default: docs/stats).
set -euo pipefail
cd "$(dirname "$0")/.."

commit=false
if [ "${1:-}" = --commit ]; then commit=true; shift; fi
[ $# -eq 3 ] || { echo "usage: scripts/grow-set.sh [--commit] VARIANT PIECES TABLES" >&2; exit 2; }
variant=$1 pieces=$2 tables=$3
case $pieces in [3-9]) ;; *) echo "grow-set: PIECES must be 3 to 9, not '$pieces'" >&2; exit 2 ;; esac
inputs=$((pieces - 1))
manifests=${MANIFESTS:-data/manifests}
stats=${STATS:-docs/stats}
manifest=$manifests/$variant-2-$pieces.txt
input_manifest=$manifests/$variant-2-$inputs.txt

if [ -z "${KABE:-}" ]; then
  cargo build --release --quiet --workspace --bins --examples # as the test build (scripts/test.sh)
  KABE=target/release/kabe
fi
kabe() { nice -n "${NICE:-19}" "$KABE" "$@"; }
say() { echo "grow-set: $*"; }

# Signatures of PIECES pieces (or, with "up", up to PIECES) in build order, from the plan.
plan_signatures() {
  kabe plan --variant "$variant" --pieces "$1" --tables "$tables" --json | python3 -c '
import json, sys
for job in json.load(sys.stdin)["jobs"]:
    n = sum(int(c) for c in job["signatures"][0])
    if n == int(sys.argv[1]) or (sys.argv[2] == "up" and n < int(sys.argv[1])):
        print(",".join(job["signatures"]))
' "$1" "$2"
}

say "inputs: $variant 2-$inputs in $tables"
kabe generate --variant "$variant" --pieces "$inputs" --tables "$tables"
if [ -f "$input_manifest" ]; then
  kabe manifest --variant "$variant" --tables "$tables" --check "$input_manifest" | tail -n 1
else
  say "no $input_manifest: verifying the inputs, then writing it"
  kabe verify --variant "$variant" --tables "$tables" --signature "$(plan_signatures "$inputs" up | paste -sd,)" | tail -n 3
  kabe manifest --variant "$variant" --tables "$tables" --signature "$(plan_signatures "$inputs" up | paste -sd,)" >"$input_manifest"
fi

if [ ! -f "$manifest" ]; then
  head -n 1 "$input_manifest" >"$manifest"
fi
head_line=$(head -n 1 "$manifest")

# The pairs of PIECES pieces, in build order: name, then the pair's file names.
pairs=$(kabe plan --variant "$variant" --pieces "$pieces" --tables "$tables" --json | python3 -c '
import json, os, sys
plan = json.load(sys.stdin)
for job in plan["jobs"]:
    sig = job["signatures"][0]
    if sum(int(c) for c in sig) == int(sys.argv[1]):
        print(job["name"], *sorted(os.path.basename(o) for o in job["outputs"]))
' "$pieces")

# The manifest lines of the pair NAME's files, as the set in TABLES has them now (the
# pair's values counted or read from the ledger, no other table's).
lines_of() {
  kabe manifest --variant "$variant" --tables "$tables" --signature "${1/+/,}" | grep -v '^#'
}

# Checks FILES of the pair against the manifest's lines; exit 1 naming a difference.
check_listed() {
  local listed
  listed=$(mktemp)
  { echo "$head_line"; for f in "$@"; do grep -E "^$f " "$manifest"; done; } >"$listed"
  if ! kabe manifest --variant "$variant" --tables "$tables" --check "$listed" >"$listed.out"; then
    grep -v "not in the manifest" "$listed.out" >&2
    rm -f "$listed" "$listed.out"
    return 1
  fi
  rm -f "$listed" "$listed.out"
}

# Whether every file of the pair is on disk.
on_disk() {
  local f
  for f in "$@"; do [ -f "$tables/$variant/$f" ] || return 1; done
}

# The listed pairs on disk, each checked against the manifest once in this run (built
# again where it differs, and then it must match).
declare -A checked=()
check_listed_on_disk() {
  local name files sig
  while read -r name files; do
    read -ra files <<<"$files"
    [ -z "${checked[$name]:-}" ] && is_listed "${files[@]}" && on_disk "${files[@]}" || continue
    if ! check_listed "${files[@]}" 2>/dev/null; then
      say "$name: listed, differs from $manifest: building it again"
      sig=${name%%+*}
      rm -f "${files[@]/#/$tables/$variant/}"
      kabe generate --variant "$variant" --closure "$sig" --tables "$tables"
      check_listed "${files[@]}" || { say "$name: built again, it differs from $manifest"; exit 1; }
    fi
    checked[$name]=1
  done <<<"$pairs"
}

is_listed() {
  local f
  for f in "$@"; do grep -qE "^$f " "$manifest" || return 1; done
}

total=$(wc -l <<<"$pairs")
n=0
check_listed_on_disk
while read -r name files; do
  n=$((n + 1))
  read -ra files <<<"$files"
  sig=${name%%+*}
  is_listed "${files[@]}" && continue
  say "[$n/$total] $name: building"
  start=$(date +%s)
  kabe generate --variant "$variant" --closure "$sig" --tables "$tables"
  built=$(date +%s)
  check_listed_on_disk # the listed pairs the closure built again
  say "[$n/$total] $name: built in $((built - start)) s, verifying"
  kabe verify --variant "$variant" --tables "$tables" --signature "${name/+/,}" | tail -n 3
  say "[$n/$total] $name: verified in $(($(date +%s) - built)) s"
  lines=$(lines_of "$name")
  { tail -n +2 "$manifest"; echo "$lines"; } | sort -u >"$manifest.tmp"
  { echo "$head_line"; cat "$manifest.tmp"; } >"$manifest"
  rm -f "$manifest.tmp"
  # The statistics page of what is verified so far (the pair being built next is not
  # read: it is in no manifest yet).
  mkdir -p "$stats"
  LISTED="$input_manifest $manifest" KABE=$KABE bash scripts/stats-doc.sh "$variant" "$tables" >"$stats/$variant.md.tmp"
  mv "$stats/$variant.md.tmp" "$stats/$variant.md"
  if $commit; then
    git add "$manifest" "$stats/$variant.md"
    git commit --quiet -m "manifest: $variant $name built and verified ($((built - start)) s to build)" -- "$manifest" "$stats/$variant.md"
  fi
done <<<"$pairs"
# The listed pairs no pair of this run read: built now, so that the set is whole.
while read -r name files; do
  read -ra files <<<"$files"
  on_disk "${files[@]}" && continue
  say "$name: listed, building it again"
  kabe generate --variant "$variant" --closure "${name%%+*}" --tables "$tables"
done <<<"$pairs"
check_listed_on_disk
say "$variant 2-$pieces: every pair built, verified and in $manifest"
