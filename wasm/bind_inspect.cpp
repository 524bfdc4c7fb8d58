// The Engine's whole-model views: parameters and bytes per component, FLOPs per token (glassbox/anatomy.hpp),
// and the inspection document of `glassbox inspect --json` (glassbox/inspection.hpp).
#include "engine.hpp"

namespace glassbox::wasm {

// Parameters and bytes per component, and bytes read per token.
val Engine::anatomy() const {
  if (!model_) return no_model();
  const ModelAnatomy a = model_anatomy(*model_);
  val components = val::object();
  const auto put = [&](const char* name, const ComponentSize& size) {
    val entry = val::object();
    entry.set("parameters", static_cast<double>(size.parameters));
    entry.set("bytes", static_cast<double>(size.bytes));
    components.set(name, entry);
  };
  put("tokenEmbedding", a.token_embedding);
  put("positionEmbedding", a.position_embedding);
  put("tokenTypes", a.token_types);
  put("attentionQ", a.attention_q);
  put("attentionK", a.attention_k);
  put("attentionV", a.attention_v);
  put("attentionO", a.attention_o);
  put("feedForward", a.feed_forward);
  put("norms", a.norms);
  put("biases", a.biases);
  put("output", a.output);
  put("maskedLmHead", a.masked_lm_head);
  val result = val::object();
  result.set("components", components);
  result.set("parameters", static_cast<double>(a.total.parameters));
  result.set("bytes", static_cast<double>(a.total.bytes));
  result.set("bytesReadPerToken", static_cast<double>(a.bytes_read_per_token));
  return result;
}

// FLOPs of one token at position sequenceLength - 1, by part.
val Engine::flops(int sequence_length) const {
  if (!model_) return no_model();
  if (sequence_length < 1 || sequence_length > 1 << 24)
    return failure(ErrorCode::BadArgument, "sequence length ", sequence_length, " is outside 1..", 1 << 24);
  const TokenFlops f = flops_per_token(model_->config, sequence_length);
  val result = val::object();
  result.set("sequenceLength", sequence_length);
  result.set("attentionProjections", static_cast<double>(f.attention_projections));
  result.set("attentionScores", static_cast<double>(f.attention_scores));
  result.set("feedForward", static_cast<double>(f.feed_forward));
  result.set("output", static_cast<double>(f.output));
  result.set("total", static_cast<double>(f.total));
  return result;
}

// The document for `prompt` and `steps` sampled tokens, with the sampler settings of setSampler() and the
// session's ablation (the heads scaled, as the CLI's --ablate names them). Computed in a session of its own:
// the generation, its trace and its text stay as they were.
val Engine::inspect_document(const std::string& prompt, int steps, int candidates) const {
  if (!model_) return no_model();
  InspectOptions options{.steps = steps, .sampler = settings_, .candidates = candidates};
  if (const std::span<const float> table = session_ ? session_->head_scales() : std::span<const float>();
      !table.empty()) {
    auto scaled = scaled_heads(model_->config, table);
    if (!scaled) return failure(scaled.error());
    options.ablate = std::move(*scaled);
  }
  auto document = inspect_json(model_, *tokenizer_, prompt, options);
  if (!document) return failure(document.error());
  return val(*document);
}

}  // namespace glassbox::wasm
