// Global-norm gradient clipping: the length of all the gradients together, as one vector,
//   norm = sqrt(sum over every tensor and element of g^2),
// and where it exceeds max_norm every gradient is scaled by max_norm / norm, so the step keeps its direction
// and its length is at most max_norm. A rare huge gradient (a spike of the loss) then cannot throw the
// weights far; ordinary steps are untouched.
#pragma once

#include <span>
#include <vector>

namespace glassbox::train {

// The sum of the squares of `values` in double, element i into the (i mod 8)-th of 8 running sums, which are
// then added in order: a fixed order (the same bits on any machine) whose 8 independent sums the compiler
// turns into SIMD lanes (summed one after another, the loop stayed scalar: 4% of a small model's step).
double sum_of_squares(std::span<const float> values);

// The global norm: the square root of the tensors' sum_of_squares, added in the order given.
double global_norm(const std::vector<std::span<float>>& gradients);

// Scales the gradients to max_norm where their global norm exceeds it (max_norm <= 0: no clipping). Returns
// the norm before clipping, what a training log reports; it is NaN or infinite where a gradient is, and then
// nothing is scaled (the caller stops: the step is not finite).
double clip_global_norm(const std::vector<std::span<float>>& gradients, double max_norm);

}  // namespace glassbox::train
