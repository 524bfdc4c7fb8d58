// Cost against length (glassbox/length_cost.hpp) on stories260K: the measurement's structure, the memory it
// reports equal to what the session's buffers hold by their formulas, the seeds' FLOP formulas and their
// crossover, bad input refused in words, and `glassbox bench --lengths`. No timing is asserted beyond being
// positive and ordered: this machine is shared.
#include <gtest/gtest.h>

#include "glassbox/length_cost.hpp"
#include "kernels/matmul.hpp"
#include "stories_model.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

constexpr int64_t kFloat = sizeof(float);

AttentionVariant variant(const char* spelling) {
  auto parsed = parse_attention_variant(spelling);
  EXPECT_TRUE(parsed.ok()) << spelling;
  return parsed.ok() ? *parsed : AttentionVariant{};
}

void expect_spread(const Spread& s) {
  EXPECT_GT(s.min, 0.0);
  EXPECT_LE(s.min, s.median);
  EXPECT_LE(s.median, s.max);
}

TEST(LengthCost, MemoryIsWhatTheSessionAllocatesAndLinearStateDoesNotGrow) {
  REQUIRE_STORIES();
  const ModelConfig& c = stories.model->config;
  const int64_t L = c.n_layers, kv = c.kv_dim(), H = c.n_heads;
  const int threads = 1;
  int64_t linear_state = -1;
  for (const char* spelling : {"exact", "window:4", "linear"}) {
    const AttentionVariant v = variant(spelling);
    for (const int n : {3, 8, 16}) {
      SCOPED_TRACE(std::string(spelling) + " at n = " + std::to_string(n));
      auto point = measure_length_cost(stories.model, v, n, {.threads = threads, .repeat = 2});
      ASSERT_TRUE(point.ok()) << point.error().message;
      EXPECT_EQ(point->length, n);
      expect_spread(point->prefill_seconds);
      expect_spread(point->token_seconds);
      // Every variant's session keeps the keys and values of all n positions (linear reads the chunk's own
      // from the cache), and a prompt's scores are a row per head plus a tile of query rows per thread.
      EXPECT_EQ(point->memory.kv_cache, 2 * L * n * kv * kFloat);
      const auto tile = static_cast<int64_t>(kernels::matmul_tile_tokens());
      EXPECT_EQ(point->memory.scores, (H * n + threads * tile * n) * kFloat);
      const CostFormula& f = point->formula;
      if (v.kind == AttentionKind::Linear) {
        // The running sums: L kv-heads of (d x d + d), plus a log scale each; the same at every length.
        EXPECT_EQ(point->memory.attention_state,
                  L * c.n_kv_heads * (c.head_dim * c.head_dim + c.head_dim + 1) * kFloat);
        EXPECT_EQ(point->memory.attention_state, f.state_bytes);
        if (linear_state >= 0) EXPECT_EQ(point->memory.attention_state, linear_state);
        linear_state = point->memory.attention_state;
        EXPECT_EQ(f.kv_cache_bytes, 0);
        EXPECT_EQ(f.scores_bytes, 0);
      } else {
        EXPECT_EQ(point->memory.attention_state, 0);
        const int64_t keys = v.kind == AttentionKind::Window ? std::min(n, v.window) : n;
        EXPECT_EQ(f.kv_cache_bytes, 2 * L * keys * kv * kFloat);
        EXPECT_EQ(f.scores_bytes, H * n * keys * kFloat);
        if (v.is_exact()) EXPECT_EQ(f.kv_cache_bytes, point->memory.kv_cache);
      }
    }
  }
}

TEST(LengthCost, FormulasFollowTheSeedsAndMarkTheCrossover) {
  REQUIRE_STORIES();
  const ModelConfig& c = stories.model->config;
  const int64_t L = c.n_layers, d = c.dim, h = c.hidden_dim, q = c.q_dim(), kv = c.kv_dim();
  const CostFormula f = cost_formula(c, AttentionVariant{}, 100);
  EXPECT_EQ(f.attention_token, L * 4 * 100 * q);
  EXPECT_EQ(f.attention_prompt,
            L * 2 * q * 100 * 101);                    // sum of 4 q t for t = 1..100: the n^2 d of the seeds
  EXPECT_EQ(f.feed_forward_token, L * 2 * 3 * h * d);  // stories260K's feed-forward is gated
  EXPECT_EQ(f.feed_forward_prompt, 100 * f.feed_forward_token);
  EXPECT_EQ(f.projections_token, L * 2 * (2 * q * d + 2 * kv * d));
  // n*: the first n with 4 n q > 6 h d (per layer).
  const int crossover = static_cast<int>((6 * h * d) / (4 * q)) + 1;
  EXPECT_EQ(crossover_length(c, AttentionVariant{}), crossover);
  const CostFormula at = cost_formula(c, AttentionVariant{}, crossover);
  const CostFormula before = cost_formula(c, AttentionVariant{}, crossover - 1);
  EXPECT_GT(at.attention_token, at.feed_forward_token);
  EXPECT_LE(before.attention_token, before.feed_forward_token);
  // A window shorter than n* never gets there; a longer one crosses where exact does. Linear never does.
  EXPECT_EQ(crossover_length(c, variant("window:16")), 0);
  EXPECT_EQ(crossover_length(c, variant("window:100000")), crossover);
  EXPECT_EQ(crossover_length(c, variant("linear")), 0);
  EXPECT_EQ(cost_formula(c, variant("window:16"), 400).attention_token, L * 4 * 16 * q);
  EXPECT_EQ(cost_formula(c, variant("global-window:2,16"), 400).attention_token, L * 4 * 18 * q);
  EXPECT_EQ(cost_formula(c, variant("linear"), 7).attention_token,
            cost_formula(c, variant("linear"), 400).attention_token);
}

