// The training loop behind glassbox/train.hpp: batches of packed rows (train/training_data.hpp), each row's
// loss and gradients alone (train/model_gradients.hpp) on the thread pool, the rows' gradients summed in row
// order, global-norm clipping, AdamW at the scheduled learning rate.
#include "glassbox/train.hpp"

#include <chrono>
#include <cmath>
#include <optional>

#include "formats/safetensors_writer.hpp"
#include "glassbox/formats.hpp"
#include "train/adamw.hpp"
#include "train/clipping.hpp"
#include "train/model_gradients.hpp"
#include "train/parameters_model.hpp"
#include "train/schedule.hpp"
#include "train/training_config.hpp"
#include "train/training_data.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

using train::ModelParameters;

namespace {

// Every tensor of `p` with its name, in ModelParameters::for_each order (the same order for any two
// parameter sets of one model, so the i-th entries of two lists are the same tensor).
std::vector<std::pair<std::string, std::vector<float>*>> tensors_of(ModelParameters<float>& p) {
  std::vector<std::pair<std::string, std::vector<float>*>> out;
  p.for_each([&](const std::string& name, std::vector<float>& t) { out.emplace_back(name, &t); });
  return out;
}

void set_zero(ModelParameters<float>& p) {
  p.for_each([](const std::string&, std::vector<float>& t) { std::fill(t.begin(), t.end(), 0.0f); });
}

void copy_values(ModelParameters<float>& to, ModelParameters<float>& from) {
  const auto source = tensors_of(from);
  std::size_t i = 0;
  to.for_each([&](const std::string&, std::vector<float>& t) {
    const std::vector<float>& s = *source[i++].second;
    std::copy(s.begin(), s.end(), t.begin());  // in place: the model's views of `to` stay valid
  });
}

// The norm of each layer's gradients alone, in double (its tensors' sums of squares, in order).
std::vector<double> layer_norms(ModelParameters<float>& gradients) {
  std::vector<double> norms;
  for (train::LayerParameters<float>& layer : gradients.layers) {
    double sum = 0;
    layer.for_each("", [&](const std::string&, std::vector<float>& t) { sum += train::sum_of_squares(t); });
    norms.push_back(std::sqrt(sum));
  }
  return norms;
}

}  // namespace

struct Trainer::State {
  ModelConfig config;
  std::shared_ptr<const Tokenizer> tokenizer;
  TrainingSettings settings;
  std::vector<train::TrainingLine> lines;
  std::optional<train::RowStream> rows;  // reads `lines`: the state lives on the heap and never moves
  std::shared_ptr<ModelParameters<float>> parameters;
  std::shared_ptr<const Model> model;  // views `parameters`
  ModelParameters<float> gradients, m, v;
  // The weights before the last update, whose loss was finite (last_good_loss): put back when the update
  // turns out to have broken them.
  ModelParameters<float> last_good;
  double last_good_loss = 0;
  std::optional<ModelParameters<float>> first_gradients;
  std::vector<ModelParameters<float>> row_gradients;  // one per row of a wave (as many rows as threads)
  std::unique_ptr<ThreadPool> pool;
  int steps_done = 0;
  std::string weights_note;  // Trainer::weights_note
};

Result<void> validate(const TrainingSettings& s) {
  const auto bad = [](const auto&... parts) { return error(ErrorCode::BadArgument, parts...); };
  if (s.steps < 1) return bad("steps must be at least 1, found ", s.steps);
  if (s.batch < 1 || s.batch > 65536) return bad("batch must be in 1..65536, found ", s.batch);
  if (s.context < 0) return bad("context must be positive (0: the model's), found ", s.context);
  if (!(std::isfinite(s.learning_rate) && s.learning_rate > 0))
    return bad("the learning rate must be a finite number > 0, found ", s.learning_rate);
  if (s.warmup < 0 || s.warmup > s.steps)
    return bad("warmup must be in 0..steps (", s.steps, "), found ", s.warmup);
  if (!(std::isfinite(s.weight_decay) && s.weight_decay >= 0))
    return bad("weight decay must be a finite number >= 0, found ", s.weight_decay);
  if (!(std::isfinite(s.clip) && s.clip >= 0))
    return bad("clip must be a finite number >= 0 (0: off), found ", s.clip);
  if (s.threads < 1 || s.threads > 256) return bad("threads must be in 1..256, found ", s.threads);
  return ok();
}

