#include <algorithm>
#include <numeric>

#include "glassbox/top_tokens.hpp"
#include "kernels/kernels.hpp"

namespace glassbox {

std::vector<TokenProbability> top_tokens(std::span<const float> logits, int k) {
  std::vector<float> probabilities(logits.begin(), logits.end());
  kernels::softmax(probabilities.data(), probabilities.size());
  std::vector<int> order(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  const auto keep = static_cast<std::size_t>(std::clamp<int>(k, 0, static_cast<int>(order.size())));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](int a, int b) { return logits[a] != logits[b] ? logits[a] > logits[b] : a < b; });
  std::vector<TokenProbability> out;
  for (std::size_t i = 0; i < keep; ++i)
    out.push_back({order[i], logits[order[i]], probabilities[order[i]]});
  return out;
}

}  // namespace glassbox
