#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/) with clang-14, ASan and UBSan in build-asan/ (the build that also runs
# the test suite under the same sanitizers: scripts/build-sanitized.sh), and runs each for a bounded time.
# Fails on any crash, leak, timeout, out-of-memory or sanitizer report (libFuzzer saves the input under build-asan/artifacts/; fuzz/README.md says how to turn it into a regression test).
#   scripts/fuzz.sh [seconds per harness, default 30] [harness ...]   (harnesses: fuzz/CMakeLists.txt)
# The corpora are seeded at run time from the real files (models/, ../shared, the generated fixtures in
# build/ when present), hand-made seeds (fuzz/corpus/), every saved regression (fuzz/regressions/) and a
# few malformed inputs (empty, truncated, random). What a run discovers stays in build-asan/corpus/*/found
# for the next run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
seconds="${1:-30}"
shift || true
all=(llama2c gguf safetensors hf_folder tokenizer_json tokenize open_model)
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")
build=build-asan
shared="$root/../shared"

"$root/scripts/build-sanitized.sh" asan fuzzers

# Copies the files that exist (up to 4 MB each) into a seed folder.
seed_files() {
  local dir="$1" f
  shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le $((4 << 20)) ] || continue
    cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"
  done
}

# A Hugging Face folder as one input: config.json, the separator line of fuzz/entry_points.hpp, the weights.
seed_hf_folders() {
  local dir="$1" folder
  for folder in build/fixtures/hf-*/; do
    [ -f "$folder/config.json" ] && [ -f "$folder/model.safetensors" ] || continue
    [ "$(stat -c %s "$folder/model.safetensors")" -le $((1 << 20)) ] || continue
    { cat "$folder/config.json"; printf '\n--model.safetensors--\n'; cat "$folder/model.safetensors"; } \
      >"$dir/$(basename "$folder").input"
  done
}

seed() {
  local name="$1" dir="$build/corpus/$1/seeds" f
  rm -rf "$dir"
  mkdir -p "$dir" "$build/corpus/$name/found"
  case "$name" in
    llama2c) seed_files "$dir" models/stories260K.bin models/tok512.bin models/tokenizer.bin \
                        "$shared"/models/*.bin ;;
    gguf) seed_files "$dir" models/stories260K.gguf build/fixtures/*.gguf "$shared"/tokenizer-vectors/*.gguf ;;
    safetensors) seed_files "$dir" build/fixtures/hf-*/*.safetensors ;;
    hf_folder) seed_hf_folders "$dir"; seed_files "$dir" build/fixtures/hf-*/config.json ;;
    tokenizer_json) seed_files "$dir" build/fixtures/hf-*/tokenizer.json build/extra-tokenizers/*.json ;;
    tokenize) seed_files "$dir" "$shared"/tokenizer-vectors/*.inp README.md ;;
    open_model) seed_files "$dir" models/stories260K.gguf models/stories260K.bin build/fixtures/*.gguf ;;
  esac
  [ -d "fuzz/corpus/$name" ] && cp fuzz/corpus/"$name"/* "$dir"/ 2>/dev/null || true
  for f in fuzz/regressions/"$name"-*; do [ -f "$f" ] && cp "$f" "$dir/"; done
  # Malformed: empty, random, and the first bytes of each real seed.
  : >"$dir/empty"
  head -c 512 /dev/urandom >"$dir/random"
  for f in "$dir"/*; do
    [ "$(stat -c %s "$f")" -gt 256 ] || continue
    head -c 64 "$f" >"$f.head64"
    head -c "$(($(stat -c %s "$f") / 2))" "$f" >"$f.half"
  done
}

# The tokenize harness: stories260K's SentencePiece-style tok512.bin and a byte-level BPE (GPT-2's vocabulary
# from ../shared, or else the copy the fixtures generator makes).
gpt2_vocab="$shared/tokenizer-vectors/ggml-vocab-gpt-2.gguf"
[ -f "$gpt2_vocab" ] || gpt2_vocab="$root/build/fixtures/gpt2-vocab.gguf"
export GLASSBOX_FUZZ_TOKENIZERS="${GLASSBOX_FUZZ_TOKENIZERS:-$root/models/tok512.bin:$gpt2_vocab}"
export TMPDIR="$root/$build/tmp"  # the hf_folder harness's scratch folder
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p "$build/artifacts" "$build/logs"

# One harness for `seconds`; its exit status goes to logs/<name>.status.
fuzz_one() {
  local name="$1" status=0
  # Text for the tokenizers: long inputs only slow the run (byte-level BPE is quadratic in a word's length).
  local max_len=()
  [ "$name" = tokenize ] && max_len=(-max_len=4096)
  "$build/fuzz/fuzz_$name" "$build/corpus/$name/found" "$build/corpus/$name/seeds" "${max_len[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$name-" >"$build/logs/$name.log" 2>&1 || status=$?
  echo "$status" >"$build/logs/$name.status"
}

# The harnesses run side by side, as many at a time as there are cores (each is one process), so the step
# takes about seconds x harnesses / cores.
jobs="${GLASSBOX_FUZZ_PARALLEL:-$(nproc)}"
start=$SECONDS
running=0
for name in "${harnesses[@]}"; do
  seed "$name"
  rm -f "$build/logs/$name.status"
  fuzz_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=()
for name in "${harnesses[@]}"; do
  printf '\n==== fuzz %s (%s s) ====\n' "$name" "$seconds"
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)|INFO: seed corpus' \
    "$build/logs/$name.log" || true
  status="$(cat "$build/logs/$name.status" 2>/dev/null || echo missing)"
  if [ "$status" != 0 ]; then
    tail -n 60 "$build/logs/$name.log"
    echo "fuzz.sh: $name failed (exit $status); input under $build/artifacts/" >&2
    failed+=("$name")
  else
    echo "fuzz.sh: $name passed"
  fi
done
echo "fuzz.sh: ${#harnesses[@]} harnesses, $jobs at a time, in $((SECONDS - start)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: failed: ${failed[*]}" >&2
  exit 1
fi
