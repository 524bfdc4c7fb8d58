#!/usr/bin/env bash
# Builds what changed and runs every test:
#   1. native GoogleTest suite (kernels, loaders, tokenizers, forward pass, CLI) plus the independent NumPy
#      reference, which writes the fixtures the C++ tests compare with; then the conformance figures those
#      tests printed (read from CTest's log, not by running anything again)
#   2. the multi-threaded tests (sessions, forward pass, generator, thread pool, ablation, inspection) under
#      ThreadSanitizer
#   2b. the whole native suite under AddressSanitizer and UndefinedBehaviorSanitizer, then every parser
#      fuzzed for 30 s each (scripts/fuzz.sh: libFuzzer, clang-14)
#   3. the same GoogleTest suite compiled to WebAssembly SIMD, under Node, and the SIMD128 instruction check
#   4. the page's engine module (Embind + wasm/engine.js) under Node, and native-versus-WASM determinism
#   5. cross-checks against llama.cpp (node-llama-cpp's prebuilt CPU build)
#   6. the page in headless Chromium
# Any failure stops the script with a non-zero status.
# Tests that need a model file skip when it is absent, unless GLASSBOX_REQUIRE_MODELS=1 (as in CI).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
"$root/scripts/build.sh"

step() { printf '\n==== %s (at %d s) ====\n' "$*" "$SECONDS"; }
# Prints what the tests printed (CTest keeps every test's output in Testing/Temporary/LastTest.log) on lines
# matching a pattern, without CTest's and GoogleTest's own lines, which name the tests. Finding none is not an
# error (the tests that print them skip without their model files); an unreadable log is.
figures() {
  local log="$1/Testing/Temporary/LastTest.log" status=0
  [ -r "$log" ] || { echo "test.sh: no CTest log at $log" >&2; return 1; }
  awk '/^<end of output>$/ { output = 0 } output { print } /^Output:$/ { getline; output = 1 }' "$log" |
    grep -vE '^(\[|Note: )' | grep -E "$2" || status=$?
  [ "$status" -le 1 ]
}

step "native tests"
ctest --test-dir build --output-on-failure --parallel 2
step "conformance figures (tokenizer vectors, NumPy reference, golden tokens, Q8_0 conversion, Unicode)"
figures build 'vectors|largest difference|tokens agree|Q8_0|^convert |Unicode'

step "ThreadSanitizer: sessions, forward pass, generator, thread pool, ablation and inspection"
# A separate build with -fsanitize=thread, at -O1 and without -march=native (so it also checks the kernels'
# bits at SSE2 width, the integer products' float kernel among them); only the test binary. Any report fails
# the run (exit code 66).
if [ ! -f build-tsan/CMakeCache.txt ]; then
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DGLASSBOX_SANITIZE=thread -DGLASSBOX_NATIVE_ARCH=OFF
fi
cmake --build build-tsan --parallel --target glassbox_tests
TSAN_OPTIONS="halt_on_error=1 exitcode=66" build-tsan/tests/glassbox_tests --gtest_brief=1 \
  --gtest_filter='Session*:Forward*:Generator*:ThreadPool*:KernelsBitExact*:QuantizedIntDot*:HeadAblation*:*AttentionDetail*:MeasureHeads*:Inspection*'

step "AddressSanitizer and UndefinedBehaviorSanitizer: the whole native suite"
# A separate build with -fsanitize=address,undefined, at -O1 and without -march=native; CTest runs every test
# as in build/ (the CLI tests run the sanitized CLI; the reference fixtures are generated again in
# build-asan/). Any report fails its test: undefined behaviour stops the program (-fno-sanitize-recover),
# and so do a bad access and a leak. Where the CPU has AVX2, FMA and F16C the build targets exactly them, so
# the AVX2 kernels (the byte products of prompts among them) are checked bit for bit on any such machine,
# AVX-512 ones included, whose native build takes other kernels; the ThreadSanitizer build above covers SSE2.
if [ ! -f build-asan/CMakeCache.txt ]; then
  isa_flags=""
  if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && grep -qw f16c /proc/cpuinfo; then
    isa_flags="-mavx2 -mfma -mf16c"
  fi
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_CXX_FLAGS="$isa_flags" -DGLASSBOX_SANITIZE=address,undefined -DGLASSBOX_NATIVE_ARCH=OFF
fi
cmake --build build-asan --parallel --target glassbox_tests
ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  ctest --test-dir build-asan --output-on-failure --parallel 2 -E '^reference\.self_check$'

step "fuzzing every parser (libFuzzer with ASan and UBSan, 30 s per harness)"
scripts/fuzz.sh 30

step "WebAssembly tests (GoogleTest under Node, SIMD128 check)"
ctest --test-dir build-wasm --output-on-failure
step "the kernels' bits: the same checksum natively and in WebAssembly"
figures build 'kernel checksum'
figures build-wasm 'kernel checksum'
step "WebAssembly engine module and determinism"
node --test tests/wasm/
step "llama.cpp cross-checks"
(cd tests/peers && node --test .)
step "browser tests (headless Chromium)"
node --test --test-concurrency=1 tests/browser/
step "done"
