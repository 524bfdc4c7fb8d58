// Temperature scales the logits, softmax turns them into probabilities, and top-k and top-p cut the unlikely
// tail. Sampler and the pipeline view both call these; changing one changes both.
#include "sampling/sampling_steps.hpp"

#include <algorithm>
#include <numeric>

#include "kernels/kernels.hpp"

namespace glassbox::sampling {

std::vector<float> tempered_probabilities(std::span<const float> logits, float temperature) {
  // (logit - max) / temperature rather than logit * (1 / temperature): for a tiny temperature 1 / t is
  // infinite and the product gives inf - inf = NaN, while this gives 0 for the best token and -inf (a
  // probability of 0) for the rest, the greedy limit that a temperature near 0 should approach.
  const float max_logit = *std::max_element(logits.begin(), logits.end());
  std::vector<float> probabilities(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i)
    probabilities[i] = (logits[i] - max_logit) / temperature;
  kernels::softmax(probabilities.data(), probabilities.size());
  return probabilities;
}

Cut cut_tail(std::span<const float> probabilities, int top_k, float top_p) {
  Cut cut;
  std::vector<int>& order = cut.order;
  order.resize(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  // Most likely first; equal probabilities keep id order so the result never depends on the sort's whims.
  auto more_likely = [&](int a, int b) {
    return probabilities[a] != probabilities[b] ? probabilities[a] > probabilities[b] : a < b;
  };
  const std::size_t n = order.size();
  if (top_k > 0 && static_cast<std::size_t>(top_k) < n) {
    const auto k = static_cast<std::ptrdiff_t>(top_k);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), more_likely);
    order.resize(static_cast<std::size_t>(k));
    cut.top_k_applied = true;
  } else if (top_p < 1.0f) {
    // Only the most likely token can be in the nucleus with a probability below (1 - p) / (n - 1): were
    // another one needed, it and the tokens after it (at most n - 1, each no more likely) would hold more
    // than 1 - p. So drop the rest of those before sorting (llama2.c's shortcut; it saves sorting the tail).
    const float cutoff = (1.0f - top_p) / static_cast<float>(n - 1);
    const int most_likely = static_cast<int>(std::max_element(probabilities.begin(), probabilities.end()) -
                                             probabilities.begin());
    std::erase_if(order, [&](int id) { return probabilities[id] < cutoff && id != most_likely; });
    std::sort(order.begin(), order.end(), more_likely);
  }
  // With neither cut, the candidates stay in id order: a plain draw from the whole distribution.

  cut.top_p_kept = order.size();
  if (top_p < 1.0f) {
    // The smallest prefix whose probability mass reaches top_p (measured on the top-k survivors' mass).
    const double total = mass(probabilities, order);
    double kept = 0.0;
    std::size_t prefix = 0;
    while (prefix < order.size()) {
      kept += probabilities[order[prefix++]];
      if (kept >= top_p * total) break;
    }
    cut.top_p_kept = prefix;
  }
  return cut;
}

double mass(std::span<const float> probabilities, std::span<const int> ids) {
  double total = 0.0;
  for (int id : ids)
    total += probabilities[id];
  return total;
}

}  // namespace glassbox::sampling
