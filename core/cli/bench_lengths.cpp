// glassbox bench --lengths: cost against length (glassbox/length_cost.hpp) as a table, or one JSON object a
// plot reads. The measuring and the formulas are the core's; this file reads the flags and prints.
#include "bench_lengths.hpp"

#include <cstdio>
#include <string>

#include "glassbox/build.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/length_cost.hpp"
#include "json_writer.hpp"

namespace glassbox::cli {
namespace {

struct Measured {
  AttentionVariant variant;
  int crossover = 0;
  std::vector<LengthCostPoint> points;
};

constexpr const char* kTokens = "the fixed sequence (7919 i + 1) mod vocab_size";

void spread_json(JsonWriter& json, const char* name, const Spread& s) {
  json.key(name).begin_object();
  json.key("median").number(s.median).key("min").number(s.min).key("max").number(s.max);
  json.end_object();
}

void print_json(const LengthsOptions& o, const ModelConfig& c, const std::vector<int>& skipped,
                const std::vector<Measured>& runs) {
  JsonWriter json;
  json.begin_object();
  json.key("engine").string(build_description());
  json.key("model").string(o.model);
  json.key("threads").integer(o.threads);
  json.key("repeat").integer(o.repeat);
  json.key("tokens").string(kTokens);
  json.key("shape").begin_object();
  json.key("dim").integer(c.dim).key("hidden_dim").integer(c.hidden_dim).key("n_layers").integer(c.n_layers);
  json.key("n_heads")
      .integer(c.n_heads)
      .key("n_kv_heads")
      .integer(c.n_kv_heads)
      .key("head_dim")
      .integer(c.head_dim);
  json.key("context").integer(c.max_seq_len).key("gated_ffn").boolean(c.gated_ffn);
  json.end_object();
  json.key("skipped").begin_array();
  for (int n : skipped) {
    json.begin_object().key("length").integer(n);
    json.key("reason").string("longer than the model's context of " + std::to_string(c.max_seq_len) +
                              " positions");
    json.end_object();
  }
  json.end_array();
  json.key("variants").begin_array();
  for (const Measured& run : runs) {
    json.begin_object();
    json.key("attention").string(to_string(run.variant));
    json.key("crossover_length").integer(run.crossover);  // 0: never
    json.key("points").begin_array();
    for (const LengthCostPoint& p : run.points) {
      const CostFormula& f = p.formula;
      json.begin_object().key("length").integer(p.length);
      spread_json(json, "prefill_seconds", p.prefill_seconds);
      spread_json(json, "token_seconds", p.token_seconds);
      json.key("memory").begin_object();
      json.key("kv_cache_bytes").integer(p.memory.kv_cache).key("scores_bytes").integer(p.memory.scores);
      json.key("attention_state_bytes").integer(p.memory.attention_state);
      json.end_object();
      json.key("formula").begin_object();
      json.key("attention_token")
          .integer(f.attention_token)
          .key("projections_token")
          .integer(f.projections_token);
      json.key("feed_forward_token")
          .integer(f.feed_forward_token)
          .key("attention_prompt")
          .integer(f.attention_prompt);
      json.key("projections_prompt").integer(f.projections_prompt);
      json.key("feed_forward_prompt").integer(f.feed_forward_prompt);
      json.key("scores_bytes").integer(f.scores_bytes).key("kv_cache_bytes").integer(f.kv_cache_bytes);
      json.key("state_bytes").integer(f.state_bytes);
      json.end_object();
      json.end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
  std::printf("%.*s\n", static_cast<int>(json.text().size()), json.text().data());
}

std::string kib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / 1024.0);
  return text;
}

std::string mega(int64_t flops) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(flops) / 1e6);
  return text;
}

