// glassbox generate: stream a model's continuation of a prompt to stdout; speed figures go to stderr. The
// core's Generator holds every rule of generation (the prompt's checks, when to stop and why); this file only
// times it and prints.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "glassbox/build.hpp"
#include "glassbox/generator.hpp"
#include "glassbox/session.hpp"
#include "glassbox/thread_choice.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"
#include "sampler_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  ModelFlags model;
  std::string prompt;
  int steps = 256;  // llama2.c's default
  SamplerSettings sampler;
  ThreadsSetting threads;  // auto: the threads that pay for each pass, up to this machine's cores
  bool json = false;
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The threads a run used: the prompt's last pass and the last generated token's, and why (the rule's words
// for that token, or "as asked" for a count given with --threads).
struct ThreadsUsed {
  int prompt = 0, generation = 0;
  std::string why;
};

ThreadsUsed threads_used(const Options& options, const Session& session, int prompt_threads) {
  ThreadsUsed used{.prompt = prompt_threads, .generation = session.last_pass_threads(), .why = {}};
  used.why = options.threads.automatic()
                 ? choose_threads(session.model().config, 1, std::max(session.position() - 1, 0),
                                  session.max_threads())
                       .why
                 : cat(used.generation, " thread(s), as --threads asks");
  return used;
}

void print_json(std::span<const int> prompt, std::span<const int> generated, const std::string& text,
                StopReason reason, const Options& options, const ThreadsUsed& threads) {
  JsonWriter json;
  json.begin_object();
  json.key("prompt_ids").integers(prompt);
  json.key("generated_ids").integers(generated);
  json.key("text").string(text);
  json.key("stop_reason").string(to_string(reason));
  json.key("threads").begin_object();
  json.key("setting").string(options.threads.value);
  json.key("prompt").integer(threads.prompt);
  json.key("generation").integer(threads.generation);
  json.key("why").string(threads.why);
  json.end_object();
  json.end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

Result<void> generate(const Options& options) {
  GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_from_flags(options.model));
  const Tokenizer& tokenizer = *loaded.tokenizer;
  GLASSBOX_ASSIGN(Session session,
                  Session::create(loaded.model, {.threads = options.threads.most(),
                                                 .auto_threads = options.threads.automatic()}));
  Sampler sampler(options.sampler);

  Generator generator(session, sampler, tokenizer);
  GLASSBOX_TRY(generator.start_text(options.prompt, {.max_steps = options.steps}));
  const std::vector<int> prompt(generator.tokens().begin(), generator.tokens().end());

  // The prompt is echoed, as llama2.c does, so stdout reads as one continuous text.
  std::string text = tokenizer.decode(prompt);
  if (!options.json) {
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  }

  const auto prompt_start = Clock::now();
  GLASSBOX_TRY(generator.prefill());
  const int prompt_threads = session.last_pass_threads();

  // Prompt speed: all prompt passes, up to and including the one that yields the first new token.
  // Generation speed: the passes after that, one per further token.
  std::vector<int> generated_ids;
  double prompt_seconds = 0.0;
  Clock::time_point generation_start;
  while (!generator.finished()) {
    GLASSBOX_ASSIGN(const GeneratedToken token, generator.next());
    generated_ids.push_back(token.id);
    if (generated_ids.size() == 1) {
      prompt_seconds = seconds_since(prompt_start);
      generation_start = Clock::now();
    }
    text += token.text;
    if (!options.json) {
      std::fputs(token.text.c_str(), stdout);
      std::fflush(stdout);
    }
  }
  const int generated = static_cast<int>(generated_ids.size());
  const double generation_seconds = generated > 0 ? seconds_since(generation_start) : 0.0;
  const int generation_passes = generated > 0 ? generated - 1 : 0;
  const ThreadsUsed threads = threads_used(options, session, prompt_threads);
  if (options.json) {
    print_json(prompt, generated_ids, text, generator.stop_reason(), options, threads);
  } else {
    std::fputs("\n", stdout);
  }
  std::fflush(stdout);

  std::fprintf(stderr,
               "prompt: %zu tokens, %.1f tokens/s | generation: %d tokens, %.1f tokens/s | stopped: %s | "
               "threads %s: prompt %d, generation %d (%s) | %s\n",
               prompt.size(), prompt_seconds > 0 ? prompt.size() / prompt_seconds : 0.0, generated,
               generation_seconds > 0 ? generation_passes / generation_seconds : 0.0,
               to_string(generator.stop_reason()), options.threads.value.c_str(), threads.prompt,
               threads.generation, threads.why.c_str(), build_description());
  return ok();
}

}  // namespace

Command add_generate_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "generate",
      "Continues the prompt with the model, printing text as it is generated and tokens/s to stderr");
  auto options = std::make_shared<Options>();
  add_model_flags(*app, options->model);
  app->add_option("--prompt", options->prompt, "text to continue (empty: start from BOS)")->type_name("TEXT");
  app->add_option("--steps", options->steps, "forward passes in all, prompt included, as in llama2.c")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  add_sampler_flags(*app, options->sampler);
  add_threads_flag(*app, options->threads);
  app->add_flag(
      "--json", options->json,
      "print {prompt_ids, generated_ids, text, stop_reason} as JSON at the end instead of streaming");
  return {app, [options] { return generate(*options); }};
}

}  // namespace glassbox::cli
