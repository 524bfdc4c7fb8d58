// AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization"): Adam's update, with the weight decay
// applied to the weights directly instead of being added to the gradient (where Adam's per-weight scaling
// would shrink it for weights with large gradients). For step t = 1, 2, ... and each weight w with
// gradient g:
//   m = beta1 m + (1 - beta1) g,          v = beta2 v + (1 - beta2) g^2,
//   m^ = m / (1 - beta1^t),               v^ = v / (1 - beta2^t)          (bias correction: m, v start at 0)
//   w = w - lr (m^ / (sqrt(v^) + eps) + weight_decay w)
// in float, as PyTorch's torch.optim.AdamW and llm.c compute it. The first step moves each weight by about
// lr, in the direction opposite its gradient's sign.
#pragma once

#include <span>
#include <string_view>

namespace glassbox::train {

struct AdamWSettings {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
};

// One update of one tensor. m and v are its optimizer state (zeros before step 1), as long as weights;
// `step` counts from 1. `decay`: whether this tensor takes weight decay (takes_weight_decay).
void adamw_update(std::span<float> weights, std::span<const float> gradients, std::span<float> m,
                  std::span<float> v, int step, double learning_rate, const AdamWSettings& settings,
                  bool decay);

// Which tensors weight decay pulls toward 0: the matrices (embeddings, projections, classifier), not the
// norms' gains or the biases, whose size is no sign of overfitting and which a pull toward 0 would distort
// (a norm's gain of 0 switches its features off). By the tensor's name as train/model_gradients.hpp names
// them (names_norm_gain, names_bias).
bool takes_weight_decay(std::string_view tensor_name);

}  // namespace glassbox::train
