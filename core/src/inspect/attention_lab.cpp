#include "glassbox/attention_lab.hpp"

#include <algorithm>

#include "glassbox/error.hpp"
#include "glassbox/generator.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"
#include "whole_text.hpp"

namespace glassbox {
namespace {

// Up to `count` greedy tokens after the text the session has read (Generator's rules: it resets the session
// and reads the text again, then stops at an end-of-text token or a full context).
Result<std::vector<int>> continue_greedily(Session& session, const Tokenizer& tokenizer,
                                           std::span<const int> ids, int count) {
  std::vector<int> tokens;
  if (count <= 0 || static_cast<int>(ids.size()) >= session.context_length()) return tokens;
  session.set_residual_trace(false);
  Sampler greedy{SamplerSettings{.temperature = 0.0f}};
  Generator generator{session, greedy, tokenizer};
  GLASSBOX_TRY(generator.start(ids, GenerationLimits{.max_new_tokens = count}));
  while (!generator.finished()) {
    GLASSBOX_ASSIGN(const GeneratedToken token, generator.next());
    tokens.push_back(token.id);
  }
  return tokens;
}

}  // namespace

int64_t attention_lab_bytes(const ModelConfig& c, int n, int continue_tokens) {
  const int64_t positions = int64_t{n} + std::max(0, continue_tokens);
  const int64_t per_position = int64_t{c.n_layers + 1} * c.dim + int64_t{2} * c.n_layers * c.kv_dim() +
                               int64_t{4} * c.dim + int64_t{2} * c.hidden_dim;
  return 2 * positions * per_position * static_cast<int64_t>(sizeof(float));
}

Result<AttentionLab> attention_lab(std::shared_ptr<const Model> model, const Tokenizer& tokenizer,
                                   std::span<const int> ids, const AttentionLabOptions& options) {
  if (!model) return error(ErrorCode::InvalidState, "attention lab: no model");
  if (ids.empty()) return error(ErrorCode::BadArgument, "attention lab: there are no tokens to read");
  GLASSBOX_TRY(check_attention_variant(options.variant));
  const ModelConfig& c = model->config;
  const int n = static_cast<int>(ids.size());
  if (n > c.max_seq_len)
    return error(ErrorCode::PromptTooLong, "attention lab: the text has ", n,
                 " tokens, more than the model's context of ", c.max_seq_len);
  for (int id : ids)
    if (id < 0 || id >= c.vocab_size)
      return error(ErrorCode::BadArgument, "attention lab: token id ", id, " is outside the vocabulary of ",
                   c.vocab_size);
  if (options.layer < 0 || options.layer >= c.n_layers || options.head < 0 || options.head >= c.n_heads)
    return error(ErrorCode::BadArgument, "attention lab: layer ", options.layer, " head ", options.head,
                 " is outside the model's ", c.n_layers, " layers of ", c.n_heads, " heads");
  const int extra = std::max(0, options.continue_tokens);
  GLASSBOX_ASSIGN(Session exact, read_whole_text(model, ids, options.threads, AttentionVariant{}, extra));
  GLASSBOX_ASSIGN(Session approximate, read_whole_text(model, ids, options.threads, options.variant, extra));

  AttentionLab lab;
  lab.ids.assign(ids.begin(), ids.end());
  GLASSBOX_ASSIGN(lab.head, head_attention_pair(exact, options.variant, options.layer, options.head));

  const int compared = options.compared_positions > 0 ? std::min(options.compared_positions, n) : n;
  lab.compared_from = n - compared;
  std::vector<float> exact_logits(static_cast<std::size_t>(c.vocab_size)), logits(exact_logits.size());
  double exact_total = 0, variant_total = 0;
  int predicted = 0;
  for (int p = lab.compared_from; p < n; ++p) {
    GLASSBOX_TRY(exact.layer_logits(c.n_layers, p, exact_logits));
    GLASSBOX_TRY(approximate.layer_logits(c.n_layers, p, logits));
    lab.kl_by_position.push_back(kl_divergence(exact_logits, logits));
    lab.top_agrees_by_position.push_back(argmax(exact_logits) == argmax(logits));
    if (p + 1 < n) {
      const int next = ids[static_cast<std::size_t>(p) + 1];
      exact_total -= log_probability(exact_logits, next);
      variant_total -= log_probability(logits, next);
      ++predicted;
    }
  }
  if (predicted > 0) {
    lab.exact_loss = exact_total / predicted;
    lab.variant_loss = variant_total / predicted;
  }
  // The last position's logits are still in the buffers: the step's own distributions.
  lab.exact_top = top_tokens(exact_logits, options.top_k);
  lab.variant_top = top_tokens(logits, options.top_k);
  lab.kl = lab.kl_by_position.back();
  lab.top_agrees = lab.top_agrees_by_position.back();

  GLASSBOX_ASSIGN(lab.exact_continuation, continue_greedily(exact, tokenizer, ids, options.continue_tokens));
  if (options.variant.needs_whole_prompt()) {
    lab.variant_cannot_continue =
        to_string(options.variant) +
        " needs the whole attention matrix of a text at once, so it cannot write one "
        "token at a time";
  } else {
    GLASSBOX_ASSIGN(lab.variant_continuation,
                    continue_greedily(approximate, tokenizer, ids, options.continue_tokens));
  }
  return lab;
}

}  // namespace glassbox
