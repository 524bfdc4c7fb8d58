#!/usr/bin/env bash
# Checks that the WebAssembly engine's kernels really run on SIMD128: xsimd's SSE4.1 code must have become
# f32x4 arithmetic. Disassembles the module with wasm-objdump (Debian's wabt) and counts the instructions.
#   tests/wasm/check-simd128.sh build-wasm/glassbox-engine.wasm
set -euo pipefail
module="${1:?usage: check-simd128.sh MODULE.wasm}"
listing="$(wasm-objdump -d "$module")"
count() { grep -c "$1" <<<"$listing" || true; }
mul=$(count 'f32x4.mul')
add=$(count 'f32x4.add')
echo "$(basename "$module"): f32x4.mul $mul, f32x4.add $add, v128.load $(count 'v128.load'), f32x4 in all $(count 'f32x4')"
# The dot products, matvec, norms, softmax, activations and RoPE each contribute several; a scalar build has none.
if [ "$mul" -lt 50 ] || [ "$add" -lt 50 ]; then
  echo "too few f32x4 instructions: the kernels were not compiled for SIMD128" >&2
  exit 1
fi
