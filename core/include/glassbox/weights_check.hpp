// `glassbox check`: what loading a model does not look at. Loading already verifies every tensor's shape, type
// and byte range against the file; it never reads the values, so a file whose weights hold NaN or infinity
// loads and then produces NaN logits many layers later. check_weights decodes every value once and names the
// tensors that are not finite.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glassbox/model.hpp"

namespace glassbox {

struct TensorCheck {
  std::string name;  // for_each_weight's name: "layers.3.wq"
  DType type = DType::F32;
  int64_t rows = 0, cols = 0;
  int64_t nan = 0, infinite = 0;  // decoded values that are NaN, and +-infinity
  int64_t first_bad = -1;         // index (row * cols + col) of the first non-finite value; -1 if none
  float max_abs = 0;              // largest finite magnitude

  bool finite() const { return nan == 0 && infinite == 0; }
};

struct WeightsCheck {
  std::vector<TensorCheck> tensors;  // every present tensor, in for_each_weight's order
  int non_finite_tensors = 0;
};

// Decodes every tensor of the model (one row at a time, with the engine's own decoders) and counts its
// non-finite values.
WeightsCheck check_weights(const Model& model);

// "layers.3.wq (Q8_0, 64 x 64): 2 NaN, 1 infinite; the first at row 0, column 5"
std::string describe(const TensorCheck& check);

}  // namespace glassbox
