// Threads per forward pass (glassbox/thread_choice.hpp): the page's setting (auto, or a count the user picks)
// and the core rule's choice with its reason in words, so the page shows the count and why without stating
// the rule again in TypeScript.
#include "engine.hpp"
#include "glassbox/error.hpp"
#include "glassbox/thread_choice.hpp"

namespace glassbox::wasm {

// {threads, why, automatic, limit, most}: the threads a pass of `tokens` tokens at the session's position
// uses under the current setting, why, the setting (auto up to `limit`, or `limit` always) and the most the
// session can run (the threads it started).
val Engine::thread_choice(double tokens) const {
  if (!session_) return no_session();
  const int count = std::max(1, static_cast<int>(tokens));
  const ModelConfig& c = session_->model().config;
  const int limit = session_->thread_limit();
  ThreadChoice choice;
  if (session_->auto_threads()) {
    choice = choose_threads(c, count, session_->position(), limit);
  } else {
    choice.threads = limit;
    const int rule = threads_for_pass(c, count, session_->position(), session_->max_threads());
    choice.why =
        cat(limit == 1 ? "1 thread" : cat(limit, " threads"), ": as chosen (auto would use ", rule, ")");
  }
  val result = val::object();
  result.set("threads", choice.threads);
  result.set("why", choice.why);
  result.set("automatic", session_->auto_threads());
  result.set("limit", limit);
  result.set("most", session_->max_threads());
  return result;
}

// The user's setting: `automatic` (each pass takes what pays, up to `count`) or `count` for every pass; kept
// for the models loaded later. Returns thread_choice(1) under it, null while no decoder is loaded.
val Engine::set_threads(double count, bool automatic) {
  thread_setting_ = {.count = std::max(1, static_cast<int>(count)), .automatic = automatic};
  if (!session_) return val::null();
  session_->use_threads(thread_setting_.count, thread_setting_.automatic);
  return thread_choice(1);
}

}  // namespace glassbox::wasm
