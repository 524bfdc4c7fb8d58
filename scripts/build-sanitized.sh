#!/usr/bin/env bash
# Configures (the first time) and builds one of the two sanitizer builds that scripts/test.sh --deep runs:
#   scripts/build-sanitized.sh asan [target ...]   build-asan/: clang-14 with AddressSanitizer, UndefinedBehavior-
#       Sanitizer and libFuzzer's coverage on every target. One build serves both the whole test suite under
#       ASan+UBSan and the libFuzzer harnesses (scripts/fuzz.sh), so the core is compiled once for both.
#       Where the CPU has AVX2, FMA and F16C the build targets exactly them, so the AVX2 kernels (the byte
#       products of prompts among them) are checked bit for bit on any such machine, AVX-512 ones included,
#       whose native build takes other kernels.
#   scripts/build-sanitized.sh tsan [target ...]   build-tsan/: g++ with ThreadSanitizer, without -march=native
#       (so it also checks the kernels' bits at SSE2 width, the integer products' float kernel among them).
# Both at -O1 with line tables. Default targets: asan, everything the suite needs (glassbox_tests) and the fuzzers; tsan, the
# suites ThreadSanitizer runs (glassbox_thread_tests, tests/CMakeLists.txt).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
kind="${1:-}"
shift || true
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
fi
# Line tables only (-gline-tables-only, g++'s -g1): what a sanitizer's report needs to name files and lines,
# at about half the compile time of full debug information on the template-heavy files (forward.cpp: 21 s ->
# 11 s under clang with ASan).
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
        -DGLASSBOX_NATIVE_ARCH=OFF "${launcher[@]}"
        # The NumPy fixtures are read from the native build (scripts/test.sh runs its tests first).
        "-DGLASSBOX_NATIVE_BUILD_DIR=$root/build")
case "$kind" in
  asan)
    dir=build-asan
    targets=("$@")
    [ ${#targets[@]} -gt 0 ] || targets=(glassbox_tests fuzzers)
    if [ ! -f "$dir/CMakeCache.txt" ]; then
      isa_flags=""
      if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && grep -qw f16c /proc/cpuinfo; then
        isa_flags="-mavx2 -mfma -mf16c"
      fi
      CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" "${common[@]}" -DCMAKE_CXX_FLAGS="$isa_flags" \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DGLASSBOX_FUZZ=ON
    fi
    ;;
  tsan)
    dir=build-tsan
    targets=("$@")
    [ ${#targets[@]} -gt 0 ] || targets=(glassbox_thread_tests)
    if [ ! -f "$dir/CMakeCache.txt" ]; then
      cmake -S . -B "$dir" "${common[@]}" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DGLASSBOX_SANITIZE=thread
    fi
    ;;
  *) echo "build-sanitized.sh: expected 'asan' or 'tsan', got '$kind'" >&2; exit 2 ;;
esac
cmake --build "$dir" --parallel --target "${targets[@]}"
