// How positions enter a model, as the forward pass computes them: one definition each, which the forward
// pass, the session's RoPE tables and the page's positional-encoding view all use.
//   sinusoidal ("Attention Is All You Need"): PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(...),
//     added to the token embedding;
//   RoPE: pair i of each query and key turns by the angle p * theta^(-2i / rotary_dim) (divided by the pair's
//     frequency factor where the model scales RoPE), so that the dot product of a query at m and a key at n
//     depends on m - n alone;
//   ALiBi (Press et al., "Train Short, Test Long"): nothing is added to the embeddings or turned; head h adds
//     -slope_h * (i - j) to the score of query i for key j, after the 1/sqrt(head_dim) scaling and before the
//     softmax (model/layer_steps.hpp), so each head prefers near keys at its own rate, at any distance.
#pragma once

#include <span>
#include <vector>

#include "glassbox/config.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

// The sinusoidal code of `position`, out.size() values (the model's dim).
void sinusoidal_code(int position, std::span<float> out);

// The angle RoPE turns pair `pair` by at `position` in `layer`, in radians (not reduced modulo 2 pi). The
// frequency is rounded to float first, as the engine's tables are built. A sliding-window layer
// (ModelConfig::slides) turns with its own base and no frequency factors; layer -1 means a global layer.
double rope_angle(const ModelConfig& config, int pair, int position, int layer = -1);

// ALiBi's slope of head `head` (0-based) of the config's n_heads. For n a power of two, head h's slope is
// 2^(-max_bias (h + 1) / n): with max_bias 8 and 8 heads 1/2, 1/4, ..., 1/256. Otherwise the paper's
// extension: with m the largest power of two below n, the first m heads take the slopes of m heads and the
// other n - m take the odd-numbered slopes of 2m heads, 2^(-max_bias (2k + 1) / 2m) for k = 0, 1, ... Computed
// in float as llama.cpp does (powf of a base), so the same slopes to the bit. config.alibi_max_bias is the
// max_bias.
float alibi_slope(const ModelConfig& config, int head);

// Llama 3.1's RoPE scaling (Hugging Face's rope_scaling with rope_type "llama3"): pairs whose wavelength
// (2 pi / frequency) exceeds original_context / low_freq_factor turn `factor` times slower, pairs whose
// wavelength is below original_context / high_freq_factor are kept, and those in between blend the two.
struct Llama3RopeScaling {
  double factor = 8;
  double low_freq_factor = 1;
  double high_freq_factor = 4;
  double original_context = 8192;
};

// The per-pair divisors of ModelConfig::rope_freq_factors that Llama 3.1's scaling amounts to, for the
// config's theta and rotary dimensions (what llama.cpp's converter stores as rope_freqs.weight).
std::vector<float> llama3_rope_factors(const ModelConfig& config, const Llama3RopeScaling& scaling);

// YaRN ("Yet another RoPE extension", as llama.cpp and Hugging Face compute it): pairs that turn fewer than
// beta_slow times over the original context are slowed by `factor` (interpolated), pairs that turn more
// than beta_fast times are kept (extrapolated), and those between blend linearly by pair index; q and k are
// also scaled by attn_factor x (1 + 0.1 ln factor), which sharpens attention over the longer context.
struct YarnRopeScaling {
  double factor = 1;
  double original_context = 4096;
  double beta_fast = 32;
  double beta_slow = 1;
  double attn_factor = 1;
};

// YaRN's per-pair divisors (ModelConfig::rope_freq_factors) and its magnitude (ModelConfig::rope_magnitude).
std::vector<float> yarn_rope_factors(const ModelConfig& config, const YarnRopeScaling& scaling);
float yarn_rope_magnitude(const YarnRopeScaling& scaling);

// RoPE made visible: q and k (head_dim values each) rotated to every position 0..positions-1 with the
// model's theta, rotary dimensions and pairing (as `layer` turns them; -1: a global layer), and their dot
// products: [m][n] = R(m) q · R(n) k, row-major.
// Equal along each diagonal (the same offset m - n) up to float rounding. Fails with bad-argument for a model
// without RoPE, q or k not head_dim long, or positions outside 1..4096.
Result<std::vector<float>> rope_dot_products(const ModelConfig& config, std::span<const float> q,
                                             std::span<const float> k, int positions, int layer = -1);

}  // namespace glassbox
