// glassbox generate: stream a model's continuation of a prompt to stdout; speed figures go to stderr.
#include <chrono>
#include <cstdio>
#include <ctime>

#include "commands.hpp"
#include "glassbox/build.hpp"
#include "glassbox/generator.hpp"
#include "json.hpp"
#include "model_flags.hpp"
#include "glassbox/error.hpp"

namespace glassbox::cli {
namespace {

constexpr Flag kFlags[] = {
    kModelFlag,
    kTokenizerFlag,
    {"prompt", "TEXT", "text to continue (default: empty, start from BOS)"},
    {"steps", "N", "forward passes in all, prompt included, as in llama2.c (default 256)"},
    {"temperature", "T", "0 = greedy; higher = more random (default 1.0)"},
    {"top-k", "K", "sample only from the K most likely tokens; 0 = off (default 0)"},
    {"top-p", "P", "sample from the smallest set of tokens holding P of the mass; 1 = off (default 0.9)"},
    {"seed", "S", "random seed, for reproducible sampling (default: from the clock, printed)"},
    {"threads", "N", "threads for the matrix products (default 1)"},
    {"json", nullptr,
     "print {\"prompt_ids\", \"generated_ids\", \"text\"} as JSON at the end instead of streaming"},
};

constexpr CommandSpec kSpec = {
    "generate",
    "generate --model FILE [--tokenizer FILE] [--prompt TEXT] [--steps N] [--temperature T] [--top-k K]\n"
    "                         [--top-p P] [--seed S] [--threads N] [--json]",
    "Continues PROMPT with the model, printing text as it is generated and tokens/s to stderr.", kFlags};

struct Options {
  int steps;
  SamplerSettings sampler;
  int threads;
};

Result<Options> read_options(const Args& args) {
  GLASSBOX_TRY(args.required("model"));
  Options o;
  GLASSBOX_ASSIGN(o.steps, args.integer("steps", 256, 1, 1 << 20));
  GLASSBOX_ASSIGN(o.sampler.temperature, args.number("temperature", 1.0, 0.0, 1e6));
  GLASSBOX_ASSIGN(o.sampler.top_k, args.integer("top-k", 0, 0, 1 << 22));
  GLASSBOX_ASSIGN(o.sampler.top_p, args.number("top-p", 0.9, 1e-9, 1.0));
  GLASSBOX_ASSIGN(o.sampler.seed,
                  args.integer("seed", static_cast<int64_t>(std::time(nullptr)), 0, INT64_MAX));
  GLASSBOX_ASSIGN(o.threads, args.integer("threads", 1, 1, 256));
  return o;
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Result<void> generate(const Args& args, const Options& options) {
  GLASSBOX_ASSIGN(const LoadedModel loaded, open_model_from_flags(args));
  const Tokenizer& tokenizer = *loaded.tokenizer;
  GLASSBOX_ASSIGN(Session session, Session::create(loaded.model, {.threads = options.threads}));
  Sampler sampler(options.sampler);
  if (!args.has("seed") && options.sampler.temperature > 0.0f)
    std::fprintf(stderr, "seed: %llu\n", static_cast<unsigned long long>(options.sampler.seed));

  Generator generator(session, sampler, tokenizer);
  GLASSBOX_TRY(generator.start_text(args.text("prompt"), {.max_steps = options.steps}));
  const std::vector<int> prompt(generator.tokens().begin(), generator.tokens().end());

  // The prompt is echoed, as llama2.c does, so stdout reads as one continuous text.
  const bool json = args.has("json");
  std::string text = tokenizer.decode(prompt);
  std::vector<int> generated_ids;
  if (!json) {
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  }

  const auto prompt_start = Clock::now();
  GLASSBOX_TRY(generator.prefill());

  // Prompt speed: all prompt passes, up to and including the one that yields the first new token.
  // Generation speed: the passes after that, one per further token.
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
    if (!json) {
      std::fputs(token.text.c_str(), stdout);
      std::fflush(stdout);
    }
  }
  const int generated = static_cast<int>(generated_ids.size());
  const double generation_seconds = generated > 0 ? seconds_since(generation_start) : 0.0;
  const int generation_passes = generated > 0 ? generated - 1 : 0;
  if (json) {
    auto ids = [](const std::vector<int>& list) {
      std::string out;
      for (std::size_t i = 0; i < list.size(); ++i)
        out += (i ? ", " : "") + std::to_string(list[i]);
      return "[" + out + "]";
    };
    std::printf("{\"prompt_ids\": %s, \"generated_ids\": %s, \"text\": %s}\n", ids(prompt).c_str(),
                ids(generated_ids).c_str(), json_string(text).c_str());
  } else {
    std::fputs("\n", stdout);
  }
  std::fflush(stdout);

  std::fprintf(
      stderr, "prompt: %zu tokens, %.1f tokens/s | generation: %d tokens, %.1f tokens/s | %d thread(s), %s\n",
      prompt.size(), prompt_seconds > 0 ? prompt.size() / prompt_seconds : 0.0, generated,
      generation_seconds > 0 ? generation_passes / generation_seconds : 0.0, options.threads,
      build_description());
  return ok();
}

}  // namespace

int run_generate(int argc, char** argv) {
  return run_command<Options>(kSpec, argc, argv, read_options, generate);
}

}  // namespace glassbox::cli
