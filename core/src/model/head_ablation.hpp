// What an ablation does to one head's output (glassbox/ablation.hpp), stated once for the forward pass, the
// attention detail and the logit attribution, which recompute that output from the trace:
//   out_h  <-  scale_h * out_h  +  offset_h
// Zero ablation is scale 0, scaling is scale s, both with no offset; mean ablation is scale 0 and the head's
// mean output over the text as its offset, so that the head writes the same vector at every position.
#pragma once

#include <cstddef>
#include <span>

#include "glassbox/config.hpp"

namespace glassbox {

// scales: [n_layers * n_heads] (empty: every 1); offsets: [n_layers * q_dim], laid out as a layer's head
// outputs are, head h at h * head_dim (empty: none). `out` holds head h of `layer`'s head_dim values.
inline void ablate_head_output(const ModelConfig& c, std::span<const float> scales,
                               std::span<const float> offsets, int layer, std::size_t h, float* out) {
  const auto head_dim = static_cast<std::size_t>(c.head_dim);
  const float scale = scales.empty() ? 1.0f : scales[static_cast<std::size_t>(layer * c.n_heads) + h];
  if (scale != 1.0f)
    for (std::size_t i = 0; i < head_dim; ++i)
      out[i] *= scale;
  if (offsets.empty()) return;
  const float* offset =
      offsets.data() + static_cast<std::size_t>(layer) * static_cast<std::size_t>(c.q_dim()) + h * head_dim;
  for (std::size_t i = 0; i < head_dim; ++i)
    out[i] += offset[i];
}

}  // namespace glassbox
