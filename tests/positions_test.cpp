// Position codes (glassbox/positions.hpp): the sinusoidal formula, RoPE's angles, and the property RoPE is
// built for, that a query and key's dot product depends only on their offset.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "glassbox/positions.hpp"
#include "random_models.hpp"
#include "test_support.hpp"

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

TEST(Positions, RopeFrequencyFactorsDivideEachPairsAngle) {
  ModelConfig c = test::base_config();
  c.rope_freq_factors = {4.0f, 0.5f};
  EXPECT_EQ(rope_angle(c, 0, 8), 2.0);
  EXPECT_NEAR(rope_angle(c, 1, 5), 10.0 / std::sqrt(500.0), 1e-6);
}

// Llama 3.1 8B's settings: theta 500000, 128 rotated values, factor 8, low 1, high 4, original context 8192.
// Pairs turning faster than once per 2048 positions keep their frequency, pairs slower than once per 8192 are
// divided by 8, and the ones between blend smoothly (so the divisor grows monotonically from 1 to 8).
TEST(Positions, Llama3RopeFactorsKeepFastPairsAndSlowTheSlowOnes) {
  ModelConfig c = test::base_config();
  c.rope_theta = 500000.0f;
  c.head_dim = 128;
  const std::vector<float> f = llama3_rope_factors(c, Llama3RopeScaling{8, 1, 4, 8192});
  ASSERT_EQ(f.size(), 64u);
  const auto wavelength = [&](int i) { return 2 * M_PI * std::pow(500000.0, 2.0 * i / 128); };
  int kept = 0, slowed = 0, blended = 0;
  for (int i = 0; i < 64; ++i) {
    if (wavelength(i) < 2048) {
      EXPECT_EQ(f[i], 1.0f) << i;
      ++kept;
    } else if (wavelength(i) > 8192) {
      EXPECT_EQ(f[i], 8.0f) << i;
      ++slowed;
    } else {
      EXPECT_GT(f[i], 1.0f) << i;
      EXPECT_LT(f[i], 8.0f) << i;
      ++blended;
    }
    if (i > 0) EXPECT_GE(f[i], f[i - 1]) << i;
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(slowed, 0);
  EXPECT_GT(blended, 0);
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
  test::expect_error(rope_dot_products(c, three, four, 3), ErrorCode::BadArgument);
  test::expect_error(rope_dot_products(c, four, four, 0), ErrorCode::BadArgument);
  c.position = PositionKind::Learned;
  test::expect_error(rope_dot_products(c, four, four, 3), ErrorCode::BadArgument, "not RoPE");
}

}  // namespace
}  // namespace glassbox
