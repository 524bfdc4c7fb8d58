// glassbox::attention_lab: one text read with exact attention and with a variant, on stories260K. Its numbers
// are checked against the functions the CLI's score --attention reports (score_tokens), against a variant's
// session stepping token by token, and for what must hold of any comparison (exact against itself is 0).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "glassbox/attention_lab.hpp"
#include "glassbox/glassbox.hpp"
#include "stories_model.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

AttentionVariant variant(const char* spelling) {
  auto v = parse_attention_variant(spelling);
  EXPECT_TRUE(v.ok()) << spelling;
  return *v;
}

TEST(AttentionLab, ExactAgainstItselfDiffersNowhere) {
  REQUIRE_STORIES();
  const std::vector<int> ids = stories.tokenizer->encode_prompt(test::kStoriesText);
  auto lab = attention_lab(stories.model, *stories.tokenizer, ids,
                           {.variant = {}, .layer = 2, .head = 1, .continue_tokens = 6});
  ASSERT_TRUE(lab.ok()) << lab.error().message;
  const auto n = static_cast<std::size_t>(lab->head.n);
  ASSERT_EQ(n, ids.size());
  for (std::size_t i = 0; i < n * n; ++i)
    EXPECT_EQ(static_cast<double>(lab->head.exact[i]), lab->head.variant[i]) << "element " << i;
  for (double kl : lab->kl_by_position)
    EXPECT_EQ(kl, 0.0);
  EXPECT_EQ(lab->kl_by_position.size(), n);
  EXPECT_TRUE(lab->top_agrees);
  EXPECT_EQ(lab->exact_loss, lab->variant_loss);
  EXPECT_EQ(lab->exact_continuation.size(), 6u);
  EXPECT_EQ(lab->exact_continuation, lab->variant_continuation);
  EXPECT_EQ(lab->exact_top.front().id, lab->exact_continuation.front());
}

TEST(AttentionLab, AWindowsNumbersAreScoresAndItsRowsSeeOnlyTheWindow) {
  REQUIRE_STORIES();
  const std::vector<int> ids = stories.tokenizer->encode_prompt(test::kStoriesText);
  const AttentionVariant window = variant("window:4");
  auto lab = attention_lab(stories.model, *stories.tokenizer, ids,
                           {.variant = window, .layer = 1, .head = 3, .top_k = 5, .continue_tokens = 8});
  ASSERT_TRUE(lab.ok()) << lab.error().message;
  auto score = score_tokens(stories.model, ids, {.attention = window, .compare_to_exact = true});
  ASSERT_TRUE(score.ok()) << score.error().message;
  // score compares the positions that predict a token of the text; the lab adds the step's own at the end.
  ASSERT_EQ(lab->kl_by_position.size(), ids.size());
  for (std::size_t p = 0; p + 1 < ids.size(); ++p) {
    EXPECT_EQ(lab->kl_by_position[p], score->against_exact->kl[p]) << "position " << p;
    EXPECT_EQ(lab->top_agrees_by_position[p], score->against_exact->top_agrees[p]) << "position " << p;
  }
  EXPECT_DOUBLE_EQ(lab->variant_loss, score->loss);
  EXPECT_DOUBLE_EQ(lab->exact_loss, score->against_exact->exact_loss);
  EXPECT_GT(lab->kl_by_position.back(), 0.0);
  EXPECT_EQ(lab->exact_top.size(), 5u);

  // Each variant row is a distribution over the 4 newest keys; the exact rows over every key up to the query.
  const auto n = static_cast<std::size_t>(lab->head.n);
  for (std::size_t i = 0; i < n; ++i) {
    double exact_sum = 0, variant_sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      exact_sum += lab->head.exact[i * n + j];
      variant_sum += lab->head.variant[i * n + j];
      if (j > i || j + 4 <= i) {
        EXPECT_EQ(lab->head.variant[i * n + j], 0.0) << i << "," << j;
      }
    }
    EXPECT_NEAR(exact_sum, 1.0, 1e-5) << "row " << i;
    EXPECT_NEAR(variant_sum, 1.0, 1e-5) << "row " << i;
  }

  // The continuation under the window is what a window session writes stepping greedily token by token.
  auto session = Session::create(stories.model, {.attention = window});
  ASSERT_TRUE(session.ok());
  std::span<const float> logits;
  for (int id : ids) {
    auto out = session->step(id);
    ASSERT_TRUE(out.ok());
    logits = *out;
  }
  ASSERT_EQ(lab->variant_continuation.size(), 8u);
  for (int expected : lab->variant_continuation) {
    EXPECT_EQ(argmax(logits), expected);
    auto out = session->step(expected);
    ASSERT_TRUE(out.ok());
    logits = *out;
  }
}

TEST(AttentionLab, ComparesOnlyTheNewestPositionsWhenAsked) {
  REQUIRE_STORIES();
  const std::vector<int> ids = stories.tokenizer->encode_prompt(test::kStoriesText);
  auto all = attention_lab(stories.model, *stories.tokenizer, ids, {.variant = variant("linear")});
  auto newest = attention_lab(stories.model, *stories.tokenizer, ids,
                              {.variant = variant("linear"), .compared_positions = 5});
  ASSERT_TRUE(all.ok() && newest.ok());
  EXPECT_EQ(newest->compared_from, static_cast<int>(ids.size()) - 5);
  ASSERT_EQ(newest->kl_by_position.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(newest->kl_by_position[i], all->kl_by_position[ids.size() - 5 + i]);
  EXPECT_EQ(newest->kl, all->kl);
}

TEST(AttentionLab, LowRankKeepsAShareOfTheEnergyAndCannotWrite) {
  REQUIRE_STORIES();
  const std::vector<int> ids = stories.tokenizer->encode_prompt(test::kStoriesText);
  auto lab = attention_lab(stories.model, *stories.tokenizer, ids,
                           {.variant = variant("low-rank:2"), .continue_tokens = 4});
  ASSERT_TRUE(lab.ok()) << lab.error().message;
  EXPECT_GT(lab->head.energy_kept, 0.0);
  EXPECT_LT(lab->head.energy_kept, 1.0);
  EXPECT_TRUE(lab->variant_continuation.empty());
  EXPECT_NE(lab->variant_cannot_continue.find("low-rank:2"), std::string::npos);
  EXPECT_EQ(lab->exact_continuation.size(), 4u);
}

TEST(AttentionLab, BadRequestsAreRefusedInWords) {
  REQUIRE_STORIES();
  const std::vector<int> ids = stories.tokenizer->encode_prompt(test::kStoriesText);
  const auto& tok = *stories.tokenizer;
  test::expect_error(attention_lab(stories.model, tok, std::vector<int>{}, {}), ErrorCode::BadArgument,
                     "no tokens");
  test::expect_error(attention_lab(stories.model, tok, ids, {.variant = {}, .layer = 5}),
                     ErrorCode::BadArgument, "layer 5 head 0 is outside");
  test::expect_error(attention_lab(stories.model, tok, ids, {.variant = {}, .head = -1}),
                     ErrorCode::BadArgument, "is outside");
  test::expect_error(attention_lab(stories.model, tok, std::vector<int>{1, 512}, {}), ErrorCode::BadArgument,
                     "token id 512 is outside the vocabulary");
  AttentionVariant zero_window{.kind = AttentionKind::Window, .window = 0};
  test::expect_error(attention_lab(stories.model, tok, ids, {.variant = zero_window}), ErrorCode::BadArgument,
                     "window");
}

}  // namespace
}  // namespace glassbox
