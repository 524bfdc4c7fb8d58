// A model to train from scratch: its shape read from a small JSON file (`glassbox train --config`,
// glassbox::read_training_config in glassbox/train.hpp), its vocabulary from the tokenizer, and its first
// weights drawn at random from a seed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "glassbox/config.hpp"
#include "glassbox/result.hpp"
#include "glassbox/tokenizer.hpp"
#include "train/model_gradients.hpp"

namespace glassbox::train {

// Seeded first weights: every matrix (the position table too) uniform in [-a, a] with a = 0.02 sqrt(3)
// (standard deviation 0.02, as GPT-2 and llm.c draw theirs, but uniform: no library's normal distribution, so
// the same bits on every platform), the matrices that write into the residual stream (wo, ffn_down) scaled by
// 1 / sqrt(2 layers) as GPT-2 does so that the stream's variance does not grow with depth; every norm's gain
// 1, every bias 0. A LayerNorm config (GPT-2) has biases on its norms, projections and feed-forward, as GPT-2
// and llama.cpp's gpt2 graph have; an RMSNorm one (Llama) has none. The generator is the sampler's
// xorshift64*, tensors drawn in ModelParameters::for_each order.
ModelParameters<float> random_parameters(const ModelConfig& config, uint64_t seed);

}  // namespace glassbox::train
