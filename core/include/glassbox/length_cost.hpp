// What attention costs as the text grows, measured on a loaded model and set beside the seeds' formulas: for
// an attention variant (exact, window:W, linear, ...) and a length n,
//   prefill   the time of one forward pass over a prompt of n tokens (Session::prefill, in its chunks);
//   token     the time of decoding the token at position n - 1, the one that attends to n keys, after a
//             prompt of the n - 1 before it (Session::step): what the n-th token of a generation costs;
//   memory    what the session allocates for it, read from its buffers (Session::memory): the KV cache,
//             the attention scores, and the running sums of linear and performer attention.
// The tokens are a fixed sequence (id (7919 i + 1) mod vocab_size at position i): a forward pass does the
// same work whatever the ids are. Each time is the median of `repeat` runs, with the fastest and slowest.
//
// The formulas, in FLOPs (a multiply-add counts 2) for the token attending to n keys, summed over layers
// (d = dim, h = hidden_dim, q = n_heads * head_dim, kv = n_kv_heads * head_dim, L = n_layers; f = head_dim for
// linear attention, M for performer):
//   attention      exact and the masks: 4 q k per layer, k the keys the query sees (n, or the window's);
//                  linear, performer: 2 f head_dim (n_kv_heads + n_heads) per layer, the same at every n
//   projections    2 (q d + 2 kv d + d q) per layer: n d^2 for a prompt of n
//   feed-forward   2 (3 h d) per layer gated, 2 (2 h d) plain: n d h for a prompt of n
// A prompt's are the sums over its tokens: attention grows as n^2 d, the rest as n d^2 and n d h. The
// crossover n* is the first length whose token spends more on attention than on the feed-forward.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "glassbox/attention_variant.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/session.hpp"

namespace glassbox {

// The lengths `glassbox bench --lengths` measures when none are named: 64, 128, ..., 2048.
std::vector<int> default_cost_lengths();

// Lengths measured in seconds (the page's plot): powers of two from 16 up to the context, while one prompt's
// formula FLOPs with exact attention (attention, projections and feed-forward) stay within `flop_budget`;
// at least the shortest.
std::vector<int> quick_cost_lengths(const ModelConfig& config, int64_t flop_budget);

// The variants measured when none are named: exact, window:W (W a quarter of the context, at most 256, at
// least 1) and linear.
std::vector<AttentionVariant> default_cost_variants(const ModelConfig& config);

// Checks that `variant` can be measured on the model: a session takes it (Session::create's refusals: linear
// on an ALiBi or sliding-window model, ...), and it generates (low-rank reads only a whole prompt, so it has
// no per-token time). BadArgument saying why not.
Result<void> check_cost_variant(std::shared_ptr<const Model> model, const AttentionVariant& variant);

// Reads "64,128,256": whole numbers of tokens, each at least 1. BadArgument naming the entry that is not one.
// (Lengths past a model's context are the caller's to skip or refuse: measure_length_cost refuses them.)
Result<std::vector<int>> parse_cost_lengths(std::string_view text);

// Reads "exact,window:64,global-window:1,8,linear": variants (parse_attention_variant's spellings) separated by
// commas, a comma followed by a digit continuing the variant before it (global-window's G,W). BadArgument
// with parse_attention_variant's message for the entry it refuses.
Result<std::vector<AttentionVariant>> parse_cost_variants(std::string_view text);

struct CostFormula {
  // FLOPs of the token attending to n keys, all layers.
  int64_t attention_token = 0;
  int64_t projections_token = 0;
  int64_t feed_forward_token = 0;
  // FLOPs of a prompt of n tokens (the tokens at 0 .. n - 1), all layers, output left out.
  int64_t attention_prompt = 0;
  int64_t projections_prompt = 0;
  int64_t feed_forward_prompt = 0;
  // What the seeds' memory formulas give, in float32 bytes: one layer's attention scores for a prompt held
  // whole (n x keys seen, per head: n^2 for exact), the KV cache the variant needs (2 L n kv for exact, only
  // the window's keys for a window, none for linear and performer), and the running sums of linear and
  // performer (L n_kv_heads (f head_dim + f), the same at every n).
  int64_t scores_bytes = 0;
  int64_t kv_cache_bytes = 0;
  int64_t state_bytes = 0;
};

CostFormula cost_formula(const ModelConfig& config, const AttentionVariant& variant, int n);

// The first n at which cost_formula(...).attention_token passes feed_forward_token; 0 when it never does
// (a window too small to reach it, linear attention's constant cost).
int crossover_length(const ModelConfig& config, const AttentionVariant& variant);

struct Spread {
  double median = 0, min = 0, max = 0;
};

struct LengthCostPoint {
  int length = 0;
  Spread prefill_seconds;  // one forward pass over n tokens
  Spread token_seconds;    // the token at position n - 1
  SessionMemory memory;    // of a session whose context holds exactly n positions
  CostFormula formula;
};

struct LengthCostOptions {
  int threads = 1;
  int repeat = 3;  // runs per time; the median is reported
};

// Measures one variant at one length (a session of its own, context n, an untimed warm-up pass first).
// BadArgument on a length outside 1..max_seq_len, a variant check_cost_variant refuses, a repeat below 1.
Result<LengthCostPoint> measure_length_cost(std::shared_ptr<const Model> model,
                                            const AttentionVariant& variant, int length,
                                            const LengthCostOptions& options = {});

}  // namespace glassbox
