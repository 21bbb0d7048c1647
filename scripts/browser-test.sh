#!/usr/bin/env bash
# The explorer in a real browser: serves TABLES (international and Russian up to 4
# pieces, Turkish up to 3) with `kabe serve` and drives Debian's Chromium headless through chromedriver
# (server/tests/browser/explorer.mjs). Screenshots go to target/screenshots/; with
# --update-docs to docs/screenshots/ (the tracked ones the docs show).
#
#   bash scripts/browser-test.sh TABLES [--update-docs]
set -euo pipefail
cd "$(dirname "$0")/.."
tables=${1:?usage: browser-test.sh TABLES [--update-docs]}
shots=target/screenshots
[ "${2:-}" = --update-docs ] && shots=docs/screenshots
mkdir -p "$shots"
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
cargo build --release --quiet --workspace --bins --examples # as the test build (scripts/test.sh)
log=$(mktemp)
target/release/kabe serve --tables "$tables" --bind 127.0.0.1:0 >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q 'http://' "$log" && break; sleep 0.1; done
url=$(grep -o 'http://[^/]*' "$log" | head -n 1)
[ -n "$url" ] || { echo "browser-test: kabe serve did not start:" >&2; cat "$log" >&2; exit 1; }
node server/tests/browser/explorer.mjs "$url" "$shots"
