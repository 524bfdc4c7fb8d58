// The Engine's trainer (glassbox/train.hpp) for the page's training lab: a run begun from a config (with the
// loaded model's tokenizer) or from the loaded model (fine-tuning), stepped one step per call so the worker
// answers other messages (pause, stop) between steps; the held-out loss and every head's induction score of
// the weights as they are; the weights as GGUF bytes. The built-in synthetic tasks' text comes from the
// core's one statement of them. Training runs on one thread (the threaded module's Worker pool is the
// generation session's).
#include "engine.hpp"

namespace glassbox::wasm {
namespace {

std::string string_or(const val& options, const char* key, const std::string& fallback) {
  const val v = options[key];
  return v.isString() ? v.as<std::string>() : fallback;
}

double number_or(const val& options, const char* key, double fallback) {
  const val v = options[key];
  return v.isNumber() ? v.as<double>() : fallback;
}

// A JS number that must be a whole number in [lowest, highest]: the setting's value, or an error naming it.
Result<int> whole_setting(const val& options, const char* key, int fallback, int lowest, int highest) {
  const double v = number_or(options, key, fallback);
  if (!whole_number(v - lowest, highest - lowest))
    return error(ErrorCode::BadArgument, key, " must be a whole number in ", lowest, "..", highest,
                 ", found ", v);
  return static_cast<int>(v);
}

// {steps, batch, context, learningRate, warmup, schedule: "cosine" | "constant", weightDecay, clip, seed}:
// TrainingSettings, whose defaults fill what is missing (validate() checks the ranges).
Result<TrainingSettings> settings_from_js(const val& o) {
  TrainingSettings s;
  GLASSBOX_ASSIGN(s.steps, whole_setting(o, "steps", s.steps, 1, 1000000));
  GLASSBOX_ASSIGN(s.batch, whole_setting(o, "batch", s.batch, 1, 65536));
  GLASSBOX_ASSIGN(s.context, whole_setting(o, "context", s.context, 0, 1 << 20));
  GLASSBOX_ASSIGN(s.warmup, whole_setting(o, "warmup", s.warmup, 0, 1000000));
  GLASSBOX_ASSIGN(int seed, whole_setting(o, "seed", 42, 0, 2147483647));
  s.seed = static_cast<uint64_t>(seed);
  s.learning_rate = number_or(o, "learningRate", s.learning_rate);
  s.weight_decay = number_or(o, "weightDecay", s.weight_decay);
  s.clip = number_or(o, "clip", s.clip);
  const std::string schedule = string_or(o, "schedule", "cosine");
  if (schedule != "cosine" && schedule != "constant")
    return error(ErrorCode::BadArgument, "schedule must be cosine or constant, found ", schedule);
  s.schedule = schedule == "cosine" ? LearningRateShape::Cosine : LearningRateShape::Constant;
  s.threads = 1;
  GLASSBOX_TRY(validate(s));
  return s;
}

val numbers_to_js(const std::vector<double>& values) {
  val out = val::array();
  for (double v : values)
    out.call<void>("push", v);
  return out;
}

}  // namespace

// A synthetic task's text in the loaded model's vocabulary: {task, lines, length, seed, maxTokens} (train.hpp).
val Engine::synthetic_task(const val& options) const {
  if (!tokenizer_) return no_model();
  auto task = synthetic_task_named(string_or(options, "task", "copy"));
  if (!task) return failure(task.error());
  auto lines = whole_setting(options, "lines", 1000, 1, 1000000);
  if (!lines) return failure(lines.error());
  auto length = whole_setting(options, "length", 8, 2, 512);
  if (!length) return failure(length.error());
  auto seed = whole_setting(options, "seed", 1, 0, 2147483647);
  if (!seed) return failure(seed.error());
  auto max_tokens = whole_setting(options, "maxTokens", 0, 0, 1 << 20);
  if (!max_tokens) return failure(max_tokens.error());
  auto text = synthetic_task_text(*tokenizer_, {.task = *task,
                                                .lines = *lines,
                                                .length = *length,
                                                .seed = static_cast<uint64_t>(*seed),
                                                .max_tokens = *max_tokens});
  if (!text) return failure(text.error());
  return val(*text);
}

// Begins a run: `config` a training config's JSON (read_training_config) or "" to fine-tune the loaded model;
// `data` the training text (one sequence per line); `options` the settings (settings_from_js).
// {steps, layers, heads, parameters, context}.
val Engine::train_begin(const std::string& config, const std::string& data, const val& options) {
  if (!model_ || !tokenizer_) return no_model();
  trainer_.reset();
  auto settings = settings_from_js(options);
  if (!settings) return failure(settings.error());
  Result<Trainer> trainer = [&]() -> Result<Trainer> {
    if (config.empty()) return Trainer::from_model(*model_, tokenizer_, data, *settings);
    GLASSBOX_ASSIGN(ModelConfig c, read_training_config(config, "the training config", *tokenizer_));
    return Trainer::from_config(c, tokenizer_, data, *settings);
  }();
  if (!trainer) return failure(trainer.error());
  trainer_.emplace(std::move(*trainer));
  train_tokenizer_ = tokenizer_;
  const ModelConfig& c = trainer_->model()->config;
  int64_t parameters = 0;
  for_each_weight(trainer_->model()->weights,
                  [&](const std::string&, const Tensor& t) { parameters += t.elements(); });
  val result = val::object();
  result.set("steps", settings->steps);
  result.set("layers", c.n_layers);
  result.set("heads", c.n_heads);
  result.set("dim", c.dim);
  result.set("context", settings->context > 0 ? settings->context : c.max_seq_len);
  result.set("parameters", static_cast<double>(parameters));
  return result;
}

// One step: {step, loss, learningRate, gradNorm, layerGradNorms, tokens, seconds}.
val Engine::train_step() {
  if (!trainer_) return failure(ErrorCode::InvalidState, "no training run is under way (trainBegin first)");
  auto report = trainer_->step();
  if (!report) return failure(report.error());
  val result = val::object();
  result.set("step", report->step);
  result.set("loss", report->loss);
  result.set("learningRate", report->learning_rate);
  result.set("gradNorm", report->grad_norm);
  result.set("layerGradNorms", numbers_to_js(report->layer_grad_norms));
  result.set("tokens", report->tokens);
  result.set("seconds", report->seconds);
  return result;
}

// The held-out loss of the weights as they are on `text` (held_out_loss).
val Engine::train_held_out(const std::string& text) const {
  if (!trainer_) return failure(ErrorCode::InvalidState, "no training run is under way (trainBegin first)");
  auto loss = held_out_loss(trainer_->model(), *train_tokenizer_, text);
  if (!loss) return failure(loss.error());
  return val(*loss);
}

// Every head's induction score (layer-major) of the weights as they are, on the tokenizer's probe (the one
// the head statistics use), in a session of its own.
val Engine::train_induction() const {
  if (!trainer_) return failure(ErrorCode::InvalidState, "no training run is under way (trainBegin first)");
  auto session = Session::create(trainer_->model(), {.threads = 1});
  if (!session) return failure(session.error());
  auto scores = induction_scores(*session, induction_probe_for(*train_tokenizer_));
  if (!scores) return failure(scores.error());
  return numbers_to_js(*scores);
}

// The weights as they are, as an F32 GGUF file's bytes (a Uint8Array the JS side owns).
val Engine::train_gguf(const std::string& name) const {
  if (!trainer_) return failure(ErrorCode::InvalidState, "no training run is under way (trainBegin first)");
  auto bytes = trainer_->gguf_bytes(name);
  if (!bytes) return failure(bytes.error());
  val view(emscripten::typed_memory_view(bytes->size(), reinterpret_cast<const uint8_t*>(bytes->data())));
  return val::global("Uint8Array").new_(view);
}

void Engine::train_end() {
  trainer_.reset();
  train_tokenizer_.reset();
}

}  // namespace glassbox::wasm
