// Activation patching (glassbox/activation_patching.hpp). The clean prompt runs once with its residual trace
// and every head's output recorded (model/activation_patch.hpp); the corrupt prompt runs once the same way.
// Each patched run is then the corrupt prompt through the one forward pass with the patch set in its run
// state. Four savings, none of which changes a bit of any metric:
// - A patch at position p changes nothing before p (attention is causal), so a residual patch at p reads only
//   positions p.. again, over the corrupt prompt's keys and values of 0..p-1 already in the cache. The
//   positions go from the last to the first, so those rows always hold the corrupt run's. A head's patch
//   changes nothing before the prompts' first differing token either (its clean and corrupt outputs are the
//   same there), so head runs start at that token.
// - Where the clean run's activation equals the corrupt run's bit for bit (the positions before the prompts'
//   first difference), putting it in would change nothing: the metric is the corrupt one, without a run.
// - The stream leaving the last layer reaches the classifier only at the last position.
// - A patch at layer l changes nothing before layer l, so each patched run resumes at layer l from the corrupt
//   run's recorded stream; the layers it skips read only their own keys and values, which it does not need.
#include "glassbox/activation_patching.hpp"

#include <algorithm>
#include <cmath>

#include "glassbox/error.hpp"
#include "glassbox/residual_trace.hpp"
#include "glassbox/token_ids.hpp"
#include "model/forward.hpp"
#include "model/run_state.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {

// The natural log of the softmax of `logits` at `target`.
double log_probability(std::span<const float> logits, int target) {
  const float top = *std::max_element(logits.begin(), logits.end());
  double total = 0.0;
  for (float v : logits)
    total += std::exp(static_cast<double>(v) - top);
  return static_cast<double>(logits[static_cast<std::size_t>(target)]) - top - std::log(total);
}

// One prompt's record: its residual trace and its heads' outputs [n_layers][positions][q_dim].
struct Record {
  ResidualTrace stream;
  std::vector<float> heads;
};

class Patcher {
 public:
  Patcher(std::shared_ptr<const Model> model, std::span<const int> corrupt, int threads)
      : model_(std::move(model)),
        c_(model_->config),
        corrupt_(corrupt.begin(), corrupt.end()),
        n_(static_cast<int>(corrupt.size())),
        pool_(threads),
        state_(c_, n_, pool_.size(), n_) {
    state_.use_attention(c_, {});
  }

  // Reads `tokens` from position 0, recording the stream and every head's output.
  Record record(std::span<const int> tokens) {
    Record r{ResidualTrace(c_.n_layers, c_.dim, 0),
             std::vector<float>(static_cast<std::size_t>(c_.n_layers) * n_ * c_.q_dim())};
    for (int p = 0; p < n_; ++p)
      r.stream.begin_position(p);
    state_.patch = {};
    state_.patch.record_heads = r.heads.data();
    state_.patch.record_positions = n_;
    forward(*model_, state_, tokens, 0, nullptr, &r.stream, pool_);
    state_.patch = {};
    ++runs_;
    return r;
  }

  std::span<const float> logits() const { return state_.logits; }

  // The corrupt prompt from `first_position` on (the cache holding the corrupt run's rows before it) with
  // `patch`; the metric of the target.
  double run(const ActivationPatch& patch, int first_position, int target) {
    state_.patch = patch;
    state_.patch.record_positions = n_;
    forward(*model_, state_, std::span<const int>(corrupt_).subspan(static_cast<std::size_t>(first_position)),
            first_position, nullptr, nullptr, pool_);
    state_.patch = {};
    ++runs_;
    return log_probability(state_.logits, target);
  }

  int runs() const { return runs_; }

 private:
  std::shared_ptr<const Model> model_;
  const ModelConfig& c_;
  std::vector<int> corrupt_;
  int n_;
  ThreadPool pool_;
  RunState state_;
  int runs_ = 0;
};

