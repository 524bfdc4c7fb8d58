// Validation of a model config: the single place that decides what shapes the forward pass can run. The
// names of its choices are in model/config_names.hpp.
#include "glassbox/config.hpp"

#include <cmath>
#include "glassbox/error.hpp"
#include "model/config_names.hpp"

namespace glassbox {
namespace {

// Generous upper bounds: far past any model this engine targets, small enough that products of a few of
// them cannot overflow 64-bit sizes. A value past them means a corrupt file, not a big model.
constexpr int kMaxDim = 1 << 16;
constexpr int kMaxHiddenDim = 1 << 18;
constexpr int kMaxLayers = 1 << 10;
constexpr int kMaxHeads = 1 << 10;
constexpr int kMaxVocab = 1 << 22;
constexpr int kMaxSeqLen = 1 << 20;

Result<void> check_range(const std::string& source, const char* field, int value, int max) {
  if (value <= 0 || value > max)
    return error(ErrorCode::Malformed, source, ": ", field, " must be in 1..", max, ", found ", value);
  return ok();
}

}  // namespace

Result<void> validate(const ModelConfig& c, const std::string& source) {
  GLASSBOX_TRY(check_range(source, "dim", c.dim, kMaxDim));
  GLASSBOX_TRY(check_range(source, "hidden_dim", c.hidden_dim, kMaxHiddenDim));
  GLASSBOX_TRY(check_range(source, "n_layers", c.n_layers, kMaxLayers));
  GLASSBOX_TRY(check_range(source, "n_heads", c.n_heads, kMaxHeads));
  GLASSBOX_TRY(check_range(source, "n_kv_heads", c.n_kv_heads, kMaxHeads));
  GLASSBOX_TRY(check_range(source, "vocab_size", c.vocab_size, kMaxVocab));
  GLASSBOX_TRY(check_range(source, "max_seq_len", c.max_seq_len, kMaxSeqLen));
  if (c.dim % c.n_heads != 0)
    return error(ErrorCode::Malformed, source, ": n_heads must divide dim: dim ", c.dim,
                 " is not a multiple of n_heads ", c.n_heads);
  if (c.n_heads % c.n_kv_heads != 0)
    return error(ErrorCode::Malformed, source, ": n_kv_heads must divide n_heads: n_heads ", c.n_heads,
                 " is not a multiple of n_kv_heads ", c.n_kv_heads);
  GLASSBOX_TRY(check_range(source, "head_dim", c.head_dim, kMaxDim));
  if (c.position == PositionKind::RoPE) {
    const int rotary = c.rotary_dim();
    if (rotary % 2 != 0 || rotary > c.head_dim)
      return error(ErrorCode::Malformed, source, ": rope dimension must be even and at most head_dim ",
                   c.head_dim, ", found ", rotary);
    if (!(c.rope_theta > 0.0f))
      return error(ErrorCode::Malformed, source, ": rope theta must be positive, found ", c.rope_theta);
    if (!c.rope_freq_factors.empty() && c.rope_freq_factors.size() != static_cast<std::size_t>(rotary / 2))
      return error(ErrorCode::Malformed, source, ": RoPE frequency factors: one per rotated pair (",
                   rotary / 2, ") expected, found ", c.rope_freq_factors.size());
    for (std::size_t i = 0; i < c.rope_freq_factors.size(); ++i)
      if (!(std::isfinite(c.rope_freq_factors[i]) && c.rope_freq_factors[i] > 0.0f))
        return error(ErrorCode::Malformed, source, ": RoPE frequency factor ", i,
                     " must be a positive number, found ", c.rope_freq_factors[i]);
  }
  if (c.position == PositionKind::ALiBi && !(std::isfinite(c.alibi_max_bias) && c.alibi_max_bias > 0.0f))
    return error(ErrorCode::Malformed, source, ": ALiBi's max bias must be a positive number, found ",
                 c.alibi_max_bias);
  if (!(std::isfinite(c.rope_magnitude) && c.rope_magnitude > 0.0f))
    return error(ErrorCode::Malformed, source,
                 ": the RoPE magnitude (YaRN's attention factor) must be positive, found ", c.rope_magnitude);
  if (c.sliding_window < 0)
    return error(ErrorCode::Malformed, source, ": the sliding window must be 0 (none) or more keys, found ",
                 c.sliding_window);
  if (!c.sliding_layers.empty() && c.sliding_layers.size() != static_cast<std::size_t>(c.n_layers))
    return error(ErrorCode::Malformed, source, ": the sliding-window pattern names ", c.sliding_layers.size(),
                 " layers, the model has ", c.n_layers);
  if (!(std::isfinite(c.rope_theta_sliding) && c.rope_theta_sliding >= 0.0f))
    return error(ErrorCode::Malformed, source, ": the sliding layers' rope theta must be positive, found ",
                 c.rope_theta_sliding);
  if (!(std::isfinite(c.final_logit_softcap) && c.final_logit_softcap >= 0.0f))
    return error(ErrorCode::Malformed, source,
                 ": the final logit soft-cap must be 0 (none) or positive, found ", c.final_logit_softcap);
  if (c.n_token_types < 0 || c.n_token_types > 1024)
    return error(ErrorCode::Malformed, source, ": the token-type count must be in 0..1024, found ",
                 c.n_token_types);
  if (!(c.norm_eps >= 0.0f && c.norm_eps < 1.0f))
    return error(ErrorCode::Malformed, source, ": norm epsilon must be in [0, 1), found ", c.norm_eps);
  return ok();
}

const char* to_string(NormKind kind) {
  return choice_name(kind);
}
const char* to_string(NormPlacement placement) {
  return choice_name(placement);
}
const char* to_string(PositionKind kind) {
  return choice_name(kind);
}
const char* to_string(RopePairing pairing) {
  return choice_name(pairing);
}
const char* to_string(Activation activation) {
  return choice_name(activation);
}
const char* to_string(Pooling pooling) {
  return choice_name(pooling);
}

}  // namespace glassbox
