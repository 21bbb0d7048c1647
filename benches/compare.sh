#!/usr/bin/env bash
# Times two commands side by side on this machine: after a warm-up it runs them in turn,
# A B A B ..., N times each, and prints for each the least, median and greatest wall time
# and CPU time (user + system of the command and its children), then the ratio A/B of
# each pair of runs (least, median, greatest). Two runs of the same work on a shared VM
# differ by up to 30%; runs taken in turn meet the same neighbours, so the ratios of
# pairs are what compares two builds. The machine (CPU model, cores, memory) is the first
# line. The commands' output is thrown away (-v keeps it, on stderr); a command that
# fails stops the comparison.
#
#   bash benches/compare.sh [-n RUNS] [-w WARMUP] [-v] 'COMMAND A' 'COMMAND B'
#
#   -n RUNS     runs of each command, alternated (default 5)
#   -w WARMUP   runs of each before the timed ones, not counted (default 1)
#   -v          let the commands' output through (to stderr)
#
# Example: the same pair solved by two builds of kabe, the earlier one built in a git
# worktree (as benches/build_speed.sh does):
#
#   bash benches/compare.sh -n 4 \
#     'OLD/target/release/examples/time_pair DIR russian 1113 1' \
#     'target/release/examples/time_pair DIR russian 1113 1'
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

runs=5 warmup=1 verbose=0
while getopts "n:w:vh" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    w) warmup=$OPTARG ;;
    v) verbose=1 ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -ne 2 ]; then
  usage >&2
  exit 2
fi
case $runs$warmup in
  *[!0-9]*) echo "compare.sh: -n and -w take whole numbers" >&2; exit 2 ;;
esac
if [ "$runs" -lt 1 ]; then
  echo "compare.sh: -n must be at least 1" >&2
  exit 2
fi

exec python3 - "$runs" "$warmup" "$verbose" "$1" "$2" <<'PYTHON'
import os
import resource
import statistics
import subprocess
import sys
import time

runs, warmup, verbose = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
commands = {"A": sys.argv[4], "B": sys.argv[5]}


def machine():
    model, cpus = "unknown CPU", str(os.cpu_count() or "?")
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"}).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Model name":
                model = " ".join(value.split())
            elif key.strip() == "CPU(s)":
                cpus = value.strip()
    except OSError:
        pass
    memory = "? GiB"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return f"machine: {model}, {cpus} cores, {memory}"


def run(name):
    """One run of a command: (wall seconds, CPU seconds of it and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = None if verbose else subprocess.DEVNULL
    status = subprocess.run(
        ["bash", "-c", commands[name]], stdin=subprocess.DEVNULL, stdout=sys.stderr if verbose else out, stderr=out
    ).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if status != 0:
        sys.exit(f"compare.sh: command {name} exited with {status}: {commands[name]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def spread(values, unit="s"):
    values = sorted(values)
    if not values:
        return "-"
    fmt = (lambda v: f"{v:.3f} s") if unit == "s" else (lambda v: f"{v:.3f}")
    return f"{fmt(values[0])} / {fmt(statistics.median(values))} / {fmt(values[-1])}"


print(machine())
print(f"runs: {runs} of each, in turn A B A B ..., after {warmup} warm-up run(s) of each")
for name, command in commands.items():
    print(f"{name}: {command}")
sys.stdout.flush()

for _ in range(warmup):
    run("A")
    run("B")
timed = {"A": [], "B": []}
for _ in range(runs):
    timed["A"].append(run("A"))
    timed["B"].append(run("B"))

print(f"{'':<10} {'wall min / median / max':<32} CPU min / median / max")
for name in ("A", "B"):
    walls = [w for w, _ in timed[name]]
    cpus = [c for _, c in timed[name]]
    print(f"{name:<10} {spread(walls):<32} {spread(cpus)}")
wall_ratios = [a[0] / b[0] for a, b in zip(timed["A"], timed["B"]) if b[0] > 0]
# A command that spends no measurable CPU (sleep) has no CPU ratio.
cpu_ratios = [a[1] / b[1] for a, b in zip(timed["A"], timed["B"]) if b[1] >= 0.005]
print(f"{'A/B pairs':<10} {spread(wall_ratios, 'x'):<32} {spread(cpu_ratios, 'x')}")
PYTHON