void print_table(const LengthsOptions& o, const ModelConfig& c, const std::vector<int>& skipped,
                 const std::vector<Measured>& runs) {
  std::printf("%s, %d thread(s), median of %d runs (min-max)\n", build_description(), o.threads, o.repeat);
  std::printf("%s: dim d %d, feed-forward hidden %d (%s), %d layers, %d heads (%d kv) of %d, context %d\n",
              o.model.c_str(), c.dim, c.hidden_dim, c.gated_ffn ? "gated" : "plain", c.n_layers, c.n_heads,
              c.n_kv_heads, c.head_dim, c.max_seq_len);
  std::printf("tokens: %s; the token time is the token at position n-1 (it attends to n keys)\n", kTokens);
  if (!skipped.empty()) {
    std::printf("skipped:");
    for (int n : skipped)
      std::printf(" %d", n);
    std::printf(" (longer than the model's context of %d positions)\n", c.max_seq_len);
  }
  std::printf(
      "formulas per token, all layers: attention 4 n q (n keys seen; linear: 2 f d_head (kv heads + heads)), "
      "projections 2 (2 q d + 2 kv d), feed-forward 2 (%d h d)\n",
      c.gated_ffn ? 3 : 2);
  for (const Measured& run : runs) {
    std::printf("\nattention %s: ", to_string(run.variant).c_str());
    if (run.crossover > 0)
      std::printf(
          "crossover n* = %d (from there a token's attention FLOPs pass its feed-forward's; rows marked *)\n",
          run.crossover);
    else
      std::printf("no crossover (a token's attention FLOPs never pass its feed-forward's)\n");
    std::printf("%6s %26s %26s %11s %10s %10s %11s %10s %9s\n", "n", "prefill ms (min-max)",
                "token ms (min-max)", "KV KiB", "scores KiB", "state KiB", "n^2 scores", "attn MF/t",
                "ffn MF/t");
    for (const LengthCostPoint& p : run.points) {
      char prefill[64], token[64];
      std::snprintf(prefill, sizeof prefill, "%.3f (%.3f-%.3f)", p.prefill_seconds.median * 1e3,
                    p.prefill_seconds.min * 1e3, p.prefill_seconds.max * 1e3);
      std::snprintf(token, sizeof token, "%.4f (%.4f-%.4f)", p.token_seconds.median * 1e3,
                    p.token_seconds.min * 1e3, p.token_seconds.max * 1e3);
      const bool past = run.crossover > 0 && p.length >= run.crossover;
      std::printf("%5d%s %26s %26s %11s %10s %10s %11s %10s %9s\n", p.length, past ? "*" : " ", prefill,
                  token, kib(p.memory.kv_cache).c_str(), kib(p.memory.scores).c_str(),
                  kib(p.memory.attention_state).c_str(), kib(p.formula.scores_bytes).c_str(),
                  mega(p.formula.attention_token).c_str(), mega(p.formula.feed_forward_token).c_str());
    }
  }
  std::printf(
      "\nKV, scores, state: what the session allocates (Session::memory). n^2 scores: one layer's scores "
      "held "
      "whole, as the seeds' formula has them (n x keys seen per head); this engine holds a row per head and "
      "a "
      "tile of rows per thread instead.\n");
}

}  // namespace

Result<void> bench_lengths(const LengthsOptions& o) {
  GLASSBOX_ASSIGN(const std::vector<int> asked, parse_cost_lengths(o.lengths));
  GLASSBOX_ASSIGN(Model loaded, load_model(o.model));
  auto model = std::make_shared<const Model>(std::move(loaded));
  const ModelConfig& c = model->config;
  if (!c.causal)
    return error(ErrorCode::BadArgument, "bench --lengths: ", o.model,
                 " is an encoder; cost against length measures a decoder's prompt and its next tokens");
  std::vector<AttentionVariant> variants = default_cost_variants(c);
  if (!o.attention.empty()) {
    GLASSBOX_ASSIGN(variants, parse_cost_variants(o.attention));
  }
  for (const AttentionVariant& v : variants)
    GLASSBOX_TRY(check_cost_variant(model, v));
  std::vector<int> lengths, skipped;
  for (int n : asked)
    (n <= c.max_seq_len ? lengths : skipped).push_back(n);
  if (lengths.empty())
    return error(ErrorCode::BadArgument, "bench --lengths '", o.lengths,
                 "': every length is longer than the ", "model's context of ", c.max_seq_len, " positions");

  std::vector<Measured> runs;
  for (const AttentionVariant& v : variants) {
    Measured run{v, crossover_length(c, v), {}};
    for (int n : lengths) {
      GLASSBOX_ASSIGN(LengthCostPoint point,
                      measure_length_cost(model, v, n, {.threads = o.threads, .repeat = o.repeat}));
      run.points.push_back(point);
    }
    runs.push_back(std::move(run));
  }
  if (o.json)
    print_json(o, c, skipped, runs);
  else
    print_table(o, c, skipped, runs);
  return ok();
}

}  // namespace glassbox::cli
