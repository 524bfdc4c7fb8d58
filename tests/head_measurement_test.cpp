// HeadMeasurement (glassbox/measure_heads.hpp): the page's head-at-a-time measurement. It must give
// measure_heads' numbers bit for bit whatever the step size, report its progress one unit per head plus one
// for the probe, never cross a layer in one step, and refuse what it cannot do by code.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <vector>

#include "glassbox/measure_heads.hpp"
#include "random_models.hpp"

namespace glassbox {
namespace {

const std::vector<int> kTokens = {1, 5, 2, 9, 3, 3, 7, 0, 4, 10};

MeasureHeadsOptions options_with_window(int rank_window, int threads = 1) {
  MeasureHeadsOptions options{.threads = threads, .rank_window = rank_window};
  options.probe.prefix = {0};
  return options;
}

void expect_same_reports(const std::vector<HeadReport>& a, const std::vector<HeadReport>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "head " << i);
    EXPECT_EQ(a[i].layer, b[i].layer);
    EXPECT_EQ(a[i].head, b[i].head);
    EXPECT_EQ(a[i].entropy_bits, b[i].entropy_bits);
    EXPECT_EQ(a[i].uniform_entropy_bits, b[i].uniform_entropy_bits);
    EXPECT_EQ(a[i].sink, b[i].sink);
    EXPECT_EQ(a[i].previous_token, b[i].previous_token);
    EXPECT_EQ(a[i].local, b[i].local);
    EXPECT_EQ(a[i].effective_rank, b[i].effective_rank);
    EXPECT_EQ(a[i].induction, b[i].induction);
    EXPECT_EQ(a[i].role, b[i].role);
  }
}

// Steps of `heads` until done, returning completed() after each step.
std::vector<int> run(HeadMeasurement& m, int heads) {
  std::vector<int> progress;
  while (!m.done()) {
    const Result<void> stepped = m.step(heads);
    EXPECT_TRUE(stepped.ok()) << stepped.error().message;
    if (!stepped.ok()) break;
    progress.push_back(m.completed());
  }
  return progress;
}

TEST(HeadMeasurement, OneHeadPerStepGivesMeasureHeadsNumbers) {
  const test::RandomModel random(test::base_config(), {}, 5);  // 2 layers x 4 heads
  const auto model = std::make_shared<const Model>(random.model());
  for (int window : {4, kRankWindow}) {  // a window shorter than the prompt, and the default
    SCOPED_TRACE(testing::Message() << "rank window " << window);
    auto once = measure_heads(*model, kTokens, options_with_window(window, 2));
    ASSERT_TRUE(once.ok()) << once.error().message;
    auto m = HeadMeasurement::begin(model, kTokens, options_with_window(window));
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m->total(), 2 * 4 + 1);
    EXPECT_EQ(m->completed(), 0);
    EXPECT_EQ(run(*m, 1), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
    expect_same_reports(m->reports(), *once);
  }
}

TEST(HeadMeasurement, AStepStaysInItsLayer) {
  const test::RandomModel random(test::base_config(), {}, 5);  // 4 heads a layer
  const auto model = std::make_shared<const Model>(random.model());
  auto m = HeadMeasurement::begin(model, kTokens, options_with_window(kRankWindow));
  ASSERT_TRUE(m.ok()) << m.error().message;
  // 3 heads, then the layer's last one, the same in layer 1, then the probe.
  EXPECT_EQ(run(*m, 3), (std::vector<int>{3, 4, 7, 8, 9}));
  auto once = measure_heads(*model, kTokens, options_with_window(kRankWindow));
  ASSERT_TRUE(once.ok());
  expect_same_reports(m->reports(), *once);
}

TEST(HeadMeasurement, RolesAndInductionComeWithTheLastStep) {
  const test::RandomModel random(test::base_config(), {}, 6);
  const auto model = std::make_shared<const Model>(random.model());
  auto m = HeadMeasurement::begin(model, kTokens, options_with_window(kRankWindow));
  ASSERT_TRUE(m.ok());
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE(m->step().ok());
  EXPECT_FALSE(m->done());
  ASSERT_EQ(m->reports().size(), 8u);
  for (const HeadReport& r : m->reports())
    EXPECT_EQ(r.induction, 0.0) << "no probe has run yet";
  ASSERT_TRUE(m->step().ok());
  EXPECT_TRUE(m->done());
  EXPECT_EQ(m->completed(), m->total());
  auto once = measure_heads(*model, kTokens, options_with_window(kRankWindow));
  ASSERT_TRUE(once.ok());
  expect_same_reports(m->reports(), *once);
}

TEST(HeadMeasurement, RefusesStepsItCannotTake) {
  const test::RandomModel random(test::base_config(), {}, 5);
  const auto model = std::make_shared<const Model>(random.model());
  auto m = HeadMeasurement::begin(model, kTokens, options_with_window(kRankWindow));
  ASSERT_TRUE(m.ok());
  const Result<void> none = m->step(0);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::BadArgument);
  EXPECT_EQ(m->completed(), 0) << "a refused step measures nothing";
  run(*m, 4);
  const Result<void> after = m->step();
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, ErrorCode::InvalidState);
  EXPECT_EQ(m->reports().size(), 8u);
}

TEST(HeadMeasurement, BeginRefusesWhatMeasureHeadsRefuses) {
  const test::RandomModel random(test::base_config(), {}, 5);  // vocabulary 11, context 12
  const auto model = std::make_shared<const Model>(random.model());
  const auto code_of = [&](std::vector<int> tokens, MeasureHeadsOptions options = {}) {
    auto m = HeadMeasurement::begin(model, tokens, options);
    return m.ok() ? std::optional<ErrorCode>() : std::optional<ErrorCode>(m.error().code);
  };
  EXPECT_EQ(code_of({}), ErrorCode::BadArgument);
  EXPECT_EQ(code_of({1, 11}), ErrorCode::BadArgument);  // outside the vocabulary
  EXPECT_EQ(code_of(std::vector<int>(13, 1)), ErrorCode::PromptTooLong);
  EXPECT_EQ(code_of({1}, {.threads = 0}), ErrorCode::BadArgument);
  EXPECT_EQ(code_of({1}, {.rank_window = 0}), ErrorCode::BadArgument);
  auto no_model = HeadMeasurement::begin(nullptr, kTokens);
  ASSERT_FALSE(no_model.ok());
  EXPECT_EQ(no_model.error().code, ErrorCode::InvalidState);
}

TEST(HeadMeasurement, KeepsItsModelAlive) {
  const test::RandomModel random(test::base_config(), {}, 5);
  auto model = std::make_shared<const Model>(random.model());
  auto m = HeadMeasurement::begin(model, kTokens, options_with_window(kRankWindow));
  ASSERT_TRUE(m.ok());
  const std::weak_ptr<const Model> watched = model;
  model.reset();  // the caller loads another model, say
  EXPECT_FALSE(watched.expired());
  run(*m, 1);
  EXPECT_TRUE(m->done());
  auto once = measure_heads(random.model(), kTokens, options_with_window(kRankWindow));
  ASSERT_TRUE(once.ok());
  expect_same_reports(m->reports(), *once);
}

}  // namespace
}  // namespace glassbox
