// Numerically stable softmax: subtracting the maximum first keeps every exponent <= 0, so nothing
// overflows however large the scores are. Entries at and past `limit` are masked (set to exactly 0).
#include <algorithm>

#include "exp_approx.hpp"

namespace glassbox::kernels {

void softmax(float* x, std::size_t n, std::size_t limit) {
  limit = std::min(limit, n);
  std::fill(x + limit, x + n, 0.0f);
  if (limit == 0) return;

  float max_value = x[0];
  for (std::size_t i = 1; i < limit; ++i)
    max_value = std::max(max_value, x[i]);

  const Batch m(max_value);
  map_in_place(x, limit, [&](Batch v) { return exp_approx(v - m); });
  const Batch total(sum(x, limit));  // >= 1: the maximum contributes e^0
  map_in_place(x, limit, [&](Batch v) { return v / total; });
}

}  // namespace glassbox::kernels
