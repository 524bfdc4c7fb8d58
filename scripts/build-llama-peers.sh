#!/usr/bin/env bash
# Builds llama.cpp's own benchmark and quantizer (llama-bench, llama-quantize) from the llama.cpp source that
# node-llama-cpp ships (tests/peers/node_modules/node-llama-cpp/llama/gitRelease.bundle), CPU only, into
# build-peers/ (git-ignored). Idempotent: builds nothing that is already built. Prints the programs' paths.
#
#   scripts/build-llama-peers.sh            llama-bench, then llama-quantize, the whole of llama.cpp built from
#                                           source (the benchmark's native peer: llama-bench runs llama.cpp
#                                           without node-llama-cpp's JavaScript thread, which on a 2-core
#                                           machine competes with llama.cpp's own threads)
#   scripts/build-llama-peers.sh quantize   llama-quantize alone, for the tests: its own two source files
#                                           (tools/quantize) compiled and linked against the libraries
#                                           node-llama-cpp ships prebuilt from the same source (libllama,
#                                           libllama-common, libggml), so the quantizer is the very code the
#                                           cross-checks' llama.cpp runs, and writes files byte for byte
#                                           those of the first form's llama-quantize. About 2 s of CPU, where
#                                           the first form's llama-quantize alone takes about 8 minutes of CPU
#                                           (libllama and ggml, then libllama-common).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/build-peers/llama.cpp"
out="$root/build-peers/llama.cpp-build"
peers="$root/tests/peers/node_modules"
bundle="$peers/node-llama-cpp/llama/gitRelease.bundle"

source_tree() {
  [ -f "$bundle" ] || { echo "build-llama-peers: $bundle is missing (run scripts/install-deps.sh)" >&2; exit 1; }
  [ -d "$src" ] || git clone -q "$bundle" "$src"
}

if [ "${1:-all}" = quantize ]; then
  libs="$peers/@node-llama-cpp/linux-x64/bins/linux-x64"
  program="$root/build-peers/quantize/llama-quantize"
  if [ ! -x "$program" ]; then
    source_tree
    [ -f "$libs/libllama-common.so" ] ||
      { echo "build-llama-peers: $libs holds no prebuilt llama.cpp (run scripts/install-deps.sh)" >&2; exit 1; }
    llama=$(cd "$libs" && ls libllama.*so) ggml=$(cd "$libs" && ls libggml.*so)
    mkdir -p "$(dirname "$program")"
    c++ -std=c++17 -O1 -o "$program.partial" "$src/tools/quantize/quantize.cpp" "$src/tools/quantize/main.cpp" \
      -I "$src/include" -I "$src/ggml/include" -I "$src/common" -I "$src/tools/quantize" \
      -L "$libs" -lllama-common -l:"$llama" -l:"$ggml" -lggml-base -Wl,-rpath,"$libs" >&2
    mv "$program.partial" "$program"
  fi
  echo "$program"
  exit 0
fi
[ "$#" -eq 0 ] || { echo "usage: $0 [quantize]" >&2; exit 2; }

# ggml's instruction sets: -march=native (GGML_NATIVE), except on a CPU with AMX, where -march=native turns on
# ggml's AMX matrix kernels and llama-bench dies in them (SIGSEGV in ggml_backend_amx_mul_mat on the first
# prompt, seen on this project's 2-core Xeon VM); there every extension the CPU has but AMX, named one by one.
isa_options() {
  local flags
  flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null) "
  case "$flags" in *" amx_int8 "*) ;; *) echo "-DGGML_NATIVE=ON"; return ;; esac
  echo "-DGGML_NATIVE=OFF"
  local pair
  for pair in sse4_2:SSE42 avx:AVX avx2:AVX2 fma:FMA f16c:F16C bmi2:BMI2 avx_vnni:AVX_VNNI avx512bw:AVX512 \
    avx512vbmi:AVX512_VBMI avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16; do
    case "$flags" in *" ${pair%%:*} "*) echo "-DGGML_${pair##*:}=ON" ;; *) echo "-DGGML_${pair##*:}=OFF" ;; esac
  done
}
if [ ! -x "$out/bin/llama-bench" ] || [ ! -x "$out/bin/llama-quantize" ]; then
  source_tree
  [ -f "$out/CMakeCache.txt" ] ||
    cmake -S "$src" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF $(isa_options) \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >&2
  cmake --build "$out" --target llama-bench llama-quantize --parallel 2 >&2
fi
echo "$out/bin/llama-bench"
echo "$out/bin/llama-quantize"
