// glassbox bench: throughput of a model on this machine, measured the way generation uses it. Each repeat
// resets the session, feeds --prompt-tokens tokens (prompt processing), then generates --gen-tokens tokens
// greedily (one forward pass each). Prints the median and range over the repeats.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "glassbox/build.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"

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

}  // namespace

int run_bench(int argc, char** argv) {
  const std::string help =
      usage("bench --model FILE [--prompt-tokens N] [--gen-tokens N] [--threads N] [--repeat R]",
            "Measures prompt and generation tokens/s (median of the repeats).", kFlags);
  auto args = Args::parse(argc, argv, 2, kFlags);
  if (args && args->help()) {
    std::fputs(help.c_str(), stdout);
    return 0;
  }
  Result<std::string> model_path = args ? args->required("model") : Result<std::string>(args.error());
  Result<int64_t> prompt_tokens =
      model_path ? args->integer("prompt-tokens", 32, 1, 1 << 20) : Result<int64_t>(model_path.error());
  Result<int64_t> gen_tokens = prompt_tokens ? args->integer("gen-tokens", 224, 0, 1 << 20) : prompt_tokens;
  Result<int64_t> threads = gen_tokens ? args->integer("threads", 1, 1, 256) : gen_tokens;
  Result<int64_t> repeat = threads ? args->integer("repeat", 5, 1, 1000) : threads;
  if (!repeat) {
    std::fprintf(stderr, "glassbox bench: %s\n\n%s", repeat.error().message.c_str(), help.c_str());
    return kExitUsage;
  }
  auto model = load_model(*model_path);
  if (!model) {
    std::fprintf(stderr, "glassbox bench: %s\n", model.error().message.c_str());
    return kExitFailure;
  }
  auto shared = std::make_shared<const Model>(std::move(*model));
  const int64_t positions = *prompt_tokens + *gen_tokens;
  auto session = Session::create(
      shared, {.threads = static_cast<int>(*threads),
               .context_length = static_cast<int>(std::min<int64_t>(positions, shared->config.max_seq_len))});
  if (!session) {
    std::fprintf(stderr, "glassbox bench: %s\n", session.error().message.c_str());
    return kExitFailure;
  }
  if (positions > session->context_length()) {
    std::fprintf(stderr, "glassbox bench: %lld positions do not fit the model's context of %d\n",
                 static_cast<long long>(positions), session->context_length());
    return kExitUsage;
  }

  std::vector<double> prompt_rates, gen_rates;
  for (int64_t r = 0; r < *repeat; ++r) {
    session->reset();
    const auto t0 = Clock::now();
    std::span<const float> logits;
    for (int64_t i = 0; i < *prompt_tokens; ++i) {
      // A fixed, varied token sequence: the content does not change the work a forward pass does.
      logits = *session->step(static_cast<int>((i * 7919 + 1) % shared->config.vocab_size));
    }
    const auto t1 = Clock::now();
    int token = argmax(logits);
    for (int64_t i = 0; i < *gen_tokens; ++i)
      token = argmax(*session->step(token));
    const auto t2 = Clock::now();
    prompt_rates.push_back(*prompt_tokens / std::chrono::duration<double>(t1 - t0).count());
    if (*gen_tokens > 0) gen_rates.push_back(*gen_tokens / std::chrono::duration<double>(t2 - t1).count());
  }
  const Stats p = stats(prompt_rates);
  const Stats g = gen_rates.empty() ? Stats{0, 0, 0} : stats(gen_rates);
  if (args->has("json")) {
    std::printf(
        "{\"engine\": \"%s\", \"threads\": %lld, \"prompt_tokens\": %lld, \"gen_tokens\": %lld, "
        "\"prompt_tokens_per_s\": %.1f, \"gen_tokens_per_s\": %.1f}\n",
        build_description(), static_cast<long long>(*threads), static_cast<long long>(*prompt_tokens),
        static_cast<long long>(*gen_tokens), p.median, g.median);
  } else {
    std::printf("%s, %lld thread(s), %lld repeats\n", build_description(), static_cast<long long>(*threads),
                static_cast<long long>(*repeat));
    std::printf("prompt     %6lld tokens: %10.1f tokens/s (min %.1f, max %.1f)\n",
                static_cast<long long>(*prompt_tokens), p.median, p.min, p.max);
    std::printf("generation %6lld tokens: %10.1f tokens/s (min %.1f, max %.1f)\n",
                static_cast<long long>(*gen_tokens), g.median, g.min, g.max);
  }
  return 0;
}

}  // namespace glassbox::cli
