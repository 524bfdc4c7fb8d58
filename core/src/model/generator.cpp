#include "glassbox/generator.hpp"

#include <algorithm>

#include "glassbox/token_ids.hpp"

namespace glassbox {

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::None:
      return "none";
    case StopReason::EndOfText:
      return "end-of-text";
    case StopReason::ContextFull:
      return "context-full";
    case StopReason::Length:
      return "length";
    case StopReason::Stopped:
      return "stopped";
  }
  return "none";
}

Result<void> Generator::check(std::span<const int> prompt_ids, GenerationLimits limits) const {
  const int length = static_cast<int>(prompt_ids.size());
  if (length == 0)
    return error(ErrorCode::PromptEmpty,
                 "the prompt has no tokens, and this tokenizer has no BOS token to start from");
  // A prompt that fills the context exactly still yields one token: the one sampled at the last position.
  if (length > session_.context_length())
    return error(ErrorCode::PromptTooLong, "the prompt is ", length, " tokens, more than the context of ",
                 session_.context_length());
  GLASSBOX_TRY(check_token_ids(prompt_ids, session_.model().config.vocab_size));
  if (limits.max_new_tokens < 0 || limits.max_steps < 0)
    return error(ErrorCode::BadArgument, "generation limits must be >= 0 (0: none), found max_new_tokens ",
                 limits.max_new_tokens, ", max_steps ", limits.max_steps);
  if (limits.max_steps > 0 && limits.max_steps < length)
    return error(ErrorCode::BadArgument, "the step budget ", limits.max_steps, " is less than the prompt's ",
                 length, " tokens (steps count the prompt too, as in llama2.c)");

  return ok();
}

void Generator::begin(std::span<const int> prompt_ids, GenerationLimits limits, std::size_t kept) {
  if (kept == 0) session_.reset();
  limits_ = limits;
  tokens_.assign(prompt_ids.begin(), prompt_ids.end());
  prompt_length_ = static_cast<int>(prompt_ids.size());
  fed_ = kept;
  last_logits_ = {};
  reason_ = StopReason::None;
  started_ = true;
}

Result<void> Generator::start(std::span<const int> prompt_ids, GenerationLimits limits) {
  started_ = false;
  GLASSBOX_TRY(check(prompt_ids, limits));
  begin(prompt_ids, limits, 0);
  return ok();
}

Result<int> Generator::extend(std::span<const int> prompt_ids, GenerationLimits limits) {
  // What the session holds: tokens_[0..fed_), if nothing reset it since (its position says so). At least
  // one token of the new prompt must be left to feed, for the logits to sample from.
  const bool holds_prefix =
      started_ && fed_ > 0 && fed_ < prompt_ids.size() && session_.position() == static_cast<int>(fed_) &&
      std::equal(tokens_.begin(), tokens_.begin() + static_cast<std::ptrdiff_t>(fed_), prompt_ids.begin());
  const std::size_t kept = holds_prefix ? fed_ : 0;
  started_ = false;
  GLASSBOX_TRY(check(prompt_ids, limits));
  begin(prompt_ids, limits, kept);
  return static_cast<int>(kept);
}

Result<void> Generator::start_text(std::string_view prompt, GenerationLimits limits) {
  const std::vector<int> ids = tokenizer_.encode_prompt(prompt);
  return start(ids, limits);
}

Result<void> Generator::feed(std::size_t keep) {
  if (tokens_.size() - fed_ <= keep) return ok();
  // All pending tokens in one call: the session reads a prompt in chunks, a sampled token alone.
  const std::span<const int> pending(tokens_.data() + fed_, tokens_.size() - fed_ - keep);
  GLASSBOX_ASSIGN(last_logits_, session_.prefill(pending));
  fed_ += pending.size();  // only after they went in, so the session and the queue never disagree
  return ok();
}

Result<void> Generator::prefill() {
  if (!started_) return error(ErrorCode::InvalidState, "generate: call start() with a prompt first");
  if (finished()) return ok();
  return feed(1);
}

StopReason Generator::reason_after(const GeneratedToken& token) const {
  if (token.end_of_text) return StopReason::EndOfText;
  if (session_.position() >= session_.context_length()) return StopReason::ContextFull;
  if (limits_.max_new_tokens > 0 && generated_count() >= limits_.max_new_tokens) return StopReason::Length;
  if (limits_.max_steps > 0 && session_.position() >= limits_.max_steps) return StopReason::Length;
  return StopReason::None;
}

Result<GeneratedToken> Generator::next() {
  if (!started_) return error(ErrorCode::InvalidState, "generate: call start() with a prompt first");
  if (finished())
    return error(ErrorCode::InvalidState, "generate: the generation has ended (", to_string(reason_),
                 "); call start() again");
  GLASSBOX_TRY(feed(0));
  GeneratedToken token;
  token.id = sampler_.sample(last_logits_);
  token.position = session_.position() - 1;
  token.end_of_text = tokenizer_.ends_text(token.id);
  if (!token.end_of_text) token.text = tokenizer_.token_text(tokens_.back(), token.id);
  tokens_.push_back(token.id);
  reason_ = reason_after(token);
  return token;
}

void Generator::stop() {
  if (started_ && !finished()) reason_ = StopReason::Stopped;
}

}  // namespace glassbox
