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

Result<PatchingResult> patch_activations(std::shared_ptr<const Model> model, std::span<const int> clean,
                                         std::span<const int> corrupt, const PatchingOptions& options) {
  if (!model) return error(ErrorCode::InvalidState, "activation patching: no model");
  GLASSBOX_TRY(check_inputs(*model, clean, corrupt, options));
  const ModelConfig& c = model->config;
  const int n = static_cast<int>(clean.size()), layers = c.n_layers;

  PatchingResult r;
  r.n_layers = layers;
  r.n_heads = c.n_heads;
  r.positions = n;
  Patcher patcher(model, corrupt, options.threads);
  const Record clean_record = patcher.record(clean);
  const std::span<const float> clean_logits = patcher.logits();
  r.target = options.target >= 0
                 ? options.target
                 : static_cast<int>(std::max_element(clean_logits.begin(), clean_logits.end()) -
                                    clean_logits.begin());
  r.metric_clean = log_probability(clean_logits, r.target);
  const Record corrupt_record = patcher.record(corrupt);  // and the cache now holds the corrupt run
  r.metric_corrupt = log_probability(patcher.logits(), r.target);

  const int total = (layers + 1) * n + layers * c.n_heads;
  int done = 0;
  const auto report = [&]() -> Result<void> {
    ++done;
    if (options.progress && !options.progress(done, total))
      return error(ErrorCode::InvalidState, "activation patching cancelled after ", done, " of ", total,
                   " runs");
    return {};
  };

  r.residual_metric.assign(static_cast<std::size_t>((layers + 1) * n), r.metric_corrupt);
  for (int p = n - 1; p >= 0; --p) {
    for (int l = 0; l <= layers; ++l) {
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
      GLASSBOX_TRY(report());
    }
  }
  // A head's output before the prompts' first difference is the same in both runs, and so is every cached key
  // and value there (no run above started before it): each head run starts at that position.
  const auto first_difference =
      static_cast<int>(std::mismatch(clean.begin(), clean.end(), corrupt.begin()).first - clean.begin());
  r.head_metric.assign(static_cast<std::size_t>(layers * c.n_heads), r.metric_corrupt);
  for (int l = 0; l < layers; ++l) {
    for (int h = 0; h < c.n_heads; ++h) {
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
      GLASSBOX_TRY(report());
    }
  }

  const double gap = r.metric_clean - r.metric_corrupt;
  const auto effect = [&](double metric) {
    return std::abs(gap) < kMinMetricGap ? 0.0 : (metric - r.metric_corrupt) / gap;
  };
  for (double m : r.residual_metric)
    r.residual.push_back(effect(m));
  for (double m : r.head_metric)
    r.heads.push_back(effect(m));
  r.runs = patcher.runs();
  return r;
}

}  // namespace glassbox
