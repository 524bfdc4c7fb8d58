// The steps from logits to the tokens a draw chooses among, stated once. Sampler::candidates() and sample()
// run them, and so does the sampling pipeline view (glassbox/sampling_pipeline.hpp), so what the page shows
// is, bit for bit, what the sampler did.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace glassbox::sampling {

// Step 1: softmax((logit - max) / temperature) over the whole vocabulary; temperature > 0.
std::vector<float> tempered_probabilities(std::span<const float> logits, float temperature);

// Steps 2 and 3: top-k, then top-p on what top-k kept.
struct Cut {
  // top_k_applied: exactly the tokens top-k kept, most likely first. Otherwise the tokens in the order a
  // draw walks them (id order when top-p is off too), possibly without some that top-p could never keep.
  std::vector<int> order;
  bool top_k_applied = false;
  std::size_t top_p_kept = 0;  // the candidates are order[0, top_p_kept)
};
Cut cut_tail(std::span<const float> probabilities, int top_k, float top_p);

// Step 4: renormalizing over what a cut kept: each kept probability divided by the kept tokens' mass.
double mass(std::span<const float> probabilities, std::span<const int> ids);
inline float renormalized(float probability, double kept_mass) {
  return static_cast<float>(probability / kept_mass);
}

}  // namespace glassbox::sampling
