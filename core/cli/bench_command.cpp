// glassbox bench: throughput of a model on this machine, measured the way generation uses it. Each repeat
// resets the session, feeds --prompt-tokens tokens (prompt processing), then generates --gen-tokens tokens
// greedily (one forward pass each). Prints the median and range over the repeats.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "glassbox/build.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"
#include "glassbox/error.hpp"

namespace glassbox::cli {
namespace {

constexpr Flag kFlags[] = {
    {"model", "FILE", "model: GGUF or llama2.c checkpoint (required)"},
    {"prompt-tokens", "N", "tokens of prompt processing per repeat (default 32)"},
    {"gen-tokens", "N", "tokens generated per repeat (default 224)"},
    {"threads", "N", "threads for the matrix products (default 1)"},
    {"repeat", "R", "repeats; the median is reported (default 5)"},
    {"json", nullptr, "print one JSON object instead of text"},
};

using Clock = std::chrono::steady_clock;

struct Stats {
  double median, min, max;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

constexpr CommandSpec kSpec = {
    "bench", "bench --model FILE [--prompt-tokens N] [--gen-tokens N] [--threads N] [--repeat R]",
    "Measures prompt and generation tokens/s (median of the repeats).", kFlags};

struct Options {
  std::string model;
  int prompt_tokens, gen_tokens, threads, repeat;
};

Result<Options> read_options(const Args& args) {
  Options o;
  GLASSBOX_ASSIGN(o.model, args.required("model"));
  GLASSBOX_ASSIGN(o.prompt_tokens, args.integer("prompt-tokens", 32, 1, 1 << 20));
  GLASSBOX_ASSIGN(o.gen_tokens, args.integer("gen-tokens", 224, 0, 1 << 20));
  GLASSBOX_ASSIGN(o.threads, args.integer("threads", 1, 1, 256));
  GLASSBOX_ASSIGN(o.repeat, args.integer("repeat", 5, 1, 1000));
  return o;
}

Result<void> bench(const Args& args, const Options& o) {
  GLASSBOX_ASSIGN(Model loaded, load_model(o.model));
  auto model = std::make_shared<const Model>(std::move(loaded));
  const int positions = o.prompt_tokens + o.gen_tokens;
  if (positions > model->config.max_seq_len)
    return error(ErrorCode::BadArgument, positions, " positions do not fit the model's context of ", model->config.max_seq_len);
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
  if (args.has("json")) {
    std::printf(
        "{\"engine\": \"%s\", \"threads\": %d, \"prompt_tokens\": %d, \"gen_tokens\": %d, "
        "\"prompt_tokens_per_s\": %.1f, \"gen_tokens_per_s\": %.1f}\n",
        build_description(), o.threads, o.prompt_tokens, o.gen_tokens, p.median, g.median);
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

int run_bench(int argc, char** argv) {
  return run_command<Options>(kSpec, argc, argv, read_options, bench);
}

}  // namespace glassbox::cli
