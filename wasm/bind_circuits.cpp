// The Engine's circuit tools (glassbox/logit_attribution.hpp, glassbox/activation_patching.hpp): a token's
// logit at a step split into what each part of the model wrote, and activation patching between two prompts,
// a few cells per call so the worker can report progress and stop between calls.
#include "engine.hpp"

namespace glassbox::wasm {

namespace {

val attribution_to_js(const LogitAttribution& a) {
  val result = val::object();
  result.set("position", a.position);
  result.set("token", a.token);
  result.set("baselineToken", a.baseline_token);
  result.set("layers", a.n_layers);
  result.set("heads", a.n_heads);
  result.set("logit", a.logit);
  result.set("embedding", a.embedding);
  result.set("headParts", array_to_js(a.heads, "Float64Array"));
  result.set("mlp", array_to_js(a.mlp, "Float64Array"));
  result.set("bias", a.bias);
  result.set("sumOfParts", a.sum_of_parts());
  return result;
}

}  // namespace

// The logit of `token` at `position` split into parts; with `baseline` >= 0, the difference of the two
// tokens' logits so split. From the generation's session (its residual trace).
val Engine::logit_attribution(int position, int token, int baseline) const {
  if (!session_) return no_session();
  auto a = session_->logit_attribution(position, token);
  if (!a) return failure(a.error());
  if (baseline < 0) return attribution_to_js(*a);
  auto b = session_->logit_attribution(position, baseline);
  if (!b) return failure(b.error());
  return attribution_to_js(logit_difference(*a, *b));
}

// Reads both prompts and keeps the job (a new one replaces any under way): {total, positions, layers, heads,
// target, metricClean, metricCorrupt}.
val Engine::patch_begin(const val& clean_list, const val& corrupt_list, int target) {
  if (!model_) return no_model();
  patching_.reset();
  const std::vector<int> clean = emscripten::vecFromJSArray<int>(clean_list);
  const std::vector<int> corrupt = emscripten::vecFromJSArray<int>(corrupt_list);
  auto job = PatchingJob::begin(model_, clean, corrupt, {.threads = kSideThreads, .target = target});
  if (!job) return failure(job.error());
  patching_.emplace(std::move(*job));
  const PatchingResult r = patching_->result();
  val result = val::object();
  result.set("total", patching_->total());
  result.set("positions", r.positions);
  result.set("layers", r.n_layers);
  result.set("heads", r.n_heads);
  result.set("target", r.target);
  result.set("metricClean", r.metric_clean);
  result.set("metricCorrupt", r.metric_corrupt);
  return result;
}

// Runs up to `cells` more cells: {done, total, finished}, and with finished the result {residual
// (Float64Array (layers + 1) x positions), heads (Float64Array layers x heads), runs, target, metricClean,
// metricCorrupt}; the job is then dropped.
val Engine::patch_step(int cells) {
  if (!patching_) return failure(ErrorCode::InvalidState, "no activation patching is under way");
  patching_->step(std::max(1, cells));
  val result = val::object();
  result.set("done", patching_->done());
  result.set("total", patching_->total());
  result.set("finished", patching_->finished());
  if (patching_->finished()) {
    const PatchingResult r = patching_->result();
    result.set("residual", array_to_js(r.residual, "Float64Array"));
    result.set("heads", array_to_js(r.heads, "Float64Array"));
    result.set("runs", r.runs);
    result.set("target", r.target);
    result.set("metricClean", r.metric_clean);
    result.set("metricCorrupt", r.metric_corrupt);
    patching_.reset();
  }
  return result;
}

void Engine::patch_cancel() {
  patching_.reset();
}

}  // namespace glassbox::wasm
