// The attention lab: one text read twice, with the model's exact attention and with an approximation
// (glassbox/attention_variant.hpp), compared where a person can see it. For one head, both attention matrices
// on the same q and k; at the step being looked at, both next-token distributions and their KL divergence; at
// every position, the KL and whether the top tokens agree; and the text each attention writes when it goes on
// from the step (greedy), so that a window's forgetting and linear attention's blur show as words. The page's
// lab panel calls this one function; the CLI's score --attention and inspect --attention report the same
// numbers for a whole text (glassbox/score.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "glassbox/attention_variant.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/score.hpp"
#include "glassbox/tokenizer.hpp"
#include "glassbox/top_tokens.hpp"

namespace glassbox {

class Session;

// One head's attention under exact softmax and under a variant, computed from the same q and k (the exact
// session's, recomputed from its residual trace): n x n row-major matrices over the positions the session
// has run, row i holding query i's weights over keys 0..i and zeros after. The variant's rows are those
// attention_row_errors compares: a mask's softmax, the weights linear and Performer imply, the exact matrix
// truncated to rank R (future weights set to 0).
struct HeadAttentionPair {
  int n = 0;
  std::vector<float> exact;
  std::vector<double> variant;
  double energy_kept = -1;  // low-rank: the share of the exact matrix's energy the truncation keeps; else -1
};

// BadArgument: a session not running exact attention or without its residual trace, a layer or head outside
// the model, a variant out of range.
Result<HeadAttentionPair> head_attention_pair(const Session& exact, const AttentionVariant& variant,
                                              int layer, int head);

struct AttentionLabOptions {
  AttentionVariant variant;  // the approximation compared with exact attention
  int layer = 0, head = 0;   // the head whose matrices are drawn
  int top_k = 8;             // tokens listed of each next-token distribution
  int continue_tokens = 0;   // greedy tokens each attention writes after the text (0: none)
  // How many of the newest positions get their next-token distributions compared (0: every one). Each costs
  // two products with the unembedding, which dominate for a large vocabulary.
  int compared_positions = 0;
  int threads = 1;
};

struct AttentionLab {
  std::vector<int> ids;  // the text read: its last position is the step looked at
  HeadAttentionPair head;
  // The next-token distributions at the last position.
  std::vector<TokenProbability> exact_top, variant_top;
  double kl = 0;  // KL(exact || variant), nats
  bool top_agrees = false;
  // At positions compared_from..n-1: KL(exact || variant) of the next-token distributions and whether the
  // most likely tokens agree (the last entry is the step's own).
  int compared_from = 0;
  std::vector<double> kl_by_position;
  std::vector<bool> top_agrees_by_position;
  // Each attention's loss on the text's tokens that the compared positions predict (mean -log p of tokens
  // compared_from + 1 .. n-1; 0 when there are none).
  double exact_loss = 0, variant_loss = 0;
  // Greedy continuations from the text (glassbox/generator.hpp's rules: an end-of-text token ends one, and it
  // is kept), and why the variant's is missing when it cannot generate (low-rank needs the whole prompt).
  std::vector<int> exact_continuation, variant_continuation;
  std::string variant_cannot_continue;
};

// About the bytes attention_lab holds for `n` tokens and a continuation: two sessions, each with its KV cache,
// its residual trace and a prompt's scratch for every token; a caller with a memory budget (the page's worker)
// compares before asking.
int64_t attention_lab_bytes(const ModelConfig& config, int n, int continue_tokens);

// Reads `ids` (the tokens up to and including the step looked at) with exact attention and with the variant.
// BadArgument: no tokens, an id outside the vocabulary, a layer or head outside the model, a variant out of
// range or one the model cannot take (Session::create says why); PromptTooLong past the model's context.
Result<AttentionLab> attention_lab(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                                   std::span<const int> ids, const AttentionLabOptions& options);

}  // namespace glassbox
