// glassbox::residual_norms on stories260K: the stream entering layer 0 is the token's embedding row (the
// model adds no position vector: it rotates q and k), so its length is that row's; every length is the
// residual trace's row's; and positions outside what was read are refused in words.
#include <gtest/gtest.h>

#include <cmath>

#include "glassbox/glassbox.hpp"
#include "stories_model.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

TEST(ResidualNorms, AreTheStreamsLengthsLayerByLayer) {
  REQUIRE_STORIES();
  const std::vector<int> ids = stories.tokenizer->encode_prompt(test::kStoriesText);
  auto session = Session::create(stories.model, {.trace_residuals = true});
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(session->prefill(ids).ok());
  const int layers = stories.model->config.n_layers, dim = stories.model->config.dim;
  const int begin = 3, end = static_cast<int>(ids.size());
  auto norms = residual_norms(*session, begin, end);
  ASSERT_TRUE(norms.ok()) << norms.error().message;
  const auto n = static_cast<std::size_t>(end - begin);
  ASSERT_EQ(norms->size(), static_cast<std::size_t>(layers + 1) * n);
  const float* embedding = stories.model->weights.token_embedding.f32();
  for (int p = begin; p < end; ++p) {
    double row0 = 0;
    for (int i = 0; i < dim; ++i) {
      const double e = embedding[static_cast<std::size_t>(ids[static_cast<std::size_t>(p)]) * dim + i];
      row0 += e * e;
    }
    EXPECT_NEAR((*norms)[static_cast<std::size_t>(p - begin)], std::sqrt(row0), 1e-5) << "position " << p;
    for (int layer = 1; layer <= layers; ++layer) {
      double sum = 0;
      for (float x : session->residual_trace().row(layer, p))
        sum += static_cast<double>(x) * x;
      EXPECT_FLOAT_EQ((*norms)[static_cast<std::size_t>(layer) * n + static_cast<std::size_t>(p - begin)],
                      static_cast<float>(std::sqrt(sum)));
    }
  }
  // The stream grows as the layers write into it (the mean over positions, last against first).
  double first = 0, last = 0;
  for (std::size_t i = 0; i < n; ++i) {
    first += (*norms)[i];
    last += (*norms)[static_cast<std::size_t>(layers) * n + i];
  }
  EXPECT_GT(last, first);
  test::expect_error(residual_norms(*session, 0, end + 1), ErrorCode::BadArgument, "outside the");
  test::expect_error(residual_norms(*session, 5, 2), ErrorCode::BadArgument, "outside the");
}

}  // namespace
}  // namespace glassbox
