// The Engine's views of the generation's trace: attention over a window of positions, the trace's memory,
// the next-token distribution and the sampler's pipeline over it, one head's attention with every number, and
// the logit lens. The core computes each (from the residual trace); here it is only laid out as JS values.
#include "engine.hpp"

namespace glassbox::wasm {

// Attention over a window of positions [begin, end) (the core's attention_window): a row-major
// [heads][size][size] Float32Array (size = end - begin; keys outside the window are left out, entries above
// the diagonal are zero), head -1 for all heads of the layer. `stats` holds, per head, the mean entropy in
// bits, sink and previous-token weight over the window's query rows; `firstVisible`, where each row's visible
// keys begin. Memory: the window, whatever the sequence length.
val Engine::attention(int layer, int head, int begin, int end) {
  if (!session_) return no_session();
  const int heads = session_->model().config.n_heads;
  if (head < -1 || head >= heads)
    return failure(ErrorCode::BadArgument, "head ", head, " does not exist (0..", heads - 1,
                   ", or -1 for all)");
  auto window =
      attention_window(*session_, layer, head < 0 ? 0 : head, head < 0 ? heads : head + 1, begin, end);
  if (!window) return failure(window.error());
  std::vector<float> stats;
  for (const HeadStats& s : window->stats)
    stats.insert(stats.end(), {static_cast<float>(s.entropy_bits), static_cast<float>(s.sink),
                               static_cast<float>(s.previous)});
  matrix_ = std::move(window->weights);
  val result = val::object();
  result.set("begin", window->begin);
  result.set("size", window->size);
  result.set("matrix",
             val(emscripten::typed_memory_view(matrix_.size(), matrix_.data())));  // the glue copies it
  result.set("stats", array_to_js(stats, "Float32Array"));
  result.set("firstVisible", array_to_js(window->first_visible, "Int32Array"));
  return result;
}

// What the inspection trace holds and may hold: positions computed, the first one still kept, and its memory
// (per position, now, and the budget).
val Engine::trace_info() const {
  if (!session_) return no_session();
  const ResidualTrace& r = session_->residual_trace();
  val result = val::object();
  result.set("positions", session_->position());
  result.set("firstKept", std::min(r.first_kept(), session_->position()));
  result.set("bytesPerPosition", static_cast<double>(r.bytes_per_position()));
  result.set("bytesHeld", static_cast<double>(r.bytes_held()));
  result.set("budgetBytes", static_cast<double>(r.budget_bytes()));
  result.set("capacityPositions", static_cast<double>(r.capacity_positions()));
  return result;
}

// The k most likely next tokens after the last step: [{id, logit, probability}], probabilities at
// temperature 1 over the whole vocabulary.
val Engine::top_tokens(int k) const {
  if (auto not_yet = no_logits_yet()) return *not_yet;
  if (k < 0) return failure(ErrorCode::BadArgument, "k must be >= 0, found ", k);
  return token_probabilities_to_js(glassbox::top_tokens(session_->logits(), k));
}

// The sampler's pipeline over the logits the newest token was drawn from (glassbox/sampling_pipeline.hpp),
// with the settings of the generation under way: {vocabSize, topKKept, topPKept, tokens: [{id, logit,
// pTemperature1, pTemperature, pTopK, pTopP, keptByTopK, keptByTopP}]}, the `top_n` highest logits first.
val Engine::sampling_pipeline_at_last(int top_n) const {
  if (auto not_yet = no_logits_yet()) return *not_yet;
  if (top_n < 0) return failure(ErrorCode::BadArgument, "top_n must be >= 0, found ", top_n);
  const SamplingPipeline p = sampling_pipeline(session_->logits(), sampler_.settings(), top_n);
  val tokens = val::array();
  for (const PipelineToken& t : p.tokens) {
    val entry = val::object();
    entry.set("id", t.id);
    entry.set("logit", t.logit);
    entry.set("pTemperature1", t.p_temperature_1);
    entry.set("pTemperature", t.p_temperature);
    entry.set("pTopK", t.p_top_k);
    entry.set("pTopP", t.p_top_p);
    entry.set("keptByTopK", t.kept_by_top_k);
    entry.set("keptByTopP", t.kept_by_top_p);
    tokens.call<void>("push", entry);
  }
  val result = val::object();
  result.set("vocabSize", p.vocab_size);
  result.set("topKKept", p.top_k_kept);
  result.set("topPKept", p.top_p_kept);
  result.set("tokens", tokens);
  return result;
}

// One head's attention at one query with every number of the formula (Session::attention_detail): the same
// floats the forward pass used. Arrays are Float32Array; keyRows and valueRows are [keys][headDim].
val Engine::attention_step_by_step(int layer, int head, int query) const {
  if (!session_) return no_session();
  auto d = session_->attention_detail(layer, head, query);
  if (!d) return failure(d.error());
  val result = val::object();
  result.set("layer", d->layer);
  result.set("head", d->head);
  result.set("query", d->query);
  result.set("kvHead", d->kv_head);
  result.set("headDim", d->head_dim);
  result.set("keys", d->keys);
  result.set("firstVisibleKey", d->first_visible_key);
  result.set("scale", d->scale);
  result.set("headScale", d->head_scale);
  result.set("queryUnrotated", array_to_js(d->query_unrotated, "Float32Array"));
  result.set("q", array_to_js(d->q, "Float32Array"));
  result.set("ropeAngles", array_to_js(d->rope_angles, "Float32Array"));
  result.set("keyRows", array_to_js(d->key_rows, "Float32Array"));
  result.set("dots", array_to_js(d->dots, "Float32Array"));
  result.set("scores", array_to_js(d->scores, "Float32Array"));
  result.set("probabilities", array_to_js(d->probabilities, "Float32Array"));
  result.set("valueRows", array_to_js(d->value_rows, "Float32Array"));
  result.set("output", array_to_js(d->output, "Float32Array"));
  return result;
}

// The logit lens over positions [begin, end) (the core's logit_lens): for every layer 0..n_layers (n_layers:
// the model's own logits) and position, the `k` most likely next tokens. {layers: n_layers + 1, begin, size,
// k, ids: Int32Array, probabilities: Float32Array, logits: Float32Array}, each [layer][position][k].
val Engine::logit_lens(int begin, int end, int k) const {
  if (!session_) return no_session();
  auto lens = glassbox::logit_lens(*session_, begin, end, k);
  if (!lens) return failure(lens.error());
  val result = val::object();
  result.set("layers", lens->layers);
  result.set("begin", lens->begin);
  result.set("size", lens->size);
  result.set("k", lens->k);
  result.set("ids", array_to_js(lens->ids, "Int32Array"));
  result.set("probabilities", array_to_js(lens->probabilities, "Float32Array"));
  result.set("logits", array_to_js(lens->logits, "Float32Array"));
  return result;
}

std::optional<val> Engine::no_logits_yet() const {
  if (!session_) return no_session();
  if (session_->position() == 0)
    return failure(ErrorCode::InvalidState, "nothing has been computed yet: call step() first");
  return std::nullopt;
}

// The residual stream's length entering each layer and leaving the last at positions [begin, end) (the
// core's residual_norms): a Float32Array [(n_layers + 1)][end - begin].
val Engine::residual_norms(int begin, int end) const {
  if (!session_) return no_session();
  auto norms = glassbox::residual_norms(*session_, begin, end);
  if (!norms) return failure(norms.error());
  return array_to_js(*norms, "Float32Array");
}

}  // namespace glassbox::wasm
