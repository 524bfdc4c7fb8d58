// Sampling: the steps of sampling/sampling_steps.hpp (temperature, softmax, top-k, top-p) give the
// candidates, and one uniform draw picks from them (inverse CDF over the sorted candidates).
#include "glassbox/sampler.hpp"

#include <algorithm>
#include <cmath>

#include "glassbox/error.hpp"
#include "sampling/sampling_steps.hpp"

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
  const std::vector<float> probabilities = sampling::tempered_probabilities(logits, settings_.temperature);
  sampling::Cut cut = sampling::cut_tail(probabilities, settings_.top_k, settings_.top_p);
  cut.order.resize(cut.top_p_kept);
  const double kept_mass = sampling::mass(probabilities, cut.order);
  for (int id : cut.order)
    out.push_back({id, sampling::renormalized(probabilities[id], kept_mass)});
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
