#include "glassbox/generator.hpp"

#include "glassbox/error.hpp"

namespace glassbox {

Result<void> Generator::start(std::span<const int> prompt_ids) {
  if (prompt_ids.empty()) return error(ErrorCode::PromptEmpty, "generate: the prompt has no tokens (encode it with BOS)");
  session_.reset();
  pending_.assign(prompt_ids.begin(), prompt_ids.end());
  last_logits_ = {};
  return ok();
}

Result<void> Generator::feed(std::size_t keep) {
  std::size_t fed = 0;
  Result<void> result;
  for (; pending_.size() - fed > keep; ++fed) {
    auto logits = session_.step(pending_[fed]);
    if (!logits) {
      result = logits.error();
      break;
    }
    last_logits_ = *logits;
  }
  // Tokens that went in are gone from the queue even on failure, so the session and queue never disagree.
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(fed));
  return result;
}

Result<void> Generator::prefill() {
  return feed(1);
}

Result<int> Generator::next() {
  if (pending_.empty()) return error(ErrorCode::InvalidState, "generate: call start() with a prompt first");
  GLASSBOX_TRY(feed(0));
  const int token = sampler_.sample(last_logits_);
  pending_.assign(1, token);
  return token;
}

}  // namespace glassbox
