// attention_window and logit_lens (glassbox/attention_window.hpp, logit_lens.hpp): the page's attention view
// and logit lens, computed by the core. Checked against the forward pass's own record: the full attention
// trace (every probability) and the model's logits, on every architecture (sliding windows included).
#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "glassbox/glassbox.hpp"
#include "random_models.hpp"

namespace glassbox {
namespace {

const std::vector<int> kTokens = {1, 5, 2, 9, 3, 3, 7, 0, 4};

Session traced_session(const Model& model) {
  auto session = Session::create(std::make_shared<const Model>(model),
                                 {.trace_attention = true, .trace_residuals = true});
  EXPECT_TRUE(session.ok());
  EXPECT_TRUE(session->prefill(kTokens).ok());
  return std::move(*session);
}

class AttentionWindowTest : public testing::TestWithParam<test::Case> {};

TEST_P(AttentionWindowTest, WindowIsTheRecordsRowsWithStatsAndMask) {
  const test::Case& c = GetParam();
  const test::RandomModel random(c.config, c.biases, 3);
  const Session session = traced_session(random.model());
  const AttentionTrace& record = session.attention_trace();
  const int begin = 3, end = 8, size = end - begin, head_begin = 1, head_end = 3;
  for (int layer = 0; layer < c.config.n_layers; ++layer) {
    SCOPED_TRACE(testing::Message() << "layer " << layer);
    auto w = attention_window(session, layer, head_begin, head_end, begin, end);
    ASSERT_TRUE(w.ok()) << w.error().message;
    EXPECT_EQ(w->begin, begin);
    EXPECT_EQ(w->size, size);
    EXPECT_EQ(w->heads, 2);
    ASSERT_EQ(w->weights.size(), static_cast<std::size_t>(2 * size * size));
    ASSERT_EQ(w->stats.size(), 2u);
    for (int head = head_begin; head < head_end; ++head) {
      HeadStatsAccumulator expected_stats;
      for (int r = 0; r < size; ++r) {
        const std::span<const float> row = record.row(layer, head, begin + r);
        expected_stats.add(row);
        for (int key = 0; key < size; ++key) {
          const float found =
              w->weights[static_cast<std::size_t>(((head - head_begin) * size + r) * size + key)];
          EXPECT_EQ(found, key <= r ? row[static_cast<std::size_t>(begin + key)] : 0.0f)
              << "head " << head << " query " << begin + r << " key " << begin + key;
        }
      }
      const HeadStats expected = expected_stats.mean(),
                      found = w->stats[static_cast<std::size_t>(head - head_begin)];
      EXPECT_EQ(found.entropy_bits, expected.entropy_bits);
      EXPECT_EQ(found.sink, expected.sink);
      EXPECT_EQ(found.previous, expected.previous);
      EXPECT_EQ(found.local, expected.local);
    }
    ASSERT_EQ(w->first_visible.size(), static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r)
      EXPECT_EQ(w->first_visible[static_cast<std::size_t>(r)], c.config.first_visible_key(layer, begin + r));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryArchitecture, AttentionWindowTest,
                         testing::ValuesIn(test::architecture_cases()),
                         [](const testing::TestParamInfo<test::Case>& info) {
                           std::string name = info.param.label;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(AttentionWindow, SlidingLayerMasksKeysBeforeItsWindow) {
  ModelConfig c = test::base_config();
  c.sliding_window = 2;
  c.sliding_layers = {true, false};
  const test::RandomModel random(c, {}, 4);
  const Session session = traced_session(random.model());
  auto sliding = attention_window(session, 0, 0, 1, 0, 9);
  ASSERT_TRUE(sliding.ok());
  EXPECT_EQ(sliding->first_visible, (std::vector<int>{0, 0, 1, 2, 3, 4, 5, 6, 7}));
  auto global = attention_window(session, 1, 0, 1, 0, 9);
  ASSERT_TRUE(global.ok());
  EXPECT_EQ(global->first_visible, std::vector<int>(9, 0));
}

TEST(AttentionWindow, RefusesWhatWasNotComputed) {
  const test::RandomModel random(test::base_config(), {}, 3);
  const Session session = traced_session(random.model());
  EXPECT_FALSE(attention_window(session, 0, 0, 1, 0, 10).ok());  // 9 positions computed
  EXPECT_FALSE(attention_window(session, 2, 0, 1, 0, 9).ok());   // 2 layers
  EXPECT_FALSE(attention_window(session, 0, 0, 5, 0, 9).ok());   // 4 heads
}

TEST(LogitLens, TopTokensOfEveryLayerTheLastOneTheModelsOwn) {
  const test::RandomModel random(test::base_config(), {}, 3);
  const Session session = traced_session(random.model());
  const ModelConfig& c = random.model().config;
  const int k = 3, begin = 2, end = 9;
  auto lens = logit_lens(session, begin, end, k);
  ASSERT_TRUE(lens.ok()) << lens.error().message;
  EXPECT_EQ(lens->layers, c.n_layers + 1);
  EXPECT_EQ(lens->begin, begin);
  EXPECT_EQ(lens->size, end - begin);
  EXPECT_EQ(lens->k, k);
  const auto entries = static_cast<std::size_t>((c.n_layers + 1) * (end - begin) * k);
  ASSERT_EQ(lens->ids.size(), entries);
  ASSERT_EQ(lens->probabilities.size(), entries);
  ASSERT_EQ(lens->logits.size(), entries);
  std::vector<float> logits(static_cast<std::size_t>(c.vocab_size));
  for (int layer = 0; layer <= c.n_layers; ++layer)
    for (int position = begin; position < end; ++position) {
      ASSERT_TRUE(session.layer_logits(layer, position, logits).ok());
      const std::vector<TokenProbability> top = top_tokens(logits, k);
      for (int i = 0; i < k; ++i) {
        const auto at = static_cast<std::size_t>(((layer * (end - begin)) + position - begin) * k + i);
        EXPECT_EQ(lens->ids[at], top[static_cast<std::size_t>(i)].id);
        EXPECT_EQ(lens->probabilities[at], top[static_cast<std::size_t>(i)].probability);
        EXPECT_EQ(lens->logits[at], top[static_cast<std::size_t>(i)].logit);
      }
    }
  // The last layer's row at the last position is the model's own next-token choice.
  const std::vector<TokenProbability> own = top_tokens(session.logits(), 1);
  EXPECT_EQ(lens->ids[entries - static_cast<std::size_t>(k)], own.front().id);
}

TEST(LogitLens, RefusesPositionsAndKOutsideTheirRanges) {
  const test::RandomModel random(test::base_config(), {}, 3);  // vocabulary 11
  const Session session = traced_session(random.model());
  for (auto [begin, end, k] : {std::tuple{-1, 2, 1}, {3, 2, 1}, {0, 10, 1}, {0, 9, 0}, {0, 9, 12}}) {
    auto lens = logit_lens(session, begin, end, k);
    ASSERT_FALSE(lens.ok()) << begin << ".." << end << " k " << k;
    EXPECT_EQ(lens.error().code, ErrorCode::BadArgument);
  }
  EXPECT_TRUE(logit_lens(session, 4, 4, 11).ok()) << "an empty range, the whole vocabulary";
}

}  // namespace
}  // namespace glassbox
