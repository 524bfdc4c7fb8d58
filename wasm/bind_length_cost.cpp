// Cost against length for the page's anatomy view (glassbox/length_cost.hpp): the variants it measures with
// their crossover, and one measured point (a variant at a length) per call, so the worker answers other
// requests between points and the page shows its progress. Each point runs in a session of its own, on one
// thread (the threaded module's Worker pool is the generation session's), and leaves the generation as it
// was.
#include "engine.hpp"
#include "glassbox/length_cost.hpp"

namespace glassbox::wasm {
namespace {

// The most FLOPs of one prompt the page's plot measures: each point runs about seven passes of its length,
// so the plot of a small model is done in seconds.
constexpr int64_t kPageFlopBudget = 600'000'000;

val spread_to_js(const Spread& s) {
  val result = val::object();
  result.set("median", s.median);
  result.set("min", s.min);
  result.set("max", s.max);
  return result;
}

val formula_to_js(const CostFormula& f) {
  val result = val::object();
  result.set("attentionToken", static_cast<double>(f.attention_token));
  result.set("projectionsToken", static_cast<double>(f.projections_token));
  result.set("feedForwardToken", static_cast<double>(f.feed_forward_token));
  result.set("attentionPrompt", static_cast<double>(f.attention_prompt));
  result.set("projectionsPrompt", static_cast<double>(f.projections_prompt));
  result.set("feedForwardPrompt", static_cast<double>(f.feed_forward_prompt));
  result.set("scoresBytes", static_cast<double>(f.scores_bytes));
  result.set("kvCacheBytes", static_cast<double>(f.kv_cache_bytes));
  result.set("stateBytes", static_cast<double>(f.state_bytes));
  return result;
}

}  // namespace

// The default variants (exact, window:W, linear) with their crossover lengths, the model's context and the
// lengths the page measures.
val Engine::length_cost_plan() const {
  if (!model_) return no_model();
  const ModelConfig& c = model_->config;
  if (!c.causal)
    return failure(ErrorCode::BadArgument,
                   "cost against length measures a decoder; this model is an encoder");
  val variants = val::array();
  for (const AttentionVariant& v : default_cost_variants(c)) {
    val entry = val::object();
    entry.set("attention", to_string(v));
    entry.set("crossoverLength", crossover_length(c, v));  // 0: never
    const Result<void> takes = check_cost_variant(model_, v);
    entry.set("refused", takes.ok() ? std::string() : takes.error().message);
    variants.call<void>("push", entry);
  }
  val result = val::object();
  result.set("variants", variants);
  result.set("context", c.max_seq_len);
  val lengths = val::array();
  for (int n : quick_cost_lengths(c, kPageFlopBudget))
    lengths.call<void>("push", n);
  result.set("lengths", lengths);
  return result;
}

// One variant (parse_attention_variant's spelling) at one length, the median of `repeat` runs.
val Engine::length_cost(const std::string& attention, int length, int repeat) const {
  if (!model_) return no_model();
  auto variant = parse_attention_variant(attention);
  if (!variant) return failure(variant.error());
  auto point = measure_length_cost(model_, *variant, length, {.threads = 1, .repeat = repeat});
  if (!point) return failure(point.error());
  val memory = val::object();
  memory.set("kvCacheBytes", static_cast<double>(point->memory.kv_cache));
  memory.set("scoresBytes", static_cast<double>(point->memory.scores));
  memory.set("attentionStateBytes", static_cast<double>(point->memory.attention_state));
  val result = val::object();
  result.set("attention", to_string(*variant));
  result.set("length", point->length);
  result.set("prefillSeconds", spread_to_js(point->prefill_seconds));
  result.set("tokenSeconds", spread_to_js(point->token_seconds));
  result.set("memory", memory);
  result.set("formula", formula_to_js(point->formula));
  return result;
}

}  // namespace glassbox::wasm
