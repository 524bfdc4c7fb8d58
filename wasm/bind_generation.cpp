// The Engine's generation: the sampler's settings, starting from text or token ids, stepping, stopping. The
// rules (prompt checks, limits, end conditions, why it stopped) are glassbox::Generator's; here only the JS
// numbers are checked to be whole numbers before they become ints.
#include <cstdint>
#include <span>

#include "engine.hpp"

namespace glassbox::wasm {
namespace {

// A generation's limits from JS numbers (0: none), or why they are not whole numbers >= 0.
Result<GenerationLimits> limits_from_js(double max_new_tokens, double max_steps) {
  if (!whole_number(max_new_tokens, 2147483647.0) || !whole_number(max_steps, 2147483647.0))
    return error(ErrorCode::BadArgument,
                 "generation limits must be whole numbers >= 0 (0: none), found maxTokens ", max_new_tokens,
                 ", maxSteps ", max_steps);
  return GenerationLimits{.max_new_tokens = static_cast<int>(max_new_tokens),
                          .max_steps = static_cast<int>(max_steps)};
}

}  // namespace

// The settings the next start() samples with (engine.js fills missing fields from sampler_defaults()).
// Returns them as the core holds them.
val Engine::set_sampler(double temperature, double top_k, double top_p, double seed) {
  if (!whole_number(top_k, 2147483647.0))
    return failure(ErrorCode::BadArgument, "top-k must be a whole number >= 0 (0 turns it off), found ",
                   top_k);
  if (!whole_number(seed, 9007199254740991.0))  // 2^53 - 1: the largest seed a JS number holds exactly
    return failure(ErrorCode::BadArgument, "the seed must be a whole number from 0 to 2^53 - 1, found ",
                   seed);
  const SamplerSettings settings{.temperature = static_cast<float>(temperature),
                                 .top_k = static_cast<int>(top_k),
                                 .top_p = static_cast<float>(top_p),
                                 .seed = static_cast<uint64_t>(seed)};
  if (auto valid = validate(settings); !valid) return failure(valid.error());
  // A running generation keeps its sampler; the new settings apply from the next start().
  settings_ = settings;
  return sampler_settings_to_js(settings_);
}

// Starts a generation from `prompt` (BOS first where the vocabulary asks for it): the generator checks the
// prompt and the limits (0: none), resets the session, and the sampler starts again from its seed. Returns
// the prompt's token ids.
val Engine::start(const std::string& prompt, double max_new_tokens, double max_steps) {
  if (!generator_) return no_session();
  const auto limits = limits_from_js(max_new_tokens, max_steps);
  if (!limits) return failure(limits.error());
  sampler_ = Sampler(settings_);  // the same object the generator refers to, with a fresh random sequence
  if (auto started = generator_->start_text(prompt, *limits); !started) return failure(started.error());
  const std::span<const int> ids = generator_->tokens();
  val result = val::object();
  result.set("ids", array_to_js(std::vector<int32_t>(ids.begin(), ids.end()), "Int32Array"));
  return result;
}

// Starts a conversation's next turn, or a Step of the page, from token ids (a chat rendered and tokenized with
// special tokens; the text so far): Generator::extend keeps the positions the session already ran when the ids
// extend them, and the sampler then goes on with its random sequence. Returns {ids, kept}: the ids and how
// many positions were kept.
val Engine::start_tokens(const val& prompt, double max_new_tokens, double max_steps) {
  if (!generator_) return no_session();
  const auto limits = limits_from_js(max_new_tokens, max_steps);
  if (!limits) return failure(limits.error());
  const std::vector<int> ids = emscripten::vecFromJSArray<int>(prompt);
  auto kept = generator_->extend(ids, *limits);
  if (!kept) return failure(kept.error());
  // A run that goes on (its positions kept) with the settings it was sampled with keeps its random sequence,
  // so that Step after a sampled Generate draws what one longer Generate would; anything else starts again
  // from the seed.
  const SamplerSettings& was = sampler_.settings();
  const bool same_settings = was.temperature == settings_.temperature && was.top_k == settings_.top_k &&
                             was.top_p == settings_.top_p && was.seed == settings_.seed;
  if (*kept == 0 || !same_settings) sampler_ = Sampler(settings_);
  val result = val::object();
  result.set("ids", array_to_js(std::vector<int32_t>(ids.begin(), ids.end()), "Int32Array"));
  result.set("kept", *kept);
  return result;
}

// One generation step: {id, bytes, position, end, reason, threads}; `threads`: what the step's forward pass
// ran on (the first step's also read the prompt). `end` is the generator's finished(): nothing
// follows this token; `reason` is then why (the core's StopReason name), and null while it goes on.
val Engine::step() {
  if (!generator_) return no_session();
  auto token = generator_->next();
  if (!token) return failure(token.error());
  val result = val::object();
  result.set("id", token->id);
  result.set("bytes", bytes_to_js(token->text));
  result.set("position", token->position);
  result.set("end", generator_->finished());
  result.set("reason", reason_to_js());
  result.set("threads", session_->last_pass_threads());
  return result;
}

// Ends the generation at once; step() then fails. Returns the reason it ended with ("stopped", or the earlier
// reason if it had already ended), null when no generation was started.
val Engine::stop() {
  if (!generator_) return val::null();
  generator_->stop();
  return reason_to_js();
}

// Token ids whose attention is in the trace: the prompt and the generated tokens fed back so far (the newest
// sampled token is not part of it until the next step feeds it).
val Engine::sequence() const {
  const std::vector<int> traced = traced_tokens();
  return array_to_js(std::vector<int32_t>(traced.begin(), traced.end()), "Int32Array");
}

// Back to position 0 with no generation under way (the trace is cleared too).
void Engine::reset() {
  if (!generator_) return;
  generator_->stop();
  session_->reset();
}

val Engine::reason_to_js() const {
  const StopReason reason = generator_->stop_reason();
  return reason == StopReason::None ? val::null() : val(std::string(to_string(reason)));
}

std::vector<int> Engine::traced_tokens() const {
  if (!generator_) return {};
  const std::span<const int> tokens = generator_->tokens();
  const std::size_t traced = std::min(tokens.size(), static_cast<std::size_t>(session_->position()));
  return {tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(traced)};
}

}  // namespace glassbox::wasm