bool same_rows(std::span<const float> a, std::span<const float> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// Whether head h of `layer` has the same output at every position in both records.
bool same_head(const ModelConfig& c, const Record& a, const Record& b, int layer, int head, int positions) {
  const auto q_dim = static_cast<std::size_t>(c.q_dim()), head_dim = static_cast<std::size_t>(c.head_dim);
  for (int p = 0; p < positions; ++p) {
    const std::size_t at = (static_cast<std::size_t>(layer) * positions + p) * q_dim + head * head_dim;
    if (!std::equal(a.heads.begin() + at, a.heads.begin() + at + head_dim, b.heads.begin() + at))
      return false;
  }
  return true;
}

Result<void> check_inputs(const Model& model, std::span<const int> clean, std::span<const int> corrupt,
                          const PatchingOptions& options) {
  const ModelConfig& c = model.config;
  if (!c.causal)
    return error(ErrorCode::BadArgument,
                 "activation patching measures a next token, and this model is an "
                 "encoder (",
                 c.architecture, ")");
  if (clean.size() != corrupt.size())
    return error(ErrorCode::BadArgument,
                 "the clean and corrupt prompts must have the same number of tokens: the "
                 "clean one has ",
                 clean.size(), ", the corrupt one ", corrupt.size());
  if (clean.empty()) return error(ErrorCode::PromptEmpty, "activation patching: the prompts have no tokens");
  if (static_cast<int64_t>(clean.size()) > c.max_seq_len)
    return error(ErrorCode::PromptTooLong, "the prompts have ", clean.size(),
                 " tokens, more than the model's ", c.max_seq_len, " positions");
  GLASSBOX_TRY(check_token_ids(clean, c.vocab_size));
  GLASSBOX_TRY(check_token_ids(corrupt, c.vocab_size));
  if (options.target < -1 || options.target >= c.vocab_size)
    return error(ErrorCode::BadArgument, "target token ", options.target, " is not in the vocabulary (0..",
                 c.vocab_size - 1, ")");
  if (options.threads < 1)
    return error(ErrorCode::BadArgument, "threads must be >= 1, found ", options.threads);
  return {};
}

}  // namespace

// The job's state: the patcher and both records, the result filled cell by cell, and where it stands. Cells
// go in a fixed order (the residual stream from the last position to the first, every layer at each; then the
// heads, layer by layer), so a job stepped in any chunks computes what one call does.
struct PatchingJob::State {
  State(std::shared_ptr<const Model> m, std::span<const int> clean_ids, std::span<const int> corrupt_ids,
        int threads)
      : model(std::move(m)),
        clean(clean_ids.begin(), clean_ids.end()),
        corrupt(corrupt_ids.begin(), corrupt_ids.end()),
        patcher(model, corrupt_ids, threads) {}

  std::shared_ptr<const Model> model;
  std::vector<int> clean, corrupt;
  Patcher patcher;
  Record clean_record, corrupt_record;
  PatchingResult r;
  int first_difference = 0;
  int done = 0, total = 0;

  // Cell `i`: a residual (layer, position) for i < (layers + 1) * n, then a head.
  void run_cell(int i) {
    const ModelConfig& c = model->config;
    const int n = r.positions, layers = r.n_layers;
    if (i < (layers + 1) * n) {
      const int p = n - 1 - i / (layers + 1), l = i % (layers + 1);
      const bool reaches_output = l < layers || p == n - 1;
      if (reaches_output && !same_rows(clean_record.stream.row(l, p), corrupt_record.stream.row(l, p))) {
        ActivationPatch patch;
        patch.stream_layer = l;
        patch.stream_begin = p;
        patch.stream_end = p + 1;
        patch.stream_source = &clean_record.stream;
        patch.resume_layer = l;
        patch.resume_source = &corrupt_record.stream;
        r.residual_metric[static_cast<std::size_t>(l * n + p)] = patcher.run(patch, p, r.target);
      }
      return;
    }
    const int cell = i - (layers + 1) * n, l = cell / c.n_heads, h = cell % c.n_heads;
    if (!same_head(c, clean_record, corrupt_record, l, h, n)) {
      ActivationPatch patch;
      patch.head_layer = l;
      patch.head = h;
      patch.head_source = clean_record.heads.data();
      patch.resume_layer = l;
      patch.resume_source = &corrupt_record.stream;
      r.head_metric[static_cast<std::size_t>(l * c.n_heads + h)] =
          patcher.run(patch, first_difference, r.target);
    }
  }
};