TEST(LengthCost, QuickLengthsStayWithinTheBudgetAndTheContext) {
  REQUIRE_STORIES();
  const ModelConfig& c = stories.model->config;  // a 512-token context; a 512-token prompt is ~0.46 GFLOP
  EXPECT_EQ(quick_cost_lengths(c, 600'000'000), (std::vector<int>{16, 32, 64, 128, 256, 512}));
  EXPECT_EQ(quick_cost_lengths(c, 100'000'000), (std::vector<int>{16, 32, 64, 128}));
  EXPECT_EQ(quick_cost_lengths(c, 1), (std::vector<int>{16}));
}

TEST(LengthCost, BadInputIsRefusedInWords) {
  REQUIRE_STORIES();
  auto zero = parse_cost_lengths("64,0");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("at least 1"), std::string::npos) << zero.error().message;
  auto word = parse_cost_lengths("64,abc");
  ASSERT_FALSE(word.ok());
  EXPECT_NE(word.error().message.find("'abc' is not a whole number"), std::string::npos)
      << word.error().message;
  auto lengths = parse_cost_lengths("64,128");
  ASSERT_TRUE(lengths.ok());
  EXPECT_EQ(*lengths, (std::vector<int>{64, 128}));

  auto variants = parse_cost_variants("exact,global-window:1,8,linear");
  ASSERT_TRUE(variants.ok()) << variants.error().message;
  ASSERT_EQ(variants->size(), 3u);
  EXPECT_EQ(to_string((*variants)[1]), "global-window:1,8");
  auto zero_window = parse_cost_variants("exact,window:0");
  ASSERT_FALSE(zero_window.ok());
  EXPECT_NE(zero_window.error().message.find("window W must be 1"), std::string::npos)
      << zero_window.error().message;

  auto low_rank = measure_length_cost(stories.model, variant("low-rank:2"), 8);
  ASSERT_FALSE(low_rank.ok());
  EXPECT_NE(low_rank.error().message.find("no per-token time"), std::string::npos)
      << low_rank.error().message;
  auto too_long =
      measure_length_cost(stories.model, AttentionVariant{}, stories.model->config.max_seq_len + 1);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.error().message.find("the model's context"), std::string::npos)
      << too_long.error().message;
}

#if !defined(__EMSCRIPTEN__)
TEST(LengthCost, BenchLengthsPrintsATableAJsonObjectAndRefusesBadLengths) {
  GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
  const std::string model = test::model_path("stories260K.bin");
  auto bad = test::run_cli({"bench", "--model", model, "--lengths", "64,x"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("'x' is not a whole number"), std::string::npos) << bad.err;
  bad = test::run_cli({"bench", "--model", model, "--lengths", "0"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("at least 1 token"), std::string::npos) << bad.err;
  bad = test::run_cli({"bench", "--model", model, "--lengths", "1024,2048"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("model's context of 512"), std::string::npos) << bad.err;
  bad = test::run_cli({"bench", "--model", model, "--lengths", "16", "--attention", "low-rank:2"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("no per-token time"), std::string::npos) << bad.err;

  auto table =
      test::run_cli({"bench", "--model", model, "--lengths", "8,1024", "--repeat", "1", "--threads", "1"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("skipped: 1024 (longer than the model's context of 512"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("attention exact: crossover n* = "), std::string::npos) << table.out;

  auto run = test::run_cli({"bench", "--model", model, "--lengths", "8,16", "--attention", "exact,linear",
                            "--repeat", "1", "--threads", "1", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = test::parse_json(run.out, "bench --lengths --json");
  ASSERT_TRUE(doc.IsObject());
  const auto& variants = doc["variants"];
  ASSERT_EQ(variants.Size(), 2u);
  EXPECT_STREQ(variants[0]["attention"].GetString(), "exact");
  EXPECT_GT(variants[0]["crossover_length"].GetInt(), 0);
  EXPECT_EQ(variants[1]["crossover_length"].GetInt(), 0);
  ASSERT_EQ(variants[1]["points"].Size(), 2u);
  const auto& point = variants[1]["points"][1];
  EXPECT_EQ(point["length"].GetInt(), 16);
  EXPECT_GT(point["token_seconds"]["median"].GetDouble(), 0.0);
  EXPECT_GT(point["memory"]["attention_state_bytes"].GetInt64(), 0);
  EXPECT_EQ(point["memory"]["attention_state_bytes"].GetInt64(), point["formula"]["state_bytes"].GetInt64());
}
#endif

}  // namespace
}  // namespace glassbox
