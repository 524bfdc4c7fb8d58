// How well a model predicts a text: the log-probability of each token given the ones before it, their mean
// negative (the loss, in nats per token, what training minimizes) and its exponential (the perplexity). The
// CLI's `glassbox score`, the page and training all call this one function.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/tokenizer.hpp"

namespace glassbox {

struct ScoreOptions {
  int threads = 1;  // the same bits for any count
};

struct TextScore {
  std::vector<int> ids;          // the text's tokens, BOS first where the prompt gets one (as generate)
  std::vector<double> logprobs;  // [ids.size() - 1]: natural log p(ids[i + 1] | ids[0..i])
  double loss = 0;               // mean of -logprobs (nats per token)
  double perplexity = 0;         // exp(loss)
};

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

}  // namespace glassbox
