// measure_heads on a random model (every statistic in range, any thread count the same numbers) and on
// stories260K (the whole model in one call, with a real tokenizer's probe).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "glassbox/formats.hpp"
#include "glassbox/measure_heads.hpp"
#include "glassbox/session.hpp"
#include "glassbox/tokenizer.hpp"
#include "random_models.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

void expect_in_range(const HeadReport& r) {
  SCOPED_TRACE(testing::Message() << "layer " << r.layer << " head " << r.head);
  EXPECT_GE(r.entropy_bits, 0.0);
  EXPECT_LE(r.entropy_bits, r.uniform_entropy_bits + 1e-9);
  for (double p : {r.sink, r.previous_token, r.local, r.induction}) {
    EXPECT_GE(p, 0.0);
    EXPECT_LE(p, 1.0 + 1e-6);
  }
  EXPECT_GE(r.local, r.previous_token - 1e-6);  // the previous key is one of the window's
  EXPECT_GE(r.effective_rank, 1);
}

TEST(MeasureHeads, RandomModelGivesTheSameNumbersWithOneAndTwoThreads) {
  const test::RandomModel random(test::base_config(), {}, 5);
  const std::vector<int> tokens = {1, 5, 2, 9, 3, 3, 7, 0, 4, 10};
  MeasureHeadsOptions options;
  options.probe.prefix = {0};
  auto one = measure_heads(random.model(), tokens, options);
  ASSERT_TRUE(one.ok()) << one.error().message;
  options.threads = 2;
  auto two = measure_heads(random.model(), tokens, options);
  ASSERT_TRUE(two.ok()) << two.error().message;

  const ModelConfig& c = random.model().config;
  ASSERT_EQ(one->size(), static_cast<std::size_t>(c.n_layers * c.n_heads));
  ASSERT_EQ(two->size(), one->size());
  for (std::size_t i = 0; i < one->size(); ++i) {
    const HeadReport &a = (*one)[i], &b = (*two)[i];
    EXPECT_EQ(a.layer, static_cast<int>(i) / c.n_heads);
    EXPECT_EQ(a.head, static_cast<int>(i) % c.n_heads);
    expect_in_range(a);
    EXPECT_LE(a.effective_rank, static_cast<int>(tokens.size()));
    EXPECT_EQ(a.entropy_bits, b.entropy_bits);
    EXPECT_EQ(a.sink, b.sink);
    EXPECT_EQ(a.previous_token, b.previous_token);
    EXPECT_EQ(a.local, b.local);
    EXPECT_EQ(a.induction, b.induction);
    EXPECT_EQ(a.effective_rank, b.effective_rank);
    EXPECT_EQ(a.role, b.role);
  }
  const RoleCounts counts = summarize_roles(*one);
  int total = 0;
  for (int n : counts.counts)
    total += n;
  EXPECT_EQ(total, c.n_layers * c.n_heads);
}

TEST(MeasureHeads, InductionComesFromTheSessionsOwnRows) {
  // The probe's scores through a caller's session equal measure_heads' (the same probe, the same bits).
  const test::RandomModel random(test::base_config(), {}, 6);
  auto model = std::shared_ptr<const Model>(std::shared_ptr<const Model>(), &random.model());
  auto session = Session::create(model, {.trace_residuals = true});
  ASSERT_TRUE(session.ok());
  const InductionProbe probe{.prefix = {0}, .length = 5};
  auto scores = induction_scores(*session, probe);
  ASSERT_TRUE(scores.ok()) << scores.error().message;
  EXPECT_EQ(session->position(), 11);
  auto reports = measure_heads(random.model(), std::vector<int>{1, 2, 3}, {.probe = probe});
  ASSERT_TRUE(reports.ok()) << reports.error().message;
  ASSERT_EQ(scores->size(), reports->size());
  for (std::size_t i = 0; i < reports->size(); ++i)
    EXPECT_EQ((*scores)[i], (*reports)[i].induction);
}

TEST(MeasureHeads, RejectsWhatItCannotMeasure) {
  const test::RandomModel random(test::base_config(), {}, 5);
  EXPECT_FALSE(measure_heads(random.model(), std::vector<int>{}).ok());
  EXPECT_FALSE(measure_heads(random.model(), std::vector<int>{1, 99}).ok());  // outside the vocabulary
  EXPECT_FALSE(measure_heads(random.model(), std::vector<int>(13, 1)).ok());  // past max_seq_len 12
  EXPECT_FALSE(measure_heads(random.model(), std::vector<int>{1}, {.threads = 0}).ok());
}

TEST(MeasureHeads, Stories260KEveryHeadInOneCall) {
  const std::string model_file = test::model_path("stories260K.bin");
  const std::string tokenizer_file = test::model_path("tok512.bin");
  GLASSBOX_REQUIRE_FILE(model_file);
  GLASSBOX_REQUIRE_FILE(tokenizer_file);
  const auto loaded = open_model_files(model_file, tokenizer_file);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Tokenizer& tokenizer = *loaded->tokenizer;
  const std::vector<int> tokens = tokenizer.encode_prompt(
      "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, "
      "she saw a big red ball. Lily wanted to play with the ball, so she ran to get it.");
  MeasureHeadsOptions options{.threads = 2, .probe = induction_probe_for(tokenizer)};
  // The probe starts with BOS and draws only ordinary pieces (tok512: not <unk>, <s>, </s> or <0xXX>).
  ASSERT_GE(tokenizer.bos_id(), 0);
  EXPECT_EQ(options.probe.prefix, std::vector<int>{tokenizer.bos_id()});
  const auto probe = make_induction_sequence(options.probe, tokenizer.vocab_size(), 512);
  ASSERT_TRUE(probe.ok()) << probe.error().message;
  EXPECT_EQ(probe->layout.length, 32);
  for (std::size_t i = 1; i < probe->tokens.size(); ++i)
    EXPECT_EQ(tokenizer.type(probe->tokens[i]), TokenType::Normal) << tokenizer.piece(probe->tokens[i]);
  const auto reports = measure_heads(*loaded->model, tokens, options);
  ASSERT_TRUE(reports.ok()) << reports.error().message;
  ASSERT_EQ(reports->size(), 5u * 8u);
  for (const HeadReport& r : *reports) {
    expect_in_range(r);
    EXPECT_LE(r.effective_rank, static_cast<int>(tokens.size()));
  }
  // For the log: what the labels make of a trained model (this tiny one has previous-token and local heads
  // but no induction head).
  const RoleCounts counts = summarize_roles(*reports);
  std::printf("stories260K head roles over %zu tokens:", tokens.size());
  for (int role = 0; role < kHeadRoleCount; ++role)
    std::printf(" %s %d", to_string(static_cast<HeadRole>(role)),
                counts.counts[static_cast<std::size_t>(role)]);
  std::printf("\n");
}

}  // namespace
}  // namespace glassbox
