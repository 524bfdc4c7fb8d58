// The Engine's view of positions: how the model encodes them, RoPE's angles, q·k at every pair of positions
// (glassbox/positions.hpp), and a head's query before RoPE turned it.
#include "engine.hpp"

namespace glassbox::wasm {

// How the model encodes positions: {kind, theta, rotaryDim, headDim, pairing, dim, maxSeqLen, freqFactors,
// qkNorm, slidingWindow, slidingLayers, thetaSliding, alibiSlopes, maxAlibiBias}.
val Engine::position_info() const {
  if (!model_) return no_model();
  const ModelConfig& c = model_->config;
  val result = val::object();
  result.set("kind", std::string(to_string(c.position)));
  result.set("theta", float_to_js(c.rope_theta));
  result.set("rotaryDim", c.rotary_dim());
  result.set("headDim", c.head_dim);
  result.set("pairing", std::string(to_string(c.rope_pairing)));
  result.set("dim", c.dim);
  result.set("maxSeqLen", c.max_seq_len);
  result.set("freqFactors", array_to_js(c.rope_freq_factors, "Float32Array"));
  result.set("qkNorm", c.qk_norm);
  int sliding = 0;
  for (int l = 0; l < c.n_layers; ++l)
    sliding += c.slides(l) ? 1 : 0;
  result.set("slidingWindow", c.sliding_window);
  result.set("slidingLayers", sliding);
  result.set("thetaSliding", float_to_js(c.rope_theta_sliding > 0.0f ? c.rope_theta_sliding : c.rope_theta));
  // ALiBi: each head's slope (glassbox/positions.hpp's alibi_slope, the one statement of the formula).
  std::vector<float> slopes;
  if (c.position == PositionKind::ALiBi)
    for (int h = 0; h < c.n_heads; ++h)
      slopes.push_back(alibi_slope(c, h));
  result.set("alibiSlopes", array_to_js(slopes, "Float32Array"));
  result.set("maxAlibiBias", float_to_js(c.alibi_max_bias));
  return result;
}

// RoPE's angle for every pair at `position` in `layer` (radians, not reduced; layer -1: a global one): a
// Float64Array of rotaryDim / 2.
val Engine::rope_angles(int position, int layer) const {
  if (!model_) return no_model();
  const ModelConfig& c = model_->config;
  if (c.position != PositionKind::RoPE)
    return failure(ErrorCode::BadArgument, "the model's positions are ", to_string(c.position), ", not rope");
  if (position < 0 || position > 1 << 20)
    return failure(ErrorCode::BadArgument, "position ", position, " is outside 0..", 1 << 20);
  std::vector<double> angles;
  for (int pair = 0; pair < c.rotary_dim() / 2; ++pair)
    angles.push_back(rope_angle(c, pair, position, layer));
  return array_to_js(angles, "Float64Array");
}

// q · k rotated to every pair of positions (glassbox/positions.hpp): [m][n], a Float32Array positions^2.
val Engine::rope_dots(const val& q_list, const val& k_list, int positions, int layer) const {
  if (!model_) return no_model();
  const std::vector<float> q = emscripten::vecFromJSArray<float>(q_list);
  const std::vector<float> k = emscripten::vecFromJSArray<float>(k_list);
  auto dots = rope_dot_products(model_->config, q, k, positions, layer);
  if (!dots) return failure(dots.error());
  return array_to_js(*dots, "Float32Array");
}

// One head's query vector at `position` before RoPE turned it (Session::attention_detail), head_dim values.
val Engine::head_query(int layer, int head, int position) const {
  if (!session_) return no_session();
  auto detail = session_->attention_detail(layer, head, position);
  if (!detail) return failure(detail.error());
  return array_to_js(detail->query_unrotated, "Float32Array");
}

}  // namespace glassbox::wasm
