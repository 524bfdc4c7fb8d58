#include "glassbox/score.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "glassbox/error.hpp"
#include "glassbox/json_writer.hpp"
#include "glassbox/session.hpp"
#include "whole_text.hpp"

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

namespace {

int top_token(std::span<const float> logits) {
  return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace

Result<Session> read_whole_text(const std::shared_ptr<const Model>& model, std::span<const int> ids,
                                int threads, const AttentionVariant& attention, int extra_positions) {
  const int n = static_cast<int>(ids.size());
  const int context = std::min(model->config.max_seq_len, n + std::max(0, extra_positions));
  SessionOptions options{
      .threads = threads, .context_length = context, .trace_residuals = true, .prefill_batch = n};
  options.attention = attention;
  GLASSBOX_ASSIGN(Session session, Session::create(model, options));
  GLASSBOX_TRY(session.prefill(ids));
  return session;
}

double kl_divergence(std::span<const float> p_logits, std::span<const float> q_logits) {
  // log p_i = l_i - log sum_j e^(l_j), each normalizer computed once.
  auto log_normalizer = [](std::span<const float> logits) {
    const double top = *std::max_element(logits.begin(), logits.end());
    double total = 0;
    for (float l : logits)
      total += std::exp(static_cast<double>(l) - top);
    return top + std::log(total);
  };
  const double p_norm = log_normalizer(p_logits), q_norm = log_normalizer(q_logits);
  double total = 0;
  for (std::size_t i = 0; i < p_logits.size(); ++i) {
    const double log_p = static_cast<double>(p_logits[i]) - p_norm;
    total += std::exp(log_p) * (log_p - (static_cast<double>(q_logits[i]) - q_norm));
  }
  return total;
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
  GLASSBOX_ASSIGN(Session session, read_whole_text(model, ids, options.threads, options.attention));
  std::optional<Session> exact;
  if (options.compare_to_exact && !options.attention.is_exact()) {
    GLASSBOX_ASSIGN(exact, read_whole_text(model, ids, options.threads, AttentionVariant{}));
  }

  TextScore score;
  score.ids.assign(ids.begin(), ids.end());
  std::vector<float> logits(static_cast<std::size_t>(c.vocab_size)), exact_logits(logits.size());
  double total = 0;
  AgainstExact against;
  for (int p = 0; p + 1 < n; ++p) {
    GLASSBOX_TRY(session.layer_logits(c.n_layers, p, logits));
    const double lp = log_probability(logits, ids[static_cast<std::size_t>(p) + 1]);
    score.logprobs.push_back(lp);
    total -= lp;
    if (exact) {
      GLASSBOX_TRY(exact->layer_logits(c.n_layers, p, exact_logits));
      against.kl.push_back(kl_divergence(exact_logits, logits));
      const int exact_top = top_token(exact_logits), top = top_token(logits);
      against.top_agrees.push_back(exact_top == top);
      against.exact_logprobs.push_back(log_probability(exact_logits, ids[static_cast<std::size_t>(p) + 1]));
    }
  }
  score.loss = total / static_cast<double>(score.logprobs.size());
  score.perplexity = std::exp(score.loss);
  if (exact) {
    const auto count = static_cast<double>(against.kl.size());
    double kl = 0, agreeing = 0, exact_total = 0;  // sums first, then the means, as the loss
    for (std::size_t i = 0; i < against.kl.size(); ++i) {
      kl += against.kl[i];
      agreeing += against.top_agrees[i] ? 1 : 0;
      exact_total -= against.exact_logprobs[i];
    }
    against.mean_kl = kl / count;
    against.top1_agreement = agreeing / count;
    against.exact_loss = exact_total / count;
    GLASSBOX_ASSIGN(against.heads, attention_row_errors(*exact, options.attention));
    score.against_exact = std::move(against);
  }
  return score;
}

void write_json_members(JsonWriter& json, const AgainstExact& a) {
  json.key("kl").begin_array();
  for (double kl : a.kl)
    json.number(kl);
  json.end_array().key("top_agrees").begin_array();
  for (bool agrees : a.top_agrees)
    json.boolean(agrees);
  json.end_array();
  json.key("mean_kl").number(a.mean_kl).key("top1_agreement").number(a.top1_agreement);
  json.key("exact_loss").number(a.exact_loss);
  json.key("heads").begin_array();
  for (const AttentionRowError& e : a.heads) {
    json.begin_object().key("layer").integer(e.layer).key("head").integer(e.head);
    json.key("max_abs").number(e.max_abs).key("mean_abs").number(e.mean_abs);
    if (e.energy_kept >= 0) json.key("energy_kept").number(e.energy_kept);
    json.end_object();
  }
  json.end_array();
}

Result<TextScore> score_text(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                             std::string_view text, const ScoreOptions& options) {
  const std::vector<int> ids = tokenizer.encode_prompt(text);
  return score_tokens(std::move(model), ids, options);
}

}  // namespace glassbox
