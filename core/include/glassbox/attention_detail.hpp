// One head's attention for one query, step by step, with the actual numbers: the formula of scaled
// dot-product attention made visible,
//   scores = q · k_j / sqrt(d_k)   for every key j <= the query (the causal mask hides the rest; a
//                                  sliding-window layer also hides keys older than its window), minus
//                                  slope (query - j) where the model uses ALiBi
//   p      = softmax(scores)
//   output = sum_j p_j v_j        (times the head's ablation scale)
// Session::attention_detail recomputes it from the residual trace; every number is the one the forward pass
// used, bit for bit.
#pragma once

#include <vector>

namespace glassbox {

struct AttentionDetail {
  int layer = 0, head = 0, query = 0;
  int kv_head = 0;                     // the key/value head this query head reads (grouped-query attention)
  int head_dim = 0;                    // d_k
  int keys = 0;                        // keys 0..query: query + 1 of them; later keys are masked
  int first_visible_key = 0;           // a sliding-window layer masks keys before this one too (p = 0)
  float scale = 0;                     // sqrt(d_k), what the dot products are divided by
  float head_scale = 1;                // the ablation factor on the output (1: as trained)
  bool mean_ablated = false;           // the output is the head's mean over the text (mean ablation)
  std::vector<float> query_unrotated;  // q before RoPE (after the q norm, if any) [head_dim]
  std::vector<float> q;                // q as dotted with the keys [head_dim]
  std::vector<float> rope_angles;      // RoPE: the angle each pair of q turned by here, radians in (-pi, pi]
  std::vector<float> key_rows;         // k_j as cached (after RoPE) [keys][head_dim]
  std::vector<float> dots;             // q · k_j [keys]
  std::vector<float> scores;           // dots / scale (- slope * distance with ALiBi) [keys]
  std::vector<float> probabilities;    // softmax(scores) [keys]
  std::vector<float> value_rows;       // v_j [keys][head_dim]
  std::vector<float> output;  // sum_j p_j v_j, times head_scale; the mean where mean_ablated [head_dim]
};

}  // namespace glassbox
