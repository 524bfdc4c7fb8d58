// Choosing the next token from logits: greedy, or random with temperature, top-k and top-p, driven by a
// seeded generator so that the same seed always gives the same tokens on every platform.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

// xorshift64*, the generator of llama2.c: tiny, fast, and the same sequence everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed == 0 ? 0x9E3779B97F4A7C15ull : seed) {}
  uint32_t next_u32();
  float next_float();  // uniform in [0, 1)

 private:
  uint64_t state_;
};

// The defaults here are the only ones: the CLI's flags, the JS engine and the page's controls all start from
// them (llama2.c's temperature 1 and top-p 0.9; a fixed seed, so a first run is reproducible).
struct SamplerSettings {
  float temperature = 1.0f;  // 0: greedy (always the most likely token)
  int top_k = 0;             // keep the k most likely tokens; 0: off
  float top_p = 0.9f;        // keep the smallest set of most likely tokens whose mass reaches p; 1: off
  uint64_t seed = 42;
};

// Rejects settings outside their ranges (negative temperature, top_p outside (0, 1], negative top_k).
Result<void> validate(const SamplerSettings& settings);

class Sampler {
 public:
  explicit Sampler(SamplerSettings settings) : settings_(settings), rng_(settings.seed) {}

  // Picks a token id from logits (one per vocabulary entry). Draws one random number per call when not
  // greedy.
  int sample(std::span<const float> logits);

  // The candidates that survive temperature, top-k and top-p, most likely first, with renormalized
  // probabilities. sample() draws from exactly this list; the page shows it.
  struct Candidate {
    int id;
    float probability;
  };
  std::vector<Candidate> candidates(std::span<const float> logits) const;

  const SamplerSettings& settings() const { return settings_; }

 private:
  SamplerSettings settings_;
  Rng rng_;
};

int argmax(std::span<const float> values);

}  // namespace glassbox