namespace {

Result<std::unique_ptr<Trainer::State>> make_state(ModelConfig config, ModelParameters<float> parameters,
                                                   std::shared_ptr<const Tokenizer> tokenizer,
                                                   std::string_view data, const TrainingSettings& settings) {
  GLASSBOX_TRY(validate(settings));
  if (!tokenizer) return error(ErrorCode::TokenizerNeeded, "training needs a tokenizer to read its data");
  if (tokenizer->vocab_size() > config.vocab_size)
    return error(ErrorCode::VocabMismatch, "the tokenizer has ", tokenizer->vocab_size(),
                 " tokens, more than the model's ", config.vocab_size, " rows of embeddings");
  const int context = settings.context > 0 ? settings.context : config.max_seq_len;
  if (context > config.max_seq_len)
    return error(ErrorCode::BadArgument, "a context of ", context, " tokens is longer than the model's ",
                 config.max_seq_len);
  auto s = std::make_unique<Trainer::State>();
  GLASSBOX_ASSIGN(s->lines, train::tokenize_lines(data, *tokenizer, context));
  s->rows.emplace(s->lines, context, settings.seed);
  s->config = std::move(config);
  s->tokenizer = std::move(tokenizer);
  s->settings = settings;
  s->parameters = std::make_shared<ModelParameters<float>>(std::move(parameters));
  s->model = train::model_viewing(s->config, s->parameters);
  s->gradients = train::zeros_like(*s->parameters);
  s->m = s->gradients;
  s->v = s->gradients;
  s->last_good = *s->parameters;
  s->pool = std::make_unique<ThreadPool>(settings.threads);
  s->row_gradients.assign(static_cast<std::size_t>(std::min(settings.batch, s->pool->size())), s->gradients);
  return s;
}

// Trainer::weights_note's sentence for the stored types of a model's tensors: empty when all were F32.
std::string dequantization_note(const std::vector<train::StoredTypeCount>& stored) {
  std::string decoded;
  int f32 = 0;
  for (const train::StoredTypeCount& s : stored) {
    if (s.type == DType::F32) {
      f32 = s.tensors;
      continue;
    }
    decoded += cat(decoded.empty() ? "" : ", ", to_string(s.type), " (", s.tensors,
                   s.tensors == 1 ? " tensor)" : " tensors)");
  }
  if (decoded.empty()) return "";
  const std::string others = f32 > 0 ? cat("; ", f32, f32 == 1 ? " other was F32" : " others were F32") : "";
  return cat("trained from dequantized weights: ", decoded, others, "; the output is F32");
}

}  // namespace

Result<Trainer> Trainer::from_model(const Model& model, std::shared_ptr<const Tokenizer> tokenizer,
                                    std::string_view data, const TrainingSettings& settings) {
  std::vector<train::StoredTypeCount> stored;
  GLASSBOX_ASSIGN(ModelParameters<float> parameters, train::model_parameters<float>(model, &stored));
  GLASSBOX_ASSIGN(std::unique_ptr<State> state,
                  make_state(model.config, std::move(parameters), std::move(tokenizer), data, settings));
  state->weights_note = dequantization_note(stored);
  return Trainer(std::move(state));
}

Result<Trainer> Trainer::from_config(const ModelConfig& config, std::shared_ptr<const Tokenizer> tokenizer,
                                     std::string_view data, const TrainingSettings& settings) {
  GLASSBOX_TRY(validate(config, "the training config"));
  GLASSBOX_TRY(train::check_trainable(config));
  if (tokenizer && tokenizer->vocab_size() != config.vocab_size)
    return error(ErrorCode::VocabMismatch, "the config's vocabulary of ", config.vocab_size,
                 " tokens does not fit the tokenizer, which has ", tokenizer->vocab_size());
  GLASSBOX_ASSIGN(std::unique_ptr<State> state,
                  make_state(config, train::random_parameters(config, settings.seed), std::move(tokenizer),
                             data, settings));
  return Trainer(std::move(state));
}

Trainer::Trainer(std::unique_ptr<State> state) : state_(std::move(state)) {}
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;
Trainer::~Trainer() = default;

int Trainer::steps_done() const {
  return state_->steps_done;
}

const std::string& Trainer::weights_note() const {
  return state_->weights_note;
}

std::shared_ptr<const Model> Trainer::model() const {
  return state_->model;
}

