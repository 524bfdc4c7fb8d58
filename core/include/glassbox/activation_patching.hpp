// Activation patching: which activations carry the difference between two prompts of the same length. The
// model reads a clean prompt and a corrupt one; the metric is the log-probability of a target token at the
// last position. Then the corrupt prompt is read again with one activation put back to the clean run's, and
// the effect of that activation is
//     (metric_patched - metric_corrupt) / (metric_clean - metric_corrupt):
// 1 when it alone restores the clean prediction, 0 when it changes nothing. Two kinds of activation:
//   residual[l][p]  the residual stream entering layer l at position p (l = n_layers: leaving the last layer,
//                   before the final norm)
//   heads[l][h]     head h of layer l, its output (before the output projection) at every position
// When metric_clean and metric_corrupt are within kMinMetricGap of each other there is no difference to
// restore, and every effect is written as 0 (the patched metrics are there to read).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "glassbox/model.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

// Metric gaps below this (nats) are float noise, not a difference to divide by.
inline constexpr double kMinMetricGap = 1e-6;

struct PatchingOptions {
  int threads = 1;
  int target = -1;  // the token whose log-probability is measured; -1: the clean run's most likely one
  // Called after each patched run with the runs done and the runs in all; returning false cancels the work
  // (InvalidState "cancelled"). Empty: no progress reports.
  std::function<bool(int done, int total)> progress;
};

struct PatchingResult {
  int n_layers = 0, n_heads = 0, positions = 0;
  int target = 0;
  double metric_clean = 0.0, metric_corrupt = 0.0;  // log p(target) at the last position, natural log
  // Effects, and the metric of each patched run behind them:
  std::vector<double> residual, residual_metric;  // [(n_layers + 1) * positions], row l, column p
  std::vector<double> heads, head_metric;         // [n_layers * n_heads], layer-major
  int runs = 0;                                   // forward passes the patching took (clean and corrupt too)

  double residual_effect(int layer, int position) const {
    return residual[static_cast<std::size_t>(layer * positions + position)];
  }
  double head_effect(int layer, int head) const {
    return heads[static_cast<std::size_t>(layer * n_heads + head)];
  }
};

// The same work a step at a time, so a caller can report progress and stop between steps (the page's worker
// answers its messages between them). begin() reads both prompts (two forward passes) and checks what
// patch_activations checks; each step() runs up to `cells` more cells (a patched run each, or none where the
// activation is the same in both runs); result() is patch_activations' answer once finished() (before, the
// cells not yet run count as unchanged).
class PatchingJob {
 public:
  static Result<PatchingJob> begin(std::shared_ptr<const Model> model, std::span<const int> clean,
                                   std::span<const int> corrupt, const PatchingOptions& options = {});
  PatchingJob(PatchingJob&&) noexcept;
  PatchingJob& operator=(PatchingJob&&) noexcept;
  ~PatchingJob();

  int done() const;   // cells run so far
  int total() const;  // (n_layers + 1) * positions + n_layers * n_heads
  bool finished() const;
  void step(int cells = 1);
  PatchingResult result() const;

 private:
  struct State;
  explicit PatchingJob(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Patches every (layer, position) of the residual stream and every head. Errors: BadArgument for prompts of
// different lengths (naming both), an empty prompt, one longer than the model's context, a token outside the
// vocabulary, a target outside it, or an encoder; InvalidState when `progress` cancelled.
Result<PatchingResult> patch_activations(std::shared_ptr<const Model> model, std::span<const int> clean,
                                         std::span<const int> corrupt, const PatchingOptions& options = {});

}  // namespace glassbox