PatchingJob::PatchingJob(std::unique_ptr<State> state) : state_(std::move(state)) {}
PatchingJob::PatchingJob(PatchingJob&&) noexcept = default;
PatchingJob& PatchingJob::operator=(PatchingJob&&) noexcept = default;
PatchingJob::~PatchingJob() = default;

Result<PatchingJob> PatchingJob::begin(std::shared_ptr<const Model> model, std::span<const int> clean,
                                       std::span<const int> corrupt, const PatchingOptions& options) {
  if (!model) return error(ErrorCode::InvalidState, "activation patching: no model");
  GLASSBOX_TRY(check_inputs(*model, clean, corrupt, options));
  const ModelConfig& c = model->config;
  const int n = static_cast<int>(clean.size()), layers = c.n_layers;
  auto s = std::make_unique<State>(model, clean, corrupt, options.threads);
  PatchingResult& r = s->r;
  r.n_layers = layers;
  r.n_heads = c.n_heads;
  r.positions = n;
  s->clean_record = s->patcher.record(clean);
  const std::span<const float> clean_logits = s->patcher.logits();
  r.target = options.target >= 0
                 ? options.target
                 : static_cast<int>(std::max_element(clean_logits.begin(), clean_logits.end()) -
                                    clean_logits.begin());
  r.metric_clean = log_probability(clean_logits, r.target);
  s->corrupt_record = s->patcher.record(corrupt);  // and the cache now holds the corrupt run
  r.metric_corrupt = log_probability(s->patcher.logits(), r.target);
  r.residual_metric.assign(static_cast<std::size_t>((layers + 1) * n), r.metric_corrupt);
  r.head_metric.assign(static_cast<std::size_t>(layers * c.n_heads), r.metric_corrupt);
  // A head's output before the prompts' first difference is the same in both runs, and so is every cached key
  // and value there (no run above started before it): each head run starts at that position.
  s->first_difference =
      static_cast<int>(std::mismatch(clean.begin(), clean.end(), corrupt.begin()).first - clean.begin());
  s->total = (layers + 1) * n + layers * c.n_heads;
  return PatchingJob(std::move(s));
}

int PatchingJob::done() const {
  return state_->done;
}
int PatchingJob::total() const {
  return state_->total;
}
bool PatchingJob::finished() const {
  return state_->done == state_->total;
}

void PatchingJob::step(int cells) {
  for (int i = 0; i < cells && !finished(); ++i)
    state_->run_cell(state_->done++);
}

PatchingResult PatchingJob::result() const {
  PatchingResult r = state_->r;
  const double gap = r.metric_clean - r.metric_corrupt;
  const auto effect = [&](double metric) {
    return std::abs(gap) < kMinMetricGap ? 0.0 : (metric - r.metric_corrupt) / gap;
  };
  for (double m : r.residual_metric)
    r.residual.push_back(effect(m));
  for (double m : r.head_metric)
    r.heads.push_back(effect(m));
  r.runs = state_->patcher.runs();
  return r;
}

Result<PatchingResult> patch_activations(std::shared_ptr<const Model> model, std::span<const int> clean,
                                         std::span<const int> corrupt, const PatchingOptions& options) {
  GLASSBOX_ASSIGN(PatchingJob job, PatchingJob::begin(std::move(model), clean, corrupt, options));
  while (!job.finished()) {
    job.step(1);
    if (options.progress && !options.progress(job.done(), job.total()))
      return error(ErrorCode::InvalidState, "activation patching cancelled after ", job.done(), " of ",
                   job.total(), " runs");
  }
  return job.result();
}

}  // namespace glassbox
