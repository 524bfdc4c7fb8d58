#!/usr/bin/env bash
# Builds llama.cpp's own benchmark and quantizer (llama-bench, llama-quantize) from the llama.cpp source that
# node-llama-cpp ships (tests/peers/node_modules/node-llama-cpp/llama/gitRelease.bundle), CPU only, into
# build-peers/ (git-ignored). The benchmark's native peer: llama-bench runs llama.cpp without node-llama-cpp's
# JavaScript thread, which on a 2-core machine competes with llama.cpp's own threads.
# Idempotent: does nothing when both programs are built. Prints their paths.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/build-peers/llama.cpp"
out="$root/build-peers/llama.cpp-build"
bundle="$root/tests/peers/node_modules/node-llama-cpp/llama/gitRelease.bundle"
if [ -x "$out/bin/llama-bench" ] && [ -x "$out/bin/llama-quantize" ]; then
  echo "$out/bin/llama-bench"
  echo "$out/bin/llama-quantize"
  exit 0
fi
[ -f "$bundle" ] || { echo "build-llama-peers: $bundle is missing (run scripts/install-deps.sh)" >&2; exit 1; }
[ -d "$src" ] || git clone -q "$bundle" "$src"
cmake -S "$src" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DGGML_NATIVE=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >&2
cmake --build "$out" --target llama-bench llama-quantize --parallel 2 >&2
echo "$out/bin/llama-bench"
echo "$out/bin/llama-quantize"
