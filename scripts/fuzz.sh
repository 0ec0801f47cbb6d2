#!/usr/bin/env bash
# Long fuzz runs: each target of crates/cli/tests/fuzz.rs for MINUTES (default 30), in
# release, all targets side by side (JOBS at a time, default: all). Prints the cases each
# target tried; a failure prints the shrunk input (make it a regression test in the crate
# that owns the parser). Logs go to target/fuzz-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-30}
JOBS=${JOBS:-6}
TARGETS=(fuzz_sdl_loading fuzz_introspection_json fuzz_coordinates fuzz_operations_through_cost_and_validation fuzz_wg_yaml_and_tsv fuzz_cursor_decoder)
cargo test --release -p gqlnav --test fuzz --no-run 2>&1 | tail -1
BIN=$(ls -t target/release/deps/fuzz-* | grep -v '\.d$' | head -1)
mkdir -p target/fuzz-logs
export GQLNAV_FUZZ_SECONDS=$((MINUTES * 60))
pids=()
for t in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 5; done
  echo "fuzz: $t for $MINUTES min" >&2
  ( "$BIN" --exact "$t" --nocapture > "target/fuzz-logs/$t.log" 2>&1; echo "exit $?" >> "target/fuzz-logs/$t.log" ) &
  pids+=($!)
done
wait "${pids[@]}"
status=0
for t in "${TARGETS[@]}"; do
  line=$(grep -h "fuzz target\|failed" "target/fuzz-logs/$t.log" | tail -1)
  echo "$t: $line"
  grep -q "^exit 0" "target/fuzz-logs/$t.log" || status=1
done
exit $status
