#!/usr/bin/env bash
# The Python package as users get it, each way in a fresh venv:
#   1. `pip install ./python` (pip builds the abi3 wheel with maturin from PyPI), then the
#      tests, the docstring examples, the type stub against the module (mypy stubtest)
#      and the example script;
#   2. the sdist (`maturin sdist`) installed by pip, then the tests;
#   3. py-draughts in its own venv beside the package: its boards read by kabe, kabe's
#      best moves legal in py-draughts.
# Usage: scripts/python-test.sh [TABLES]  (a table directory with international and
# Russian tables up to at least 4 pieces; built here when not given).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/target/python
kabe=$root/target/release/kabe
cargo build --release --quiet --workspace --bins --examples # as the test build (scripts/test.sh)

tables=${1:-}
if [ -z "$tables" ]; then
  tables=$work/tables
  for variant in international russian; do
    "$kabe" generate --variant "$variant" --pieces 4 --tables "$tables" 2>/dev/null | tail -n 1
  done
fi
tables=$(cd "$tables" && pwd)
export KABE_TEST_TABLES=$tables KABE_BIN=$kabe

fresh_venv() {
  rm -rf "$1"
  python3 -m venv "$1"
  "$1/bin/pip" install --quiet --upgrade pip
}

echo "== python: format and lints of the extension crate (not in the main workspace)"
(cd python && cargo fmt --check && cargo clippy --release --quiet --all-targets -- -D warnings)

echo "== python: pip install ./python in a fresh venv"
fresh_venv "$work/venv-source"
"$work/venv-source/bin/pip" install --quiet ./python pytest mypy
(cd python/tests && "$work/venv-source/bin/python" -m pytest -q -p no:cacheprovider --ignore=test_pydraughts.py)
(cd "$work" && "$work/venv-source/bin/python" -m mypy.stubtest kabe)
# The walkthrough's default games need Russian tables up to 5 pieces; else a 10x10 file.
games=data/games/international.pdn
if "$work/venv-source/bin/python" -c 'import kabe, sys; sys.exit(kabe.open_tablebase(sys.argv[1]).max_pieces("russian") < 5)' "$tables"; then
  games=data/games/russian-rules.pdn
fi
"$work/venv-source/bin/python" python/examples/game_walkthrough.py "$tables" "$games" >"$work/walkthrough.txt"
head -n 6 "$work/walkthrough.txt"

echo "== python: the sdist, built and installed in a fresh venv"
fresh_venv "$work/venv-sdist"
"$work/venv-sdist/bin/pip" install --quiet maturin pytest
rm -rf "$work/dist"
"$work/venv-sdist/bin/maturin" sdist --manifest-path python/Cargo.toml --out "$work/dist" 2>&1 | tail -n 1
# The sdist's own sources, compiled against the dependencies already built for step 1
# (CARGO_TARGET_DIR): the same build, without compiling pyo3 and zstd again.
CARGO_TARGET_DIR=$root/python/target "$work/venv-sdist/bin/pip" install --quiet "$work"/dist/kabe-*.tar.gz
(cd python/tests && "$work/venv-sdist/bin/python" -m pytest -q -p no:cacheprovider --ignore=test_pydraughts.py)

echo "== python: against py-draughts (its own venv)"
fresh_venv "$work/venv-pydraughts"
"$work/venv-pydraughts/bin/pip" install --quiet py-draughts pytest ./python
(cd python/tests && KABE_REQUIRE_PYDRAUGHTS=1 "$work/venv-pydraughts/bin/python" -m pytest -q -s -p no:cacheprovider test_pydraughts.py)
