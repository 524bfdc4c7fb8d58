// glassbox bench --lengths: prefill time, per-token time and memory against the length of the text, for each
// attention variant, beside the seeds' formulas (glassbox/length_cost.hpp).
#pragma once

#include <string>

#include "glassbox/result.hpp"

namespace glassbox::cli {

struct LengthsOptions {
  std::string model;
  std::string lengths;    // "64,128,256"; those past the model's context are skipped, and named
  std::string attention;  // "exact,window:64,linear"; empty: length_cost.hpp's default variants
  int threads = 1;
  int repeat = 3;
  bool json = false;
};

Result<void> bench_lengths(const LengthsOptions& options);

}  // namespace glassbox::cli
