// libFuzzer harness: Hugging Face folder (config.json, then model.safetensors after a separator line) (fuzz/entry_points.hpp).
#include "entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const glassbox::fuzz::Outcome outcome = glassbox::fuzz::hf_folder(data, size);
  if (!outcome.problem.empty()) glassbox::fuzz::report_problem(outcome.problem);
  return 0;
}
