// libFuzzer harness: arbitrary bytes encoded and decoded by real tokenizers (fuzz/entry_points.hpp).
#include "entry_points.hpp"

// No tokenizer to fuzz is a broken set-up, not a pass.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::size_t count = glassbox::fuzz::real_tokenizers().size();
  std::fprintf(stderr, "tokenize fuzzer: %zu tokenizers loaded\n", count);
  if (count == 0) {
    std::fprintf(stderr, "tokenize fuzzer: no tokenizer found (set GLASSBOX_FUZZ_TOKENIZERS)\n");
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const glassbox::fuzz::Outcome outcome = glassbox::fuzz::tokenize(data, size);
  if (!outcome.problem.empty()) glassbox::fuzz::report_problem(outcome.problem);
  return 0;
}
