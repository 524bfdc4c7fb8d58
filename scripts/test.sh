#!/usr/bin/env bash
# The test command. Builds what changed, then runs:
#   scripts/test.sh          everything a change needs, in minutes: the native GoogleTest suite with the
#                            independent NumPy reference (then the conformance figures its tests printed), the
#                            same suite compiled to WebAssembly SIMD under Node (and the kernels' checksum both
#                            ways), the page's engine module under Node with native-versus-WASM determinism,
#                            the cross-checks against llama.cpp, and the page in Chromium, Firefox and WebKit
#   scripts/test.sh --deep   all of that, and the multi-threaded tests under ThreadSanitizer, the whole suite
#                            under AddressSanitizer + UndefinedBehaviorSanitizer, and every parser fuzzed for
#                            20 s (one clang build serves both: scripts/build-sanitized.sh), and the page's
#                            longest test (the trace budget over a whole context). .ci/run runs this.
# Each step prints its time, and a table of them ends the run. Any failure stops the script with a non-zero
# status. Tests that need a model file skip when it is absent, unless GLASSBOX_REQUIRE_MODELS=1 (as in CI).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
deep=0
for arg in "$@"; do
  case "$arg" in
    --deep) deep=1 ;;
    *) echo "test.sh: unknown argument '$arg' (expected --deep)" >&2; exit 2 ;;
  esac
done
# Emscripten's optimizer and the WASM tests import Debian's acorn, outside Node's default module path.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"

times=()
step_name=""
step_start=$SECONDS
end_step() {
  [ -n "$step_name" ] && times+=("$(printf '%5d s  %s' $((SECONDS - step_start)) "$step_name")")
  step_name=""
}
step() {
  end_step
  step_name="$*"
  step_start=$SECONDS
  printf '\n==== %s (at %d s) ====\n' "$*" "$SECONDS"
}
summary() {
  local status=$?
  end_step
  printf '\n==== step times ====\n'
  printf '%s\n' "${times[@]}"
  printf '%5d s  in all (%s)\n' "$SECONDS" "$([ "$status" = 0 ] && echo passed || echo "FAILED, exit $status")"
}
trap summary EXIT

# Runs independent steps side by side (each a shell function that keeps about one core busy), each into a log
# of its own, and prints the logs in turn once all have ended; fails if any failed.
together() {
  local title="$1" status i
  shift
  local names=("$@") pids=() failed=()
  step "$title"
  mkdir -p test-output/logs
  for name in "${names[@]}"; do
    "$name" >"test-output/logs/$name.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!names[@]}"; do
    status=0
    wait "${pids[$i]}" || status=$?
    printf '\n---- %s (exit %d) ----\n' "${names[$i]}" "$status"
    cat "test-output/logs/${names[$i]}.log"
    [ "$status" = 0 ] || failed+=("${names[$i]}")
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "test.sh: failed: ${failed[*]}" >&2
    return 1
  fi
}

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

step "build (native, WebAssembly, the page; with the test suites)"
scripts/build.sh --tests

step "native tests"
ctest --test-dir build --output-on-failure --parallel 2
step "conformance figures (tokenizer vectors, NumPy reference, golden tokens, Q8_0 conversion, Unicode)"
figures build 'vectors|largest difference|tokens agree|Q8_0|^convert |Unicode'

# The WebAssembly suite is one Node process (one core); the engine module's tests run beside it.
wasm_suite() { ctest --test-dir build-wasm --output-on-failure --parallel 2; }
engine_module() { node --test tests/wasm/; }
together "WebAssembly tests (GoogleTest under Node, SIMD128 check) | the engine module and determinism" \
  wasm_suite engine_module
step "the kernels' bits: the same checksum natively and in WebAssembly"
figures build 'kernel checksum'
figures build-wasm 'kernel checksum'
# Every tests/peers/*.test.mjs: llama.cpp's, and WordPiece against Hugging Face's tokenizers (wordpiece.test.mjs).
step "llama.cpp and Hugging Face cross-checks"
(cd tests/peers && node --test .)
# trace-budget.test.mjs generates 2,048 tokens of a 0.5B-shaped model in the page (minutes): --deep runs it.
step "browser tests (Chromium, Firefox ESR, WebKit)"
mapfile -t browser_tests < <(ls tests/browser/*.test.mjs | grep -v '/trace-budget\.test\.mjs$')
node --test --test-concurrency=1 "${browser_tests[@]}"

if [ "$deep" = 1 ]; then
  step "sanitizer builds (ThreadSanitizer; clang ASan+UBSan for the suite and the fuzzers)"
  scripts/build-sanitized.sh tsan
  scripts/build-sanitized.sh asan

  # Any report fails the run (exit code 66). The suite runs as two shards side by side (GoogleTest's sharding:
  # each test in exactly one), one per core: most of these tests keep about one core busy under TSan.
  tsan_shard() {
    TSAN_OPTIONS="halt_on_error=1 exitcode=66" GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX="$1" \
      build-tsan/tests/glassbox_thread_tests --gtest_brief=1 \
      --gtest_filter='Session*:Forward*:Generator*:ThreadPool*:KernelsBitExact*:QuantizedIntDot*:HeadAblation*:MeanAblation*:*AttentionDetail*:MeasureHeads*:HeadMeasurement*:Inspection*:*Encoder*:TrainTrainer.OneAndThreeThreads*'
  }
  tsan_shard_0() { tsan_shard 0; }
  tsan_shard_1() { tsan_shard 1; }
  together "ThreadSanitizer: sessions, encoders, forward pass, generator, thread pool, ablation, inspection and training" \
    tsan_shard_0 tsan_shard_1

  step "AddressSanitizer and UndefinedBehaviorSanitizer: the whole native suite"
  # CTest runs every test as in build/ (the CLI tests run the sanitized CLI; the NumPy fixtures are the ones
  # the native tests made in build/). Any report fails its test: undefined behaviour stops the program
  # (-fno-sanitize-recover), and so do a bad access and a leak.
  ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --test-dir build-asan --output-on-failure --parallel 2

  step "browser: the trace's memory budget over a whole context (0.5B-shaped model, 2,048 tokens)"
  node --test tests/browser/trace-budget.test.mjs

  step "fuzzing every parser (libFuzzer with ASan and UBSan, 20 s per harness)"
  scripts/fuzz.sh 20
fi
end_step
