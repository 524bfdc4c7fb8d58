// The Engine's heads: their statistics and roles (the core's measure_heads in one call, or its
// HeadMeasurement one head per call), and ablation in the generation's own session.
//
// Head statistics are measured in a session of their own (one thread, so the threaded build's Worker pool is
// not asked for more), never in the generation's: measuring leaves the text, the trace and the generator as
// they were. measureBegin() and measureStep() compute measureHeads()'s numbers one head per call (the SVD of
// the effective rank costs tens of milliseconds a head), so the worker can report progress and answer other
// requests in between.
#include <span>

#include "engine.hpp"

namespace glassbox::wasm {
namespace {

// {heads: [{layer, head, entropyBits, uniformEntropyBits, sink, previousToken, local, effectiveRank,
// induction, role}], roles: {role name: how many heads}}.
val head_reports_to_js(const std::vector<HeadReport>& reports) {
  val heads = val::array();
  for (const HeadReport& h : reports) {
    val entry = val::object();
    entry.set("layer", h.layer);
    entry.set("head", h.head);
    entry.set("entropyBits", h.entropy_bits);
    entry.set("uniformEntropyBits", h.uniform_entropy_bits);
    entry.set("sink", h.sink);
    entry.set("previousToken", h.previous_token);
    entry.set("local", h.local);
    entry.set("effectiveRank", h.effective_rank);
    entry.set("induction", h.induction);
    entry.set("role", std::string(to_string(h.role)));
    heads.call<void>("push", entry);
  }
  const RoleCounts counts = summarize_roles(reports);
  val roles = val::object();
  for (HeadRole r : kDecoderRoles)
    roles.set(to_string(r), counts[r]);
  val result = val::object();
  result.set("heads", heads);
  result.set("roles", roles);
  return result;
}

// {done, completed, total} of a measurement, set on `out`.
val with_progress(val out, const HeadMeasurement& m) {
  out.set("done", m.done());
  out.set("completed", m.completed());
  out.set("total", m.total());
  return out;
}

}  // namespace

// The core's measure_heads over `ids` with the tokenizer's induction probe: {heads, roles}.
val Engine::measure_heads_all(const val& ids) const {
  if (!model_) return no_model();
  const std::vector<int> tokens = emscripten::vecFromJSArray<int>(ids);
  auto reports = measure_heads(*model_, tokens, {.threads = 1, .probe = induction_probe_for(*tokenizer_)});
  if (!reports) return failure(reports.error());
  return head_reports_to_js(*reports);
}

// Starts measuring every head over `ids` (HeadMeasurement::begin, which keeps the model measured: a load
// meanwhile does not change it). {total}: the steps measureStep() takes (one per head, then one for the
// induction probe).
val Engine::measure_begin(const val& ids) {
  if (!model_) return no_model();
  measuring_.reset();
  const std::vector<int> tokens = emscripten::vecFromJSArray<int>(ids);
  auto begun =
      HeadMeasurement::begin(model_, tokens, {.threads = 1, .probe = induction_probe_for(*tokenizer_)});
  if (!begun) return failure(begun.error());
  measuring_.emplace(std::move(*begun));
  val result = val::object();
  result.set("total", measuring_->total());
  return result;
}

// One step of the measurement begun by measureBegin(): {done, completed, total}, with {heads, roles} when
// done. After a failure or the last step a new measureBegin() is needed.
val Engine::measure_step() {
  if (!measuring_) return failure(ErrorCode::InvalidState, "measure heads: measureBegin() was not called");
  if (auto stepped = measuring_->step(); !stepped) {
    measuring_.reset();
    return failure(stepped.error());
  }
  if (!measuring_->done()) return with_progress(val::object(), *measuring_);
  val reports = with_progress(head_reports_to_js(measuring_->reports()), *measuring_);
  measuring_.reset();
  return reports;
}

// Ablation: `scales` ([layer * heads + head], 0 = off) multiply the heads' outputs in the generation's own
// session, and the heads in `mean_list` (indices of that table) write their mean output over the text instead
// (mean ablation). The session reads its tokens again so that the trace (and every view) shows the ablated
// run, and so does the next generation, until clearAblation(). Returns how the next-token distribution at
// `position` (the page's current step; -1: the last) changed against the run without any ablation, and the
// KL at every position the trace keeps (the core's ablate_session).
val Engine::ablate(const val& scale_list, int position, const val& mean_list) {
  if (!session_) return no_session();
  const std::vector<float> scales = emscripten::vecFromJSArray<float>(scale_list);
  const std::vector<int> means =
      mean_list.isUndefined() ? std::vector<int>{} : emscripten::vecFromJSArray<int>(mean_list);
  const std::vector<int> tokens = traced_tokens();
  if (tokens.empty())
    return failure(ErrorCode::InvalidState, "nothing has been computed yet: generate some text first");
  // A table refused leaves the generation going; one taken ends it, since the session reads its tokens again.
  if (auto valid = check_head_scale_table(model_->config, scales); !valid) return failure(valid.error());
  generator_->stop();
  auto effect = ablate_session(*session_, tokens, scales, position, means);
  if (!effect) return failure(effect.error());
  const DistributionChange& change = effect->change;
  val result = val::object();
  result.set("position", position < 0 ? static_cast<int>(tokens.size()) - 1 : position);
  result.set("klBits", change.kl_bits);
  result.set("topBefore", change.top_before);
  result.set("pTopBefore", change.p_top_before);
  result.set("qTopBefore", change.q_top_before);
  result.set("topAfter", change.top_after);
  result.set("qTopAfter", change.q_top_after);
  std::vector<double> kl;
  std::vector<int> top_kept;
  for (const DistributionChange& at : effect->by_position) {
    kl.push_back(at.kl_bits);
    top_kept.push_back(at.top_before == at.top_after ? 1 : 0);
  }
  result.set("comparedFrom", effect->first_position);
  result.set("klBitsByPosition", array_to_js(kl, "Float64Array"));
  result.set("topKeptByPosition", array_to_js(top_kept, "Uint8Array"));
  result.set("meanHeads", array_to_js(means, "Int32Array"));
  return result;
}

// Every head as trained again; the tokens are read again without the ablation. Returns whether one was on.
val Engine::clear_ablation() {
  if (!session_) return no_session();
  if (session_->head_scales().empty() && session_->head_offsets().empty()) return val(false);
  generator_->stop();
  if (auto ok = session_->set_head_scales({}); !ok) return failure(ok.error());
  if (auto ok = session_->set_head_offsets({}); !ok) return failure(ok.error());
  if (const std::vector<int> tokens = traced_tokens(); !tokens.empty()) {
    session_->reset();
    if (auto again = session_->prefill(tokens); !again) return failure(again.error());
  }
  return val(true);
}

// The ablation's table as the session holds it (empty: none).
val Engine::head_scales() const {
  if (!session_) return no_session();
  const std::span<const float> s = session_->head_scales();
  return array_to_js(std::vector<float>(s.begin(), s.end()), "Float32Array");
}

}  // namespace glassbox::wasm
