// glassbox bench: throughput of a model on this machine, measured the way generation uses it. Each repeat
// resets the session, feeds --prompt-tokens tokens (prompt processing), then generates --gen-tokens tokens
// greedily (one forward pass each). Prints the median and range over the repeats.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "glassbox/build.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

struct Options {
  std::string model;
  int prompt_tokens = 32;
  int gen_tokens = 224;
  int threads = SessionOptions{}.threads;  // the core's default
  int repeat = 5;
  bool json = false;
};

using Clock = std::chrono::steady_clock;

struct Stats {
  double median, min, max;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

// Rates to 0.1 tokens/s: finer digits are noise from one run to the next.
double tenths(double rate) {
  return std::round(rate * 10.0) / 10.0;
}

void print_json(const Options& o, const Stats& prompt, const Stats& generation) {
  JsonWriter json;
  json.begin_object();
  json.key("engine").string(build_description());
  json.key("threads").integer(o.threads);
  json.key("prompt_tokens").integer(o.prompt_tokens);
  json.key("gen_tokens").integer(o.gen_tokens);
  json.key("prompt_tokens_per_s").number(tenths(prompt.median));
  json.key("gen_tokens_per_s").number(tenths(generation.median));
  json.end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

Result<void> bench(const Options& o) {
  GLASSBOX_ASSIGN(Model loaded, load_model(o.model));
  auto model = std::make_shared<const Model>(std::move(loaded));
  const int positions = o.prompt_tokens + o.gen_tokens;
  if (positions > model->config.max_seq_len)
    return error(ErrorCode::BadArgument, positions, " positions do not fit the model's context of ",
                 model->config.max_seq_len);
  GLASSBOX_ASSIGN(Session session,
                  Session::create(model, {.threads = o.threads, .context_length = positions}));

  std::vector<double> prompt_rates, gen_rates;
  for (int r = 0; r < o.repeat; ++r) {
    session.reset();
    const auto t0 = Clock::now();
    std::span<const float> logits;
    for (int i = 0; i < o.prompt_tokens; ++i) {
      // A fixed, varied token sequence: the content does not change the work a forward pass does.
      GLASSBOX_ASSIGN(logits, session.step((i * 7919 + 1) % model->config.vocab_size));
    }
    const auto t1 = Clock::now();
    int token = argmax(logits);
    for (int i = 0; i < o.gen_tokens; ++i) {
      GLASSBOX_ASSIGN(logits, session.step(token));
      token = argmax(logits);
    }
    const auto t2 = Clock::now();
    prompt_rates.push_back(o.prompt_tokens / std::chrono::duration<double>(t1 - t0).count());
    if (o.gen_tokens > 0) gen_rates.push_back(o.gen_tokens / std::chrono::duration<double>(t2 - t1).count());
  }
  const Stats p = stats(prompt_rates);
  const Stats g = gen_rates.empty() ? Stats{0, 0, 0} : stats(gen_rates);
  if (o.json) {
    print_json(o, p, g);
  } else {
    std::printf("%s, %d thread(s), %d repeats\n", build_description(), o.threads, o.repeat);
    std::printf("prompt     %6d tokens: %10.1f tokens/s (min %.1f, max %.1f)\n", o.prompt_tokens, p.median,
                p.min, p.max);
    std::printf("generation %6d tokens: %10.1f tokens/s (min %.1f, max %.1f)\n", o.gen_tokens, g.median,
                g.min, g.max);
  }
  return ok();
}

}  // namespace

Command add_bench_command(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("bench", "Measures prompt and generation tokens/s (median of the repeats)");
  auto options = std::make_shared<Options>();
  app->add_option("--model", options->model, "GGUF file or llama2.c checkpoint")
      ->type_name("FILE")
      ->required();
  app->add_option("--prompt-tokens", options->prompt_tokens, "tokens of prompt processing per repeat")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app->add_option("--gen-tokens", options->gen_tokens, "tokens generated per repeat")
      ->type_name("N")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  add_threads_flag(*app, options->threads);
  app->add_option("--repeat", options->repeat, "repeats; the median is reported")
      ->type_name("R")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app->add_flag("--json", options->json, "print one JSON object instead of text");
  return {app, [options] { return bench(*options); }};
}

}  // namespace glassbox::cli
