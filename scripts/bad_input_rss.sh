#!/usr/bin/env bash
# Peak resident memory of `gqlnav` on the bad-input catalogue's schema files (the test
# crates/cli/tests/bad_input.rs asserts the errors; this measures memory). Needs GNU time
# (/usr/bin/time). Usage: scripts/bad_input_rss.sh [BINARY]
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/gqlnav}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
head -c $((10 * 1024 * 1024)) /dev/zero > "$T/nul10m.graphql"
head -c $((2 * 1024 * 1024)) /dev/urandom > "$T/random.graphql"
python3 -c "import random,string; random.seed(1); print(''.join(random.choice(string.printable) for _ in range(8_000_000)))" > "$T/printable8m.graphql"
python3 -c "print('type Query { ' + ' '.join(f'f{i}: Int' for i in range(900_000)) + ' }')" > "$T/wide.graphql"
printf '| input | exit | peak RSS (MB) | seconds | first line of the error |\n| --- | ---: | ---: | ---: | --- |\n'
for f in /dev/zero "$T/nul10m.graphql" "$T/random.graphql" "$T/printable8m.graphql" "$T/wide.graphql" benchmarks/wg/schemas/github/schema.graphql; do
  /usr/bin/time -f "%M %e" -o "$T/time" "$BIN" search "pull requests" --schema "$f" -k 1 > /dev/null 2> "$T/err"
  rc=$?
  read -r kb secs < <(tail -1 "$T/time")
  err=$(grep -v "^\s*$" "$T/err" | grep -v "Command exited" | head -1 | cut -c1-110)
  printf '| %s | %s | %s | %s | %s |\n' "$(basename "$f")" "$rc" "$((kb / 1024))" "$secs" "$err"
done
