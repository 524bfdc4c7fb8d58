// Session::attention_detail: every intermediate number of one head's attention at one query, checked against
// the rows the forward pass used and against the formula computed here in double.
#include <gtest/gtest.h>

#include <cmath>

#include "glassbox/glassbox.hpp"
#include "random_models.hpp"

namespace glassbox {
namespace {

class AttentionDetailTest : public ::testing::TestWithParam<test::Case> {};

TEST_P(AttentionDetailTest, EveryStepOfTheFormulaWithTheForwardPasssNumbers) {
  const test::Case& c = GetParam();
  test::RandomModel random(c.config, c.biases, 3);
  auto session = Session::create(std::make_shared<const Model>(random.model()),
                                 {.threads = 2, .trace_attention = true, .trace_residuals = true});
  ASSERT_TRUE(session.ok());
  std::vector<float> scales(static_cast<std::size_t>(c.config.n_layers * c.config.n_heads), 1.0f);
  scales[1] = 0.5f;  // layer 0, head 1 at half strength
  ASSERT_TRUE(session->set_head_scales(scales).ok());
  const int tokens[] = {3, 1, 4, 1, 5, 9, 2};
  ASSERT_TRUE(session->prefill(tokens).ok());
  const auto head_dim = static_cast<std::size_t>(c.config.head_dim);
  for (int layer = 0; layer < c.config.n_layers; ++layer) {
    for (int head = 0; head < c.config.n_heads; ++head) {
      for (int query : {0, 3, 6}) {
        auto d = session->attention_detail(layer, head, query);
        ASSERT_TRUE(d.ok()) << d.error().message;
        const auto keys = static_cast<std::size_t>(query) + 1;
        ASSERT_EQ(d->keys, query + 1);
        ASSERT_EQ(d->key_rows.size(), keys * head_dim);
        ASSERT_EQ(d->value_rows.size(), keys * head_dim);
        // The probabilities are the forward pass's own, to the bit.
        const std::span<const float> recorded = session->attention_trace().row(layer, head, query);
        EXPECT_TRUE(
            std::equal(d->probabilities.begin(), d->probabilities.end(), recorded.begin(), recorded.end()))
            << c.label << " layer " << layer << " head " << head << " query " << query;
        // Each step follows from the one before, by the formula.
        EXPECT_EQ(d->scale, std::sqrt(static_cast<float>(head_dim)));
        double norm_q = 0, norm_unrotated = 0;
        for (std::size_t i = 0; i < head_dim; ++i) {
          norm_q += double{d->q[i]} * d->q[i];
          norm_unrotated += double{d->query_unrotated[i]} * d->query_unrotated[i];
        }
        EXPECT_NEAR(norm_q, norm_unrotated, 1e-4 * (1 + norm_q)) << "a rotation keeps the length";
        if (c.config.position != PositionKind::RoPE) EXPECT_EQ(d->q, d->query_unrotated);
        if (c.config.position == PositionKind::RoPE) {
          EXPECT_EQ(d->rope_angles.size(), static_cast<std::size_t>(c.config.rotary_dim() / 2));
        }
        double total = 0;
        for (std::size_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (std::size_t i = 0; i < head_dim; ++i)
            dot += double{d->q[i]} * d->key_rows[j * head_dim + i];
          EXPECT_NEAR(d->dots[j], dot, 1e-4 * (1 + std::fabs(dot)));
          // ALiBi's bias, where the model has it: -slope * the distance to the query.
          const float slope = c.config.position == PositionKind::ALiBi ? alibi_slope(c.config, head) : 0.0f;
          EXPECT_EQ(d->scores[j], d->dots[j] / d->scale - slope * static_cast<float>(query - j));
          total += d->probabilities[j];
        }
        EXPECT_NEAR(total, 1.0, 1e-5);
        const float expected_scale = layer == 0 && head == 1 ? 0.5f : 1.0f;
        EXPECT_EQ(d->head_scale, expected_scale);
        for (std::size_t i = 0; i < head_dim; ++i) {
          double sum = 0;
          for (std::size_t j = 0; j < keys; ++j)
            sum += double{d->probabilities[j]} * d->value_rows[j * head_dim + i];
          EXPECT_NEAR(d->output[i], expected_scale * sum, 1e-4 * (1 + std::fabs(sum)));
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, AttentionDetailTest, ::testing::ValuesIn(test::architecture_cases()),
                         [](const auto& info) {
                           std::string name = info.param.label;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(AttentionDetail, NamesWhatItCannotGive) {
  test::RandomModel random(test::base_config(), {}, 3);
  auto session = Session::create(std::make_shared<const Model>(random.model()));
  const int tokens[] = {1, 2, 3};
  ASSERT_TRUE(session->prefill(tokens).ok());
  auto not_traced = session->attention_detail(0, 0, 1);
  ASSERT_FALSE(not_traced.ok());
  EXPECT_EQ(not_traced.error().code, ErrorCode::NotRecorded);
  EXPECT_EQ(session->attention_detail(0, 0, 3).error().code, ErrorCode::BadArgument);  // not computed yet
  EXPECT_EQ(session->attention_detail(2, 0, 0).error().code, ErrorCode::BadArgument);  // no layer 2
  EXPECT_EQ(session->attention_detail(0, 4, 0).error().code, ErrorCode::BadArgument);  // no head 4
}

}  // namespace
}  // namespace glassbox
