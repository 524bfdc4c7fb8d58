// glassbox bench: throughput of a model on this machine, measured the way generation uses it. Each repeat
// resets the session, reads a --prompt-tokens prompt in one prefill (batched prompt processing), then
// generates --gen-tokens tokens greedily (one forward pass each). Prints the median and the range (min-max)
// over the repeats, and the peak resident memory beside what the weights and the KV cache take, with an
// inspection trace on or off (--trace). An encoder (BERT) is measured the way embedding uses it: each
// repeat encodes a batch of --texts texts of 16 to 64 tokens in one padded pass, in texts/s and tokens/s.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#if !defined(__EMSCRIPTEN__)
#include <sys/resource.h>
#endif

#include "bench_lengths.hpp"
#include "commands.hpp"
#include "glassbox/build.hpp"
#include "glassbox/encoder.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/sampler.hpp"
#include "glassbox/session.hpp"
#include "glassbox/thread_choice.hpp"
#include "json_writer.hpp"
#include "model_flags.hpp"

namespace glassbox::cli {
namespace {

// What the session records while it runs: nothing, the residual stream (what the page records, from which
// attention is recomputed), or the full attention record (every probability, n^2 memory).
enum class Trace { Off, Residuals, Attention };
const std::map<std::string, Trace> kTraceNames = {
    {"off", Trace::Off}, {"residuals", Trace::Residuals}, {"attention", Trace::Attention}};

struct Options {
  std::string model;
  int prompt_tokens = 32;
  int gen_tokens = 224;
  ThreadsSetting threads;  // auto: the threads that pay for each pass, up to this machine's cores
  int repeat = 5;
  int texts = 32;  // encoders: texts per batch
  std::string trace = "off";
  bool json = false;
  bool no_warmup = false;
  bool hand_off = false;  // measure the thread hand-off instead (glassbox/thread_choice.hpp's X)
  std::string lengths;    // set: cost against length (bench_lengths.hpp) instead of throughput
  std::string attention;  // with --lengths: the variants
};

using Clock = std::chrono::steady_clock;

struct Stats {
  double median, min, max;
};
Stats stats(std::vector<double> v) {
  if (v.empty()) return {0, 0, 0};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

// Rates to 0.1 tokens/s: finer digits are noise from one run to the next.
double tenths(double rate) {
  return std::round(rate * 10.0) / 10.0;
}

// The most resident memory the process has had, in bytes; 0 where the platform does not say.
int64_t peak_resident_bytes() {
#if defined(__EMSCRIPTEN__)
  return 0;
#else
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return int64_t{usage.ru_maxrss} * 1024;  // kilobytes on Linux
#endif
}

struct Memory {
  int64_t file = 0;      // the model file: its weights, memory-mapped
  int64_t kv_cache = 0;  // keys and values of every position
  int64_t trace = 0;     // what the trace holds at the end
  int64_t peak_resident = 0;
};

// A rate's median and range, to 0.1 per second, as three keys: NAME, NAME_min and NAME_max.
void rate_keys(JsonWriter& json, const std::string& name, const Stats& rate) {
  json.key(name).number(tenths(rate.median));
  json.key(name + "_min").number(tenths(rate.min));
  json.key(name + "_max").number(tenths(rate.max));
}

// The threads each pass used: the prompt's and the last generated token's, and the rule's reason for the
// latter (or "as asked").
struct ThreadsUsed {
  int prompt = 0, generation = 0;
  std::string why;
};

void print_json(const Options& o, const Stats& prompt, const Stats& generation, const Memory& m,
                const ThreadsUsed& used) {
  JsonWriter json;
  json.begin_object();
  json.key("engine").string(build_description());
  json.key("threads").integer(o.threads.most());
  json.key("threads_setting").string(o.threads.value);
  json.key("prompt_threads").integer(used.prompt);
  json.key("gen_threads").integer(used.generation);
  json.key("threads_why").string(used.why);
  json.key("trace").string(o.trace);
  json.key("repeat").integer(o.repeat);
  json.key("prompt_tokens").integer(o.prompt_tokens);
  json.key("gen_tokens").integer(o.gen_tokens);
  rate_keys(json, "prompt_tokens_per_s", prompt);
  rate_keys(json, "gen_tokens_per_s", generation);
  json.key("file_bytes").integer(m.file);
  json.key("kv_cache_bytes").integer(m.kv_cache);
  json.key("trace_bytes").integer(m.trace);
  json.key("peak_resident_bytes").integer(m.peak_resident);
  json.end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

// The texts of an encoder's batch: lengths spread over 16..64 tokens (what sentence embedding sees), fixed
// and varied ids ([CLS] first, [SEP]-like last: the content does not change the work).
std::vector<std::vector<int>> bench_texts(int count, const ModelConfig& c) {
  std::vector<std::vector<int>> texts;
  for (int i = 0; i < count; ++i) {
    const int length = std::min(c.max_seq_len, 16 + (i * 37) % 49);
    std::vector<int> text(static_cast<std::size_t>(length));
    for (int t = 0; t < length; ++t)
      text[static_cast<std::size_t>(t)] = (i * 131 + t * 7919 + 1) % c.vocab_size;
    texts.push_back(std::move(text));
  }
  return texts;
}

Result<void> bench_encoder(const Options& o, std::shared_ptr<const Model> model) {
  GLASSBOX_ASSIGN(Encoder encoder, Encoder::create(model, {.threads = o.threads.most()}));
  const std::vector<std::vector<int>> texts = bench_texts(o.texts, model->config);
  int tokens = 0;
  for (const std::vector<int>& text : texts)
    tokens += static_cast<int>(text.size());
  if (!o.no_warmup) GLASSBOX_TRY(encoder.encode(texts));
  std::vector<double> text_rates, token_rates;
  for (int r = 0; r < o.repeat; ++r) {
    const auto t0 = Clock::now();
    GLASSBOX_TRY(encoder.encode(texts));
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    text_rates.push_back(o.texts / seconds);
    token_rates.push_back(tokens / seconds);
  }
  const Stats per_text = stats(text_rates), per_token = stats(token_rates);
  if (o.json) {
    JsonWriter json;
    json.begin_object();
    json.key("engine").string(build_description());
    json.key("threads").integer(o.threads.most());
    json.key("repeat").integer(o.repeat);
    json.key("texts").integer(o.texts);
    json.key("tokens").integer(tokens);
    rate_keys(json, "texts_per_s", per_text);
    rate_keys(json, "tokens_per_s", per_token);
    json.key("peak_resident_bytes").integer(peak_resident_bytes());
    json.end_object();
    std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
    return ok();
  }
  std::printf("%s, %d thread(s), %d repeats, encoder\n", build_description(), o.threads.most(), o.repeat);
  std::printf(
      "embedding %d texts (%d tokens, 16-64 per text) per batch: %.1f texts/s (min %.1f, max %.1f), "
      "%.1f tokens/s (min %.1f, max %.1f)\n",
      o.texts, tokens, per_text.median, per_text.min, per_text.max, per_token.median, per_token.min,
      per_token.max);
  return ok();
}

Result<void> bench(const Options& o) {
  GLASSBOX_ASSIGN(Model loaded, load_model(o.model));
  auto model = std::make_shared<const Model>(std::move(loaded));
  const ModelConfig& c = model->config;
  if (!c.causal) return bench_encoder(o, model);
  const int positions = o.prompt_tokens + o.gen_tokens;
  if (positions > c.max_seq_len)
    return error(ErrorCode::BadArgument, positions, " positions do not fit the model's context of ",
                 c.max_seq_len);
  const Trace trace = kTraceNames.at(o.trace);
  GLASSBOX_ASSIGN(Session session, Session::create(model, {.threads = o.threads.most(),
                                                           .auto_threads = o.threads.automatic(),
                                                           .context_length = positions,
                                                           .trace_attention = trace == Trace::Attention,
                                                           .trace_residuals = trace == Trace::Residuals}));
  // A fixed, varied token sequence: the content does not change the work a forward pass does.
  std::vector<int> prompt(static_cast<std::size_t>(o.prompt_tokens));
  for (int i = 0; i < o.prompt_tokens; ++i)
    prompt[static_cast<std::size_t>(i)] = (i * 7919 + 1) % c.vocab_size;

  // An untimed pass first, as llama-bench makes one: it faults the mapped weights in from the file, which
  // would otherwise land in the first repeat alone (a cold 110M float32 prompt ran at a quarter of the speed).
  if (!o.no_warmup) {
    std::span<const float> logits;
    GLASSBOX_ASSIGN(logits, session.prefill(prompt));
    if (o.gen_tokens > 0) {
      GLASSBOX_ASSIGN(logits, session.step(argmax(logits)));
    }
  }
  std::vector<double> prompt_rates, gen_rates;
  ThreadsUsed used;
  for (int r = 0; r < o.repeat; ++r) {
    session.reset();
    const auto t0 = Clock::now();
    std::span<const float> logits;
    GLASSBOX_ASSIGN(logits, session.prefill(prompt));
    const auto t1 = Clock::now();
    used.prompt = session.last_pass_threads();
    int token = argmax(logits);
    for (int i = 0; i < o.gen_tokens; ++i) {
      GLASSBOX_ASSIGN(logits, session.step(token));
      token = argmax(logits);
    }
    const auto t2 = Clock::now();
    prompt_rates.push_back(o.prompt_tokens / std::chrono::duration<double>(t1 - t0).count());
    if (o.gen_tokens > 0) gen_rates.push_back(o.gen_tokens / std::chrono::duration<double>(t2 - t1).count());
  }
  const Stats p = stats(prompt_rates), g = stats(gen_rates);
  used.generation = o.gen_tokens > 0 ? session.last_pass_threads() : 0;
  used.why = !o.threads.automatic() ? cat(o.threads.most(), " thread(s), as --threads asks")
             : o.gen_tokens > 0     ? choose_threads(c, 1, session.position() - 1, session.max_threads()).why
                                    : choose_threads(c, o.prompt_tokens, 0, session.max_threads()).why;

  Memory m;
  std::error_code ignored;
  m.file = static_cast<int64_t>(std::filesystem::file_size(o.model, ignored));
  m.kv_cache = 2 * int64_t{c.n_layers} * positions * c.kv_dim() * static_cast<int64_t>(sizeof(float));
  if (trace == Trace::Residuals) m.trace = session.residual_trace().bytes_held();
  if (trace == Trace::Attention)  // the causal triangle of every head
    m.trace = int64_t{c.n_layers} * c.n_heads * positions * (positions + 1) / 2 *
              static_cast<int64_t>(sizeof(float));
  m.peak_resident = peak_resident_bytes();

  if (o.json) {
    print_json(o, p, g, m, used);
  } else {
    const auto mib = [](int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
    std::printf("%s, threads %s (prompt %d, generation %d: %s), %d repeats, trace %s\n", build_description(),
                o.threads.value.c_str(), used.prompt, used.generation, used.why.c_str(), o.repeat,
                o.trace.c_str());
    std::printf("prompt     %6d tokens: %10.1f tokens/s (min %.1f, max %.1f)\n", o.prompt_tokens, p.median,
                p.min, p.max);
    std::printf("generation %6d tokens: %10.1f tokens/s (min %.1f, max %.1f)\n", o.gen_tokens, g.median,
                g.min, g.max);
    std::printf("memory: peak resident %.1f MiB; file %.1f MiB + KV cache %.1f MiB + trace %.1f MiB\n",
                mib(m.peak_resident), mib(m.file), mib(m.kv_cache), mib(m.trace));
  }
  return ok();
}

// X of the thread rule: the median cost of one hand-off of an empty loop, for 2..N threads, over --repeat
// batches. The model is not read (--model is still required by the flags' shape; any file will do).
Result<void> bench_hand_off(const Options& o) {
  const ThreadCosts costs = thread_costs();
  JsonWriter json;
  json.begin_object();
  json.key("engine").string(build_description());
  json.key("rule_hand_off_us").number(costs.hand_off_microseconds);
  json.key("rule_multiply_adds_per_us").number(costs.multiply_adds_per_microsecond);
  json.key("measured_hand_off_us").begin_object();
  if (!o.json)
    std::printf(
        "%s: the thread rule assumes a hand-off costs %.1f us and one thread does %.0f multiply-adds/us\n",
        build_description(), costs.hand_off_microseconds, costs.multiply_adds_per_microsecond);
  for (int threads = 2; threads <= o.threads.most(); ++threads) {
    const double us = measure_hand_off_microseconds(threads, o.repeat);
    json.key(std::to_string(threads)).number(std::round(us * 100) / 100);
    if (!o.json)
      std::printf("hand-off to %d threads: %.2f us (median of %d batches)\n", threads, us, o.repeat);
  }
  json.end_object();
  json.end_object();
  if (o.json) std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
  return ok();
}

}  // namespace

Command add_bench_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "bench",
      "Measures prompt and generation tokens/s (an encoder: embedding texts/s and tokens/s) with the median "
      "and range of the repeats, and peak memory");
  auto options = std::make_shared<Options>();
  app->add_option("--model", options->model, "GGUF file or llama2.c checkpoint")
      ->type_name("FILE")
      ->required();
  app->add_option("--prompt-tokens", options->prompt_tokens, "prompt tokens per repeat, read in one prefill")
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
  app->add_option("--texts", options->texts, "an encoder's texts per batch (16 to 64 tokens each)")
      ->type_name("N")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app->add_option("--trace", options->trace,
                  "what the session records: off, residuals (what the page records) or attention (every "
                  "probability)")
      ->type_name("WHAT")
      ->check(CLI::IsMember({"off", "residuals", "attention"}))
      ->capture_default_str();
  app->add_flag("--json", options->json, "print one JSON object instead of text");
  app->add_flag("--hand-off", options->hand_off,
                "measure instead what handing a loop to 2..N threads costs (the thread rule's X, "
                "glassbox/thread_choice.hpp) beside the figures this build's rule uses");
  app->add_flag("--no-warmup", options->no_warmup,
                "time the first pass too (by default an untimed pass first reads the weights in)");
  app->add_option(
         "--lengths", options->lengths,
         "cost against length instead: prefill time, per-token time and memory for prompts of these "
         "lengths (e.g. 64,128,256,512,1024,2048; those past the model's context are skipped), beside "
         "the formulas")
      ->type_name("N,N,...");
  app->add_option(
         "--attention", options->attention,
         "with --lengths: the attention variants to measure (default: exact, window:W with W a quarter "
         "of the context up to 256, linear)")
      ->type_name("VARIANT,...");
  return {app, [options, app] {
            if (options->hand_off) return bench_hand_off(*options);
            if (options->lengths.empty()) {
              if (!options->attention.empty())
                return Result<void>(error(ErrorCode::BadArgument,
                                          "bench: --attention goes with --lengths (cost against length)"));
              return bench(*options);
            }
            return bench_lengths({.model = options->model,
                                  .lengths = options->lengths,
                                  .attention = options->attention,
                                  .threads = options->threads.most(),
                                  .repeat = app->count("--repeat") > 0 ? options->repeat : 3,
                                  .json = options->json});
          }};
}

}  // namespace glassbox::cli
