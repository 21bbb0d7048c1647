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
#   2. The pairs of PIECES pieces in build order (`kabe plan --json`). A pair whose files
#      the manifest (data/manifests/VARIANT-2-PIECES.txt) lists is built again where its
#      files are missing and must then match it byte for byte; the first pair not listed
#      is built (`kabe generate --closure`, which keeps one side of a whole pair),
#      verified (`kabe verify --signature`: every value derived again), and its files'
#      lines added to the manifest (with --commit, committed at once).
#
# Interrupt it at any time: a run resumes at the pair it was building. KABE names the
# binary (default: target/release/kabe, built here); NICE the niceness (default 19);
# MANIFESTS the folder of the manifests (default: data/manifests).
set -euo pipefail
cd "$(dirname "$0")/.."

commit=false
if [ "${1:-}" = --commit ]; then commit=true; shift; fi
[ $# -eq 3 ] || { echo "usage: scripts/grow-set.sh [--commit] VARIANT PIECES TABLES" >&2; exit 2; }
variant=$1 pieces=$2 tables=$3
case $pieces in [3-9]) ;; *) echo "grow-set: PIECES must be 3 to 9, not '$pieces'" >&2; exit 2 ;; esac
inputs=$((pieces - 1))
manifests=${MANIFESTS:-data/manifests}
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

total=$(wc -l <<<"$pairs")
n=0
while read -r name files; do
  n=$((n + 1))
  read -ra files <<<"$files"
  sig=${name%%+*}
  listed=true
  for f in "${files[@]}"; do grep -qE "^$f " "$manifest" || listed=false; done
  if $listed; then
    if ! check_listed "${files[@]}" 2>/dev/null; then
      say "[$n/$total] $name: listed, building it again"
      kabe generate --variant "$variant" --closure "$sig" --tables "$tables"
      check_listed "${files[@]}" || { say "$name: built again, it differs from $manifest"; exit 1; }
    fi
    continue
  fi
  say "[$n/$total] $name: building"
  start=$(date +%s)
  kabe generate --variant "$variant" --closure "$sig" --tables "$tables"
  built=$(date +%s)
  say "[$n/$total] $name: built in $((built - start)) s, verifying"
  kabe verify --variant "$variant" --tables "$tables" --signature "${name/+/,}" | tail -n 3
  say "[$n/$total] $name: verified in $(($(date +%s) - built)) s"
  lines=$(lines_of "$name")
  { tail -n +2 "$manifest"; echo "$lines"; } | sort -u >"$manifest.tmp"
  { echo "$head_line"; cat "$manifest.tmp"; } >"$manifest"
  rm -f "$manifest.tmp"
  if $commit; then
    git add "$manifest"
    git commit --quiet -m "manifest: $variant $name built and verified ($((built - start)) s to build)" -- "$manifest"
  fi
done <<<"$pairs"
say "$variant 2-$pieces: every pair built, verified and in $manifest"
