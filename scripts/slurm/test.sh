#!/usr/bin/env bash
# The cluster build on a real Slurm: brings up the one-node cluster of cluster.sh,
# submits `kabe plan --slurm` for international 2-4 pieces, and checks that
#   1. every job completes and the files equal a local `kabe generate`, byte for byte,
#      and `kabe verify` passes on them;
#   2. a job cancelled while it runs (scancel), with the rest of the graph, finishes with
#      the same files once the plan is written and submitted again;
#   3. a job whose input is corrupt fails naming the file, and its dependants never run.
#
#   bash scripts/slurm/test.sh [REFERENCE_DIR]
#
# REFERENCE_DIR: tables of a local `kabe generate --variant international --pieces 4`
# (may hold more); built here when not given. Run by scripts/test.sh (CI).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(realpath -m target/slurm-test)
rm -rf "$work"
mkdir -p "$work"
cargo build --release --quiet --workspace --bins --examples # as the test build (scripts/test.sh)
kabe=$PWD/target/release/kabe
ref=${1:-}
if [ -z "$ref" ]; then
  ref=$work/local
  "$kabe" generate --variant international --pieces 4 --tables "$ref" >/dev/null 2>&1
fi
ref=$(realpath "$ref")

trap 'bash scripts/slurm/cluster.sh down "$work/state"' EXIT
bash scripts/slurm/cluster.sh up "$work/state"
export SLURM_CONF=$work/state/slurm.conf

plan() { # tables submission
  "$kabe" plan --variant international --pieces 4 --tables "$1" --cpus 1 --slurm "$2"
}

