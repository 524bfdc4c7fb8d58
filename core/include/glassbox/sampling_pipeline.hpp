// What the sampler does to the next-token distribution, step by step, for the page to show: the
// probabilities at temperature 1, after the temperature, after top-k and after top-p (each cut renormalized
// over what it kept), and where the cuts fall. Computed by the very steps Sampler::candidates() and sample()
// run (core/src/sampling/sampling_steps.hpp), so the last column is exactly the sampler's candidate list.
#pragma once

#include <span>
#include <vector>

#include "glassbox/sampler.hpp"

namespace glassbox {

struct PipelineToken {
  int id = 0;
  float logit = 0;
  float p_temperature_1 = 0;  // softmax of the logits as they are
  float p_temperature = 0;    // softmax at the settings' temperature
  float p_top_k = 0;  // renormalized over the tokens top-k kept; 0 if cut; p_temperature when top-k is off
  float p_top_p = 0;  // renormalized over the final candidates; 0 if cut: what sample() draws from
  bool kept_by_top_k = false;
  bool kept_by_top_p = false;  // a final candidate (top-p runs on what top-k kept, so this implies the above)
};

struct SamplingPipeline {
  std::vector<PipelineToken> tokens;  // the top N by logit, highest first (ties: lower id first)
  int vocab_size = 0;
  int top_k_kept = 0;  // tokens that survive top-k (the whole vocabulary when top-k is off)
  int top_p_kept = 0;  // tokens that survive top-p after top-k: the number of candidates
};

// The pipeline for `logits` under `settings`, shown for the `top_n` tokens of highest logit (clamped to the
// vocabulary). Temperature 0 is greedy: the tempered distribution is all mass on the argmax (the limit of a
// temperature going to 0, and what sample() returns), so p_temperature, p_top_k and p_top_p are 1 there and 0
// elsewhere, and both cuts keep 1 token. Empty logits give an empty pipeline.
SamplingPipeline sampling_pipeline(std::span<const float> logits, const SamplerSettings& settings, int top_n);

}  // namespace glassbox
