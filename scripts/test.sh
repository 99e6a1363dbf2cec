#!/usr/bin/env bash
# The one test command (README "Run every test"; .ci/run calls exactly this).
# Installs nothing by hand: Rust comes with the machine; crates come from crates.io.
set -euo pipefail
cd "$(dirname "$0")/.."

root=$(pwd)
export VTDX_CORPUS="${VTDX_CORPUS:-$root/../shared/corpus}"
if [ ! -d "$VTDX_CORPUS/xmlconf" ]; then
    echo "ERROR: the shared test corpus is missing at $VTDX_CORPUS (set VTDX_CORPUS)." >&2
    exit 1
fi

echo "== build (release)"
cargo build --release --workspace --all-targets

echo "== Python test dependency: lxml (the differential tests compare against it)"
python3 -m pip install -q --disable-pip-version-check lxml

echo "== unit, integration, property and doc tests"
cargo test --release --workspace

echo "== W3C XML conformance suite"
cargo run --release -q -p vtdx-conformance

echo "== side-by-side benchmark harness (quick)"
bash bench/run --quick

echo "== all tests passed"
