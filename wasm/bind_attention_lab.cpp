// The Engine's attention lab (glassbox/attention_lab.hpp): a text read with exact attention and with an
// approximation, in sessions of their own (the generation, its trace and its ablation stay as they were).
#include "engine.hpp"

namespace glassbox::wasm {

namespace {

// An integer option of the options object, `fallback` when absent; nullopt when it is not a whole number.
std::optional<int> int_option(const val& options, const char* name, int fallback, int limit) {
  const val v = options[name];
  if (v.isUndefined() || v.isNull()) return fallback;
  if (v.typeOf().as<std::string>() != "number") return std::nullopt;
  const double d = v.as<double>();
  if (!whole_number(d, limit)) return std::nullopt;
  return static_cast<int>(d);
}

}  // namespace

// `ids`: the tokens up to and including the step looked at; `variant`: its spelling (exact, window:W,
// global-window:G,W, linear, performer:M[:SEED], low-rank:R); options {layer, head, topK, continueTokens,
// comparedPositions}. Returns {n, exact, variant (Float32Array n x n each), energyKept, exactTop, variantTop,
// kl, topAgrees, comparedFrom, klByPosition (Float64Array), topAgreesByPosition, exactLoss, variantLoss,
// exactContinuation, variantContinuation (Int32Array), variantCannotContinue}.
val Engine::attention_lab(const val& ids, const std::string& variant_spelling, const val& options) const {
  if (!session_ || !tokenizer_) return no_session();  // an encoder: the core's refusal says why
  auto variant = parse_attention_variant(variant_spelling);
  if (!variant) return failure(variant.error());
  AttentionLabOptions o{.variant = *variant, .threads = kSideThreads};
  const struct {
    const char* name;
    int* field;
    int fallback;
  } fields[] = {{"layer", &o.layer, 0},
                {"head", &o.head, 0},
                {"topK", &o.top_k, 8},
                {"continueTokens", &o.continue_tokens, 0},
                {"comparedPositions", &o.compared_positions, 0}};
  for (const auto& f : fields) {
    const std::optional<int> value = int_option(options, f.name, f.fallback, 1 << 20);
    if (!value)
      return failure(ErrorCode::BadArgument, "the attention lab's ", f.name, " is not a whole number in 0..",
                     1 << 20);
    *f.field = *value;
  }
  const std::vector<int> tokens = emscripten::vecFromJSArray<int>(ids);
  // It reads the text twice in runs of its own: within twice the inspection trace's budget, or not at all.
  const int64_t bytes =
      attention_lab_bytes(model_->config, static_cast<int>(tokens.size()), o.continue_tokens);
  if (bytes > 2 * kTraceBudgetBytes)
    return failure(ErrorCode::BadArgument,
                   "the attention lab reads the text up to the step twice on its own, which for ",
                   tokens.size(), " tokens of this model takes about ", bytes >> 20, " MiB, more than its ",
                   (2 * kTraceBudgetBytes) >> 20, " MiB: select an earlier step");
  auto lab = glassbox::attention_lab(model_, *tokenizer_, tokens, o);
  if (!lab) return failure(lab.error());
  std::vector<float> variant_matrix(lab->head.variant.begin(), lab->head.variant.end());
  val result = val::object();
  result.set("n", lab->head.n);
  result.set("exact", array_to_js(lab->head.exact, "Float32Array"));
  result.set("variant", array_to_js(variant_matrix, "Float32Array"));
  result.set("energyKept", lab->head.energy_kept);
  result.set("exactTop", token_probabilities_to_js(lab->exact_top));
  result.set("variantTop", token_probabilities_to_js(lab->variant_top));
  result.set("kl", lab->kl);
  result.set("topAgrees", lab->top_agrees);
  result.set("comparedFrom", lab->compared_from);
  result.set("klByPosition", array_to_js(lab->kl_by_position, "Float64Array"));
  val agrees = val::array();
  for (bool a : lab->top_agrees_by_position)
    agrees.call<void>("push", a);
  result.set("topAgreesByPosition", agrees);
  result.set("exactLoss", lab->exact_loss);
  result.set("variantLoss", lab->variant_loss);
  result.set("exactContinuation", array_to_js(lab->exact_continuation, "Int32Array"));
  result.set("variantContinuation", array_to_js(lab->variant_continuation, "Int32Array"));
  result.set("variantCannotContinue", lab->variant_cannot_continue);
  return result;
}

}  // namespace glassbox::wasm