# Every file of the set equals the local build's, and the set is complete.
same_as_local() {
  local tables=$1/international n=0
  for f in "$tables"/*.kabe; do
    cmp -s "$f" "$ref/international/$(basename "$f")" || { echo "FAIL: $f differs from the local build" >&2; exit 1; }
    n=$((n + 1))
  done
  local expected
  expected=$("$kabe" plan --variant international --pieces 4 --tables "$1" --json \
    | python3 -c 'import json, sys; print(sum(len(j["outputs"]) for j in json.load(sys.stdin)["jobs"]))')
  [ "$n" = "$expected" ] || { echo "FAIL: $n files in $tables, the plan writes $expected" >&2; exit 1; }
  ! ls "$tables"/*.tmp >/dev/null 2>&1 || { echo "FAIL: temporary files left in $tables" >&2; exit 1; }
  echo "   $n files, each byte-identical to the local kabe generate"
}

state_of() { scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
id_of() { awk -v pair="$2" '$2 == pair {print $1}' "$1/submitted.txt"; }

echo "== slurm 0: jobs asking more CPUs than any node has are refused before anything is submitted"
"$kabe" plan --variant international --pieces 3 --tables "$work/t0" --cpus 1024 --slurm "$work/s0" >/dev/null
if bash "$work/s0/submit.sh" --partition=local 2>"$work/s0.err"; then
  echo "FAIL: submit.sh submitted jobs no node can run" >&2; exit 1
fi
grep -q "asks 1024 CPUs" "$work/s0.err" || { echo "FAIL: submit.sh did not say why:" >&2; cat "$work/s0.err" >&2; exit 1; }
[ ! -s "$work/s0/submitted.txt" ] || { echo "FAIL: jobs were submitted" >&2; exit 1; }
echo "   $(head -c 120 "$work/s0.err")..."

echo "== slurm 1: the whole plan, international 2-4"
plan "$work/t1" "$work/s1"
bash "$work/s1/submit.sh" --partition=local >/dev/null
bash scripts/slurm/wait.sh "$work/s1" 600 | tail -n 1
same_as_local "$work/t1"
"$kabe" verify --variant international --tables "$work/t1" | tail -n 1

echo "== slurm 2: a job cancelled while it runs, the graph submitted again"
plan "$work/t2" "$work/s2" >/dev/null
bash "$work/s2/submit.sh" >/dev/null
victim=$(id_of "$work/s2" 1111)
for _ in $(seq 1200); do [ "$(state_of "$victim")" = PENDING ] || break; sleep 0.1; done
[ "$(state_of "$victim")" = RUNNING ] || { echo "FAIL: 1111 is $(state_of "$victim"), not running" >&2; exit 1; }
# Cancelled in the middle of its work however fast the machine builds 1111 (1.6 s on a
# 2-core VM): its process is stopped as soon as it is there, then cancelled (Slurm
# continues it to deliver SIGTERM, or kills it after KillWait).
stopped=false
for _ in $(seq 3000); do
  if pkill -STOP -f -- "generate --pair 1111 .*$work/t2"; then stopped=true; break; fi
  sleep 0.02
done
$stopped || {
  echo "FAIL: no process of 1111 to stop; the job is $(state_of "$victim"), its log:" >&2
  tail -n 5 "$work/s2/logs/"*"-$victim.out" >&2 2>/dev/null || echo "   (no log)" >&2
  exit 1
}
scancel "$victim"
! bash scripts/slurm/wait.sh "$work/s2" 600 >"$work/s2/wait.txt" 2>&1 || { echo "FAIL: nothing was cancelled" >&2; exit 1; }
[ "$(state_of "$victim")" = CANCELLED ] || { echo "FAIL: 1111 is $(state_of "$victim")" >&2; exit 1; }
! grep -qs 'built in' "$work/s2/logs/"*"-$victim.out" || { echo "FAIL: 1111 was not cancelled in the middle" >&2; exit 1; }
# The job writes its pair's files one after another (theory, then rule tables): those it
# finished before the cancel are whole and stay for the resubmitted graph to reuse; none
# may differ from the local build, no temporary file may look finished, and the pair
# must not be complete.
left=0
for f in "$work/t2/international/"1111.*.kabe; do
  [ -e "$f" ] || continue
  cmp -s "$f" "$ref/international/$(basename "$f")" || { echo "FAIL: the cancelled job left $f, which differs from the local build" >&2; exit 1; }
  left=$((left + 1))
done
[ "$left" -lt 3 ] || { echo "FAIL: all three files of 1111 exist although its job was cancelled while running" >&2; exit 1; }
echo "   1111 cancelled while running; $(grep -c CANCELLED "$work/s2/wait.txt") jobs cancelled in all, $left of the 3 files of 1111 finished before it (each equal to the local build)"
plan "$work/t2" "$work/s2b"
bash "$work/s2b/submit.sh" >/dev/null
bash scripts/slurm/wait.sh "$work/s2b" 600 | tail -n 1
same_as_local "$work/t2"

echo "== slurm 3: a corrupt input fails its job, naming the file; its dependants do not run"
cp -r "$work/t1" "$work/t3"
rm "$work/t3/international/"{0103,0301,0112,1201}.*.kabe
# One byte of the body flipped: the checksum no longer matches.
python3 - "$work/t3/international/0201.dtw.kabe" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0x40
open(path, "wb").write(data)
PY
plan "$work/t3" "$work/s3"
bash "$work/s3/submit.sh" >/dev/null
! bash scripts/slurm/wait.sh "$work/s3" 600 >"$work/s3/wait.txt" 2>&1 || { echo "FAIL: the corrupt input went unnoticed" >&2; exit 1; }
bad=$(id_of "$work/s3" 0103+0301)
dependant=$(id_of "$work/s3" 0112+1201)
[ "$(state_of "$bad")" = FAILED ] || { echo "FAIL: 0103+0301 is $(state_of "$bad")" >&2; exit 1; }
grep -q '0201.dtw.kabe' "$work/s3/logs/"*"-$bad.out" || { echo "FAIL: the error does not name the file" >&2; exit 1; }
[ "$(state_of "$dependant")" = CANCELLED ] && ! ls "$work/s3/logs/"*"-$dependant.out" >/dev/null 2>&1 \
  || { echo "FAIL: 0112+1201 ran after its input's job failed" >&2; exit 1; }
echo "   0103+0301 failed: $(grep -o 'kabe: error: .*' "$work/s3/logs/"*"-$bad.out" | cut -c1-150)"
echo "   0112+1201 never ran ($(scontrol -o show job "$dependant" | grep -o 'Reason=[^ ]*'))"
