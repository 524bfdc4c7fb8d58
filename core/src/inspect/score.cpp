#include "glassbox/score.hpp"

#include <algorithm>
#include <cmath>

#include "glassbox/error.hpp"
#include "glassbox/session.hpp"

namespace glassbox {

double log_probability(std::span<const float> logits, int id) {
  double max_logit = logits[0];
  for (float l : logits)
    max_logit = std::max(max_logit, static_cast<double>(l));
  double total = 0;
  for (float l : logits)
    total += std::exp(static_cast<double>(l) - max_logit);
  return static_cast<double>(logits[static_cast<std::size_t>(id)]) - max_logit - std::log(total);
}

Result<TextScore> score_tokens(std::shared_ptr<const Model> model, std::span<const int> ids,
                               const ScoreOptions& options) {
  if (!model) return error(ErrorCode::InvalidState, "score: no model");
  if (ids.size() < 2)
    return error(ErrorCode::BadArgument, "score: the text gives ", ids.size(),
                 " token(s); at least two are needed (one to predict from, one to predict)");
  const int n = static_cast<int>(ids.size());
  const ModelConfig& c = model->config;
  if (n > c.max_seq_len)
    return error(ErrorCode::PromptTooLong, "score: the text gives ", n,
                 " tokens, more than the model's context of ", c.max_seq_len);
  // The whole text in one forward pass (prefill_batch = n): the same bits as any other chunking for every
  // attention that can run token by token, and the only way low-rank attention can see its matrix.
  SessionOptions session_options{
      .threads = options.threads, .context_length = n, .trace_residuals = true, .prefill_batch = n};
  GLASSBOX_ASSIGN(Session session, Session::create(std::move(model), session_options));
  GLASSBOX_TRY(session.prefill(ids));

  TextScore score;
  score.ids.assign(ids.begin(), ids.end());
  std::vector<float> logits(static_cast<std::size_t>(c.vocab_size));
  double total = 0;
  for (int p = 0; p + 1 < n; ++p) {
    GLASSBOX_TRY(session.layer_logits(c.n_layers, p, logits));
    const double lp = log_probability(logits, ids[static_cast<std::size_t>(p) + 1]);
    score.logprobs.push_back(lp);
    total -= lp;
  }
  score.loss = total / static_cast<double>(score.logprobs.size());
  score.perplexity = std::exp(score.loss);
  return score;
}

Result<TextScore> score_text(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                             std::string_view text, const ScoreOptions& options) {
  const std::vector<int> ids = tokenizer.encode_prompt(text);
  return score_tokens(std::move(model), ids, options);
}

}  // namespace glassbox
