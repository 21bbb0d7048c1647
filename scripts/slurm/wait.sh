#!/usr/bin/env bash
# Waits for the jobs a `kabe plan --slurm DIR` submission sent (DIR/submitted.txt), then
# prints each job's final state. Exit 0 when every job completed, 1 otherwise (the failed
# jobs' logs are named). Needs SLURM_CONF for a cluster of scripts/slurm/cluster.sh.
#
#   bash scripts/slurm/wait.sh DIR [TIMEOUT_SECONDS]
set -euo pipefail
sub=${1:?usage: wait.sh SUBMISSION_DIR [TIMEOUT_SECONDS]}
timeout=${2:-3600}
[ -f "$sub/submitted.txt" ] || { echo "wait.sh: $sub/submitted.txt: nothing submitted" >&2; exit 2; }
ids=$(cut -d' ' -f1 "$sub/submitted.txt" | paste -sd,)
start=$SECONDS
while [ -n "$(squeue -h -j "$ids" -t PENDING,RUNNING,CONFIGURING,COMPLETING 2>/dev/null)" ]; do
  if (( SECONDS - start > timeout )); then
    echo "wait.sh: jobs still queued after $timeout s:" >&2
    squeue -j "$ids" >&2
    exit 1
  fi
  sleep 1
done
# No accounting database here: scontrol keeps finished jobs for MinJobAge.
failed=0
while read -r id name; do
  state=$(scontrol -o show job "$id" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  reason=$(scontrol -o show job "$id" | grep -o 'Reason=[^ ]*' | cut -d= -f2)
  printf '%-8s %-12s %-10s %s\n' "$id" "$name" "$state" "$([ "$reason" = None ] || echo "$reason")"
  if [ "$state" != COMPLETED ]; then
    failed=$((failed + 1))
  fi
done <"$sub/submitted.txt"
if (( failed > 0 )); then
  echo "wait.sh: $failed jobs did not complete; logs in $sub/logs" >&2
  exit 1
fi
echo "wait.sh: all $(wc -l <"$sub/submitted.txt") jobs completed in $((SECONDS - start)) s"