Result<TrainingStepReport> Trainer::step() {
  State& s = *state_;
  const int step = s.steps_done;
  if (step >= s.settings.steps)
    return error(ErrorCode::InvalidState, "training: all ", s.settings.steps, " steps are done");
  const auto start = std::chrono::steady_clock::now();

  const auto batch = static_cast<std::size_t>(s.settings.batch);
  std::vector<std::vector<int>> rows(batch);
  std::size_t predicted = 0;  // tokens the batch predicts: each row's but its first
  int tokens = 0;
  for (std::vector<int>& row : rows) {
    row = s.rows->next_row();
    predicted += row.size() - 1;
    tokens += static_cast<int>(row.size());
  }

  // Each row alone (its gradients into a buffer of its own, its tokens' log-probabilities: `score`'s bits,
  // train/model_gradients.hpp), a wave of as many rows as there are threads at a time; then the wave's
  // gradients are added into the batch's in row order, each weighted by its share of the predicted tokens.
  // The order of the additions depends on nothing but the rows, so any thread count gives the same bits.
  std::vector<std::vector<double>> logprobs(batch);
  std::vector<std::optional<Error>> failures(batch);
  set_zero(s.gradients);
  const auto sums = tensors_of(s.gradients);
  const std::size_t wave = s.row_gradients.size();
  for (std::size_t first = 0; first < batch; first += wave) {
    const std::size_t count = std::min(wave, batch - first);
    s.pool->parallel_pieces(count, 1, [&](std::size_t begin, std::size_t end, int) {
      for (std::size_t i = begin; i < end; ++i) {
        const std::size_t r = first + i;
        set_zero(s.row_gradients[i]);
        auto loss = train::model_loss_and_gradients(s.config, *s.parameters, rows[r], s.row_gradients[i],
                                                    &logprobs[r]);
        if (!loss) failures[r] = loss.error();
      }
    });
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t r = first + i;
      if (failures[r]) return *failures[r];
      const float weight = static_cast<float>(rows[r].size() - 1) / static_cast<float>(predicted);
      const auto row = tensors_of(s.row_gradients[i]);
      for (std::size_t t = 0; t < sums.size(); ++t) {
        std::vector<float>& sum = *sums[t].second;
        const std::vector<float>& g = *row[t].second;
        for (std::size_t k = 0; k < sum.size(); ++k)
          sum[k] += weight * g[k];
      }
    }
  }
  // The batch's loss: minus the sum of every predicted token's log-probability, in row order, over their
  // count (score_tokens' own sum for a batch of one row).
  double total = 0;
  for (const std::vector<double>& row : logprobs)
    for (double lp : row)
      total -= lp;
  const double loss = total / static_cast<double>(predicted);

  // A loss or gradient that is not a number stops the run. The weights that gave it came from the last
  // update (a too-large learning rate throws them far): they are put back as they were before it.
  const auto stop = [&](const char* what, double value) -> Error {
    std::string kept = "the initial weights are kept";
    if (step > 0) {
      copy_values(*s.parameters, s.last_good);
      kept = cat("the weights are put back as they were before step ", step - 1, "'s update (loss ",
                 s.last_good_loss, "), the last good ones");
    }
    return error(ErrorCode::BadArgument, "training stopped at step ", step, ": ", what, " is ", value,
                 " (not a finite number; a lower learning rate may help); ", kept);
  };
  if (!std::isfinite(loss)) return stop("the loss", loss);
  std::vector<std::span<float>> gradient_spans;
  for (const auto& [name, g] : sums)
    gradient_spans.emplace_back(*g);
  if (s.settings.keep_first_gradients && step == 0) s.first_gradients = s.gradients;
  std::vector<double> layer_grad_norms = layer_norms(s.gradients);
  const double grad_norm = train::clip_global_norm(gradient_spans, s.settings.clip);
  if (!std::isfinite(grad_norm)) return stop("the gradients' global norm", grad_norm);

  copy_values(s.last_good, *s.parameters);
  s.last_good_loss = loss;
  const train::LearningRateSchedule schedule{.peak = s.settings.learning_rate,
                                             .minimum = 0.0,
                                             .warmup = s.settings.warmup,
                                             .steps = s.settings.steps,
                                             .shape = s.settings.schedule == LearningRateShape::Cosine
                                                          ? train::ScheduleShape::Cosine
                                                          : train::ScheduleShape::Constant};
  const double lr = train::learning_rate(schedule, step);
  const train::AdamWSettings adamw{.weight_decay = s.settings.weight_decay};
  const auto weights = tensors_of(*s.parameters), m = tensors_of(s.m), v = tensors_of(s.v);
  for (std::size_t t = 0; t < weights.size(); ++t)
    train::adamw_update(*weights[t].second, *sums[t].second, *m[t].second, *v[t].second, step + 1, lr, adamw,
                        train::takes_weight_decay(weights[t].first));
  ++s.steps_done;
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  return TrainingStepReport{.step = step,
                            .loss = loss,
                            .learning_rate = lr,
                            .grad_norm = grad_norm,
                            .tokens = tokens,
                            .seconds = seconds.count(),
                            .layer_grad_norms = std::move(layer_grad_norms)};
}

Result<void> Trainer::write_gguf(const std::string& path, const std::string& name) const {
  GLASSBOX_TRY(export_gguf(*state_->model, *state_->tokenizer, ExportType::F32, name, path));
  return ok();
}

Result<std::vector<std::byte>> Trainer::gguf_bytes(const std::string& name) const {
  return export_gguf_bytes(*state_->model, *state_->tokenizer, ExportType::F32, name);
}

Result<void> Trainer::write_first_gradients(const std::string& path) const {
  if (!state_->first_gradients)
    return error(ErrorCode::InvalidState,
                 "training: step 0's gradients were not kept (keep_first_gradients, before the first step)");
  std::vector<SafetensorsF32> tensors;
  const std::vector<train::GgufNamedTensor> named =
      train::gguf_named_tensors(state_->config, *state_->first_gradients);
  for (const train::GgufNamedTensor& t : named)
    tensors.push_back({t.name, t.shape, t.values});
  return write_safetensors(path, tensors);
}

}  // namespace glassbox
