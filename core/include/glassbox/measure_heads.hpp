// Every head of a model measured in one call: its attention statistics over a prompt, its induction score on
// a probe, its effective rank and the role those suggest. What the page's head table and the CLI show.
#pragma once

#include <span>
#include <vector>

#include "glassbox/head_roles.hpp"
#include "glassbox/induction.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"

namespace glassbox {

struct HeadReport {
  int layer = 0;
  int head = 0;
  // Over the prompt's attention (glassbox/head_stats.hpp, HeadStats):
  double entropy_bits = 0;
  double uniform_entropy_bits = 0;  // the entropy's ceiling on this prompt
  double sink = 0;
  double previous_token = 0;
  double local = 0;
  int effective_rank = 0;  // of the last min(n, rank_window) positions (glassbox/effective_rank.hpp)
  // On the probe (glassbox/induction.hpp):
  double induction = 0;
  HeadRole role = HeadRole::Mixed;
};

// The effective rank's window: the attention matrix of the last 256 positions (queries and keys both in the
// window, so rows whose query sees earlier keys hold less than 1 there). Its SVD costs about 75 ms a head at
// 256 (effective_rank.hpp); a whole prompt's matrix would grow as n^3.
inline constexpr int kRankWindow = 256;

struct MeasureHeadsOptions {
  int threads = 1;  // for the forward passes and the heads' SVDs; the numbers do not depend on it
  // The induction probe; for a real model pass induction_probe_for(tokenizer) (BOS first, ordinary tokens).
  InductionProbe probe = {};
  int rank_window = kRankWindow;
};

// Runs `tokens` (the prompt) and the probe through one session of `model` (residual trace on) and measures
// every head, in layer-major order. The model must outlive the call only. Fails on no tokens, a token outside
// the vocabulary, more tokens than the model's context, a probe that does not fit, or threads < 1.
Result<std::vector<HeadReport>> measure_heads(const Model& model, std::span<const int> tokens,
                                              const MeasureHeadsOptions& options = {});

// A head's report from its statistics over the prompt and its effective rank (induction and role come later,
// from the probe): what measure_heads and a head-at-a-time measurement (the page's) both build.
HeadReport head_report(int layer, int head, const HeadStats& stats, int rank);

// How many heads have each role.
RoleCounts summarize_roles(std::span<const HeadReport> heads);

}  // namespace glassbox
