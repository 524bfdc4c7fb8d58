// Head ablation: switching attention heads off, or scaling them, to see what they contribute. A head's
// output (its attention-weighted sum of value rows) is multiplied by the head's scale before the output
// projection mixes the heads back into the residual stream; 0 removes the head, 1 leaves it as trained.
// Session::set_head_scales takes the table; the functions here read a person's spec into one and measure
// what the ablation changed.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "glassbox/config.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

struct HeadScale {
  int layer = 0;
  int head = 0;
  float scale = 0.0f;
};

// Reads "L.H" (head H of layer L off) and "L.H=S" (scaled by S), comma-separated, e.g. "0.3,1.0=0.5".
// Layers and heads count from 0, as everywhere in glassbox. Fails with bad-argument, naming the item.
Result<std::vector<HeadScale>> parse_head_scales(std::string_view spec);

// The table Session::set_head_scales takes: [n_layers][n_heads] factors, 1 except where `scales` says
// otherwise. Fails with bad-argument on a layer or head the model does not have, or a scale that is not
// finite.
Result<std::vector<float>> head_scale_table(const ModelConfig& config, std::span<const HeadScale> scales);

// How an ablation changed the next-token distribution: the distribution before (p) and after (q) it, both
// softmax at temperature 1 of the logits given.
struct DistributionChange {
  double kl_bits = 0;       // KL(p || q) = sum p log2(p / q): bits lost describing p with q; 0 when equal
  int top_before = 0;       // p's most likely token
  double p_top_before = 0;  // ... its probability under p
  double q_top_before = 0;  // ... and under q
  int top_after = 0;        // q's most likely token
  double q_top_after = 0;   // ... its probability under q
};
// Fails with bad-argument when the two differ in length or are empty.
Result<DistributionChange> compare_distributions(std::span<const float> logits_before,
                                                 std::span<const float> logits_after);

}  // namespace glassbox
