// How well a model predicts a text: the log-probability of each token given the ones before it, their mean
// negative (the loss, in nats per token, what training minimizes) and its exponential (the perplexity). The
// CLI's `glassbox score`, the page and training all call this one function.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "glassbox/attention_variant.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {

struct ScoreOptions {
  int threads = 1;                  // the same bits for any count
  AttentionVariant attention = {};  // which attention the run computes (default: the model's own)
  // With a variant: also run exact attention on the same text and compare the next-token distributions.
  bool compare_to_exact = false;
};

// How far one head's attention rows under a variant are from exact attention's on the same q and k, over
// every query and every key up to it: the largest and the mean absolute difference of the weights. For linear
// and performer the rows are the weights they imply, phi(q)·phi(k_j) normalized.
struct AttentionRowError {
  int layer = 0, head = 0;
  double max_abs = 0, mean_abs = 0;
  // low-rank: the share of the exact matrix's energy its rank-R truncation keeps (sum of the R largest
  // squared singular values over all of them); -1 for the other variants.
  double energy_kept = -1;
};

// The row errors of every layer and head (layer-major) over the positions `exact` has run: a session
// running exact attention with its residual trace kept (BadArgument otherwise; NotRecorded where a position
// was not kept).
class Session;
Result<std::vector<AttentionRowError>> attention_row_errors(const Session& exact,
                                                            const AttentionVariant& variant);

// A variant's predictions against exact attention's, at each position that predicts a token of the text.
struct AgainstExact {
  std::vector<double> kl;              // KL(exact || variant) of the next-token distributions, nats
  std::vector<bool> top_agrees;        // whether their most likely tokens are the same
  std::vector<double> exact_logprobs;  // exact attention's log p of the text's next token
  double mean_kl = 0;
  double top1_agreement = 0;  // the share of positions whose top tokens agree
  double exact_loss = 0;
  std::vector<AttentionRowError> heads;  // attention_row_errors, layer-major
};

struct TextScore {
  std::vector<int> ids;          // the text's tokens, BOS first where the prompt gets one (as generate)
  std::vector<double> logprobs;  // [ids.size() - 1]: natural log p(ids[i + 1] | ids[0..i])
  double loss = 0;               // mean of -logprobs (nats per token)
  double perplexity = 0;         // exp(loss)
  std::optional<AgainstExact> against_exact;  // with compare_to_exact and a variant
};

class JsonWriter;
// The comparison as a JSON object's members (the CLI's score --json and the inspection document write it):
// kl, top_agrees, mean_kl, top1_agreement, exact_loss, heads [{layer, head, max_abs, mean_abs}].
void write_json_members(JsonWriter& json, const AgainstExact& against);

// Scores token ids: one forward pass over all of them (the prompt path), the next-token distribution at each
// position read from the residual stream leaving the last layer (Session::layer_logits), its log-softmax
// computed in double. BadArgument with fewer than two tokens; PromptTooLong past the model's context.
Result<TextScore> score_tokens(std::shared_ptr<const Model> model, std::span<const int> ids,
                               const ScoreOptions& options = {});

// Scores a text encoded as generate encodes a prompt (Tokenizer::encode_prompt).
Result<TextScore> score_text(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                             std::string_view text, const ScoreOptions& options = {});

// log softmax(logits)[id] in double: the log-probability of one token under logits.
double log_probability(std::span<const float> logits, int id);
// KL(P || Q) = sum_i p_i (log p_i - log q_i) of the softmax distributions of two logit vectors, in nats.
double kl_divergence(std::span<const float> p_logits, std::span<const float> q_logits);

}  // namespace glassbox
