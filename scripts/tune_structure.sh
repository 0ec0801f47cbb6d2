#!/usr/bin/env bash
# Evaluate structure-ranker weight overrides on github + linear (both target modes).
# Aggregate metrics only: tuning never looks at individual questions.
# usage: scripts/tune_structure.sh 'path=0.5,selection=0.4' 'depth=0.2' ...
set -euo pipefail
BIN=${BIN:-./target/debug/gqlnav}
for w in "$@"; do
  line="$w"
  for sid in github linear; do
    for t in must target; do
      r=$($BIN bench -q benchmarks/wg/queries --schema-id $sid --targets $t --backend structure --weights "$w" --json 2>/dev/null |
        python3 -c "import json,sys; r=json.load(sys.stdin)['runs'][0]; print(f\"{r['recall']['10']:.3f}/{r['recall']['50']:.3f}/{r['mrr']:.3f}/{r['budget']['500']:.3f}\")")
      line="$line | $sid-$t $r"
    done
  done
  echo "$line"
done
