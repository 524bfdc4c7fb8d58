// libFuzzer harness: any model file, opened and run one step (fuzz/entry_points.hpp).
#include "entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const glassbox::fuzz::Outcome outcome = glassbox::fuzz::open_model_and_step(data, size);
  if (!outcome.problem.empty()) glassbox::fuzz::report_problem(outcome.problem);
  return 0;
}
