// Sampling: temperature scales the logits, softmax turns them into probabilities, top-k and top-p cut the
// unlikely tail, and one uniform draw picks from what is left (inverse CDF over the sorted candidates).
#include "glassbox/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "glassbox/error.hpp"
#include "kernels/kernels.hpp"

namespace glassbox {

uint32_t Rng::next_u32() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return static_cast<uint32_t>((state_ * 0x2545F4914F6CDD1Dull) >> 32);
}

float Rng::next_float() {
  return static_cast<float>(next_u32() >> 8) / 16777216.0f;
}

Result<void> validate(const SamplerSettings& s) {
  if (!(s.temperature >= 0.0f && std::isfinite(s.temperature)))
    return error(ErrorCode::BadArgument, "temperature must be a finite number >= 0, found ", s.temperature);
  if (s.top_k < 0)
    return error(ErrorCode::BadArgument, "top-k must be >= 0 (0 turns it off), found ", s.top_k);
  if (!(s.top_p > 0.0f && s.top_p <= 1.0f))
    return error(ErrorCode::BadArgument, "top-p must be in (0, 1] (1 turns it off), found ", s.top_p);
  return ok();
}

int argmax(std::span<const float> values) {
  return static_cast<int>(std::max_element(values.begin(), values.end()) - values.begin());
}

std::vector<Sampler::Candidate> Sampler::candidates(std::span<const float> logits) const {
  std::vector<Candidate> out;
  if (logits.empty()) return out;
  if (settings_.temperature == 0.0f) {
    out.push_back({argmax(logits), 1.0f});
    return out;
  }
  // (logit - max) / temperature rather than logit * (1 / temperature): for a tiny temperature 1 / t is
  // infinite and the product gives inf - inf = NaN, while this gives 0 for the best token and -inf (a
  // probability of 0) for the rest, the greedy limit that a temperature near 0 should approach.
  const float max_logit = *std::max_element(logits.begin(), logits.end());
  std::vector<float> probabilities(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i)
    probabilities[i] = (logits[i] - max_logit) / settings_.temperature;
  kernels::softmax(probabilities.data(), probabilities.size());

  std::vector<int> order(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  // Most likely first; equal probabilities keep id order so the result never depends on the sort's whims.
  auto more_likely = [&](int a, int b) {
    return probabilities[a] != probabilities[b] ? probabilities[a] > probabilities[b] : a < b;
  };
  const std::size_t n = order.size();
  if (settings_.top_k > 0 && static_cast<std::size_t>(settings_.top_k) < n) {
    const auto k = static_cast<std::ptrdiff_t>(settings_.top_k);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), more_likely);
    order.resize(static_cast<std::size_t>(k));
  } else if (settings_.top_p < 1.0f) {
    // Only the most likely token can be in the nucleus with a probability below (1 - p) / (n - 1): were
    // another one needed, it and the tokens after it (at most n - 1, each no more likely) would hold more
    // than 1 - p. So drop the rest of those before sorting (llama2.c's shortcut; it saves sorting the tail).
    const float cutoff = (1.0f - settings_.top_p) / static_cast<float>(n - 1);
    const int most_likely = argmax(probabilities);
    std::erase_if(order, [&](int id) { return probabilities[id] < cutoff && id != most_likely; });
    std::sort(order.begin(), order.end(), more_likely);
  }
  // With neither cut, the candidates stay in id order: a plain draw from the whole distribution.

  if (settings_.top_p < 1.0f) {
    // The smallest prefix whose probability mass reaches top_p (measured on the top-k survivors' mass).
    double total = 0.0;
    for (int id : order)
      total += probabilities[id];
    double mass = 0.0;
    std::size_t prefix = 0;
    while (prefix < order.size()) {
      mass += probabilities[order[prefix++]];
      if (mass >= settings_.top_p * total) break;
    }
    order.resize(prefix);
  }

  double kept_mass = 0.0;
  for (int id : order)
    kept_mass += probabilities[id];
  for (int id : order)
    out.push_back({id, static_cast<float>(probabilities[id] / kept_mass)});
  return out;
}

int Sampler::sample(std::span<const float> logits) {
  if (settings_.temperature == 0.0f || logits.size() <= 1) return logits.empty() ? 0 : argmax(logits);
  const std::vector<Candidate> pool = candidates(logits);
  const float coin = rng_.next_float();
  float cdf = 0.0f;
  for (const Candidate& c : pool) {
    cdf += c.probability;
    if (coin < cdf) return c.id;
  }
  return pool.back().id;  // rounding left the total a hair under the coin
}

}  // namespace glassbox
