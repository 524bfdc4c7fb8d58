#!/usr/bin/env bash
# Builds what changed and runs every test:
#   1. native GoogleTest suite (kernels, loaders, tokenizers, forward pass, CLI) plus the independent NumPy
#      reference, which writes the fixtures the C++ tests compare with
#   2. the same GoogleTest suite compiled to WebAssembly SIMD, under Node, and the SIMD128 instruction check
#   3. the page's engine module (Embind + wasm/engine.js) under Node, and native-versus-WASM determinism
#   4. cross-checks against llama.cpp (node-llama-cpp's prebuilt CPU build)
#   5. the page in headless Chromium
# Tests that need a model file skip when it is absent, unless GLASSBOX_REQUIRE_MODELS=1 (as in CI).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
"$root/scripts/build.sh"

step() { printf '\n==== %s ====\n' "$*"; }
step "native tests"
ctest --test-dir build --output-on-failure --parallel 2
step "conformance figures (tokenizer vectors, NumPy reference, Q8_0 conversion)"
build/tests/glassbox_tests --gtest_brief=1 \
  --gtest_filter='*Vectors*:*Fixture*:*Golden*:Convert.*:Bpe*Unicode*:*Conformance*' |
  grep -E "vectors|largest difference|tokens agree|Q8_0|Unicode|PASSED|FAILED" || true
step "WebAssembly tests (GoogleTest under Node, SIMD128 check)"
ctest --test-dir build-wasm --output-on-failure
step "WebAssembly engine module and determinism"
node --test tests/wasm/
step "llama.cpp cross-checks"
(cd tests/peers && node --test .)
step "browser tests (headless Chromium)"
node --test --test-concurrency=1 tests/browser/
