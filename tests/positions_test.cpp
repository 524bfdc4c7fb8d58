// Position codes (glassbox/positions.hpp): the sinusoidal formula, RoPE's angles, and the property RoPE is
// built for, that a query and key's dot product depends only on their offset.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "glassbox/positions.hpp"
#include "random_models.hpp"

namespace glassbox {
namespace {

TEST(Positions, SinusoidalCodeIsTheFormula) {
  std::vector<float> code(6);
  sinusoidal_code(0, code);
  EXPECT_EQ(code, (std::vector<float>{0, 1, 0, 1, 0, 1}));  // sin 0, cos 0
  sinusoidal_code(7, code);
  for (int i = 0; i < 6; i += 2) {
    const double angle = 7 / std::pow(10000.0, i / 6.0);
    EXPECT_EQ(code[i], static_cast<float>(std::sin(angle)));
    EXPECT_EQ(code[i + 1], static_cast<float>(std::cos(angle)));
  }
}

TEST(Positions, RopeAnglesFallGeometricallyAcrossPairs) {
  ModelConfig c = test::base_config();  // theta 500, head_dim 4
  EXPECT_EQ(rope_angle(c, 0, 5), 5.0);
  EXPECT_NEAR(rope_angle(c, 1, 5), 5.0 / std::sqrt(500.0), 1e-6);  // theta^(-2/4)
  EXPECT_EQ(rope_angle(c, 1, 0), 0.0);
}

TEST(Positions, RopeDotProductsDependOnlyOnTheOffset) {
  std::mt19937 rng(9);
  std::normal_distribution<float> normal;
  for (const RopePairing pairing : {RopePairing::Adjacent, RopePairing::HalfSplit}) {
    ModelConfig c = test::base_config();
    c.head_dim = 8;
    c.rope_pairing = pairing;
    std::vector<float> q(8), k(8);
    for (float& v : q)
      v = normal(rng);
    for (float& v : k)
      v = normal(rng);
    const int n = 12;
    auto dots = rope_dot_products(c, q, k, n);
    ASSERT_TRUE(dots.ok()) << dots.error().message;
    ASSERT_EQ(dots->size(), static_cast<std::size_t>(n * n));
    for (int m = 0; m < n; ++m)
      for (int p = 0; p < n; ++p) {
        const int offset = m - p;
        // The same offset from position 0 (or to it): equal up to float rounding.
        const float reference = offset >= 0 ? (*dots)[offset * n] : (*dots)[-offset];
        EXPECT_NEAR((*dots)[m * n + p], reference, 1e-4) << m << " " << p;
      }
    // ...and it does change with the offset.
    EXPECT_GT(std::fabs((*dots)[0] - (*dots)[3 * n]), 1e-3);
  }
}

TEST(Positions, RopeDemoNeedsARopeModelAndHeadSizedVectors) {
  ModelConfig c = test::base_config();
  const std::vector<float> four(4, 1.0f), three(3, 1.0f);
  EXPECT_TRUE(rope_dot_products(c, four, four, 3).ok());
  EXPECT_FALSE(rope_dot_products(c, three, four, 3).ok());
  EXPECT_FALSE(rope_dot_products(c, four, four, 0).ok());
  c.position = PositionKind::Learned;
  auto learned = rope_dot_products(c, four, four, 3);
  ASSERT_FALSE(learned.ok());
  EXPECT_NE(learned.error().message.find("not RoPE"), std::string::npos);
}

}  // namespace
}  // namespace glassbox
