# Sourced by the test scripts: runs commands in the background, at most $SIDE_BY_SIDE_JOBS
# (default: one a core) at once, each one's output kept in LOG.txt and its result (0, or 1
# for a failure) in LOG.rc, so the caller reports them in its own order after `wait`.
side_by_side() { # LOG COMMAND...
  local log=$1
  shift
  while [ "$(jobs -rp | wc -l)" -ge "${SIDE_BY_SIDE_JOBS:-$(nproc)}" ]; do wait -n || true; done
  { if "$@" >"$log.txt" 2>&1; then echo 0; else echo 1; fi >"$log.rc"; } &
}
