// Each optimized kernel against its scalar reference, on random inputs of awkward lengths (1, 3, 17, 255,
// 4099: below, around and far past the SIMD width and the 32-lane reduction block) and at unaligned
// addresses: every buffer starts 1, 2 or 3 floats past a 64-byte boundary, and the operands of one call
// have different misalignments, so no kernel can rely on its inputs being aligned alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/kernels.hpp"

namespace glassbox::kernels {
namespace {

constexpr std::size_t kLengths[] = {1, 3, 17, 255, 4099};

// A float buffer whose data() is deliberately not 16-, 32- or 64-byte aligned. Successive buffers start
// 1, 2, 3, 1, ... floats past a 64-byte boundary.
class Unaligned {
 public:
  explicit Unaligned(std::size_t n) : storage_(n + 32) {
    static std::size_t next_misalignment = 0;
    auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    offset_ = ((64 - address % 64) % 64) / sizeof(float) + 1 + next_misalignment++ % 3;
  }
  float* data() { return storage_.data() + offset_; }
  float& operator[](std::size_t i) { return data()[i]; }

 private:
  std::vector<float> storage_;
  std::size_t offset_;
};

Unaligned random_vector(std::size_t n, std::mt19937& rng, float lo = -2.0f, float hi = 2.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  Unaligned v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = dist(rng);
  return v;
}

// Tolerances: sums of n products of values in [-2, 2] differ only by rounding order, which grows with n.
float reduction_tolerance(std::size_t n) {
  return 1e-5f * static_cast<float>(n);
}

void expect_near_all(const float* actual, const float* expected, std::size_t n, float tolerance) {
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(actual[i], expected[i], tolerance) << "at index " << i << " of " << n;
}

// Probabilities span many orders of magnitude (most of 4099 scores in [-30, 30] end up below 1e-6), so an
// absolute tolerance would wave through a wrong tail: compare relatively, down to the float's normal range.
void expect_probabilities_near(const float* actual, const float* expected, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(actual[i], expected[i], 1e-5f * expected[i] + 1e-37f) << "at index " << i << " of " << n;
}

TEST(Kernels, DotMatchesReference) {
  std::mt19937 rng(1);
  for (std::size_t n : kLengths) {
    auto x = random_vector(n, rng), y = random_vector(n, rng);
    EXPECT_NEAR(dot(x.data(), y.data(), n), reference::dot(x.data(), y.data(), n), reduction_tolerance(n))
        << n;
  }
}

TEST(Kernels, SumMatchesReference) {
  std::mt19937 rng(2);
  for (std::size_t n : kLengths) {
    auto x = random_vector(n, rng);
    EXPECT_NEAR(sum(x.data(), n), reference::sum(x.data(), n), reduction_tolerance(n)) << n;
  }
}

TEST(Kernels, MatvecMatchesReferenceOnEveryRowRange) {
  std::mt19937 rng(3);
  for (std::size_t cols : kLengths) {
    const std::size_t rows = 37;  // not a multiple of the kernel's row block
    auto w = random_vector(rows * cols, rng), x = random_vector(cols, rng);
    Unaligned expected(rows), actual(rows);
    reference::matvec(expected.data(), w.data(), x.data(), rows, cols);
    matvec(actual.data(), w.data(), x.data(), cols, 0, 10);  // two ranges, as two threads would split it
    matvec(actual.data(), w.data(), x.data(), cols, 10, rows);
    expect_near_all(actual.data(), expected.data(), rows, reduction_tolerance(cols));
  }
}

TEST(Kernels, MatvecRowsEqualDotExactly) {
  // Whatever the row blocking, each output must be bit-identical to a single dot(): determinism across
  // instruction sets relies on it.
  std::mt19937 rng(4);
  const std::size_t rows = 19, cols = 77;
  auto w = random_vector(rows * cols, rng), x = random_vector(cols, rng);
  std::vector<float> out(rows);
  matvec(out.data(), w.data(), x.data(), cols, 0, rows);
  for (std::size_t r = 0; r < rows; ++r)
    EXPECT_EQ(out[r], dot(w.data() + r * cols, x.data(), cols)) << r;
}

TEST(Kernels, DotStridedMatchesReferenceAndEqualsDotExactly) {
  std::mt19937 rng(16);
  for (std::size_t n : kLengths) {
    const std::size_t stride = n + 5, rows = 13;  // rows interleaved with other data, as in the KV cache
    auto m = random_vector(rows * stride, rng), x = random_vector(n, rng);
    Unaligned actual(rows), expected(rows);
    dot_strided(actual.data(), m.data(), stride, rows, x.data(), n);
    reference::dot_strided(expected.data(), m.data(), stride, rows, x.data(), n);
    expect_near_all(actual.data(), expected.data(), rows, reduction_tolerance(n));
    for (std::size_t r = 0; r < rows; ++r)
      EXPECT_EQ(actual[r], dot(m.data() + r * stride, x.data(), n));
  }
}

TEST(Kernels, WeightedRowSumMatchesReference) {
  std::mt19937 rng(17);
  for (std::size_t n : kLengths) {
    const std::size_t stride = n + 3, rows = 9;
    auto m = random_vector(rows * stride, rng), weights = random_vector(rows, rng, 0.0f, 1.0f);
    Unaligned actual(n), expected(n);
    weighted_row_sum(actual.data(), weights.data(), m.data(), stride, rows, n);
    reference::weighted_row_sum(expected.data(), weights.data(), m.data(), stride, rows, n);
    expect_near_all(actual.data(), expected.data(), n, 1e-5f);
  }
}

TEST(Kernels, RmsnormMatchesReference) {
  std::mt19937 rng(5);
  for (std::size_t n : kLengths) {
    auto x = random_vector(n, rng), w = random_vector(n, rng);
    Unaligned expected(n), actual(n);
    reference::rmsnorm(expected.data(), x.data(), w.data(), n, 1e-5f);
    rmsnorm(actual.data(), x.data(), w.data(), n, 1e-5f);
    expect_near_all(actual.data(), expected.data(), n, 1e-5f);
  }
}

TEST(Kernels, LayernormMatchesReferenceWithAndWithoutBias) {
  std::mt19937 rng(6);
  for (std::size_t n : kLengths) {
    auto x = random_vector(n, rng, 1.0f, 5.0f), w = random_vector(n, rng), b = random_vector(n, rng);
    for (const float* bias : {static_cast<const float*>(b.data()), static_cast<const float*>(nullptr)}) {
      Unaligned expected(n), actual(n);
      reference::layernorm(expected.data(), x.data(), w.data(), bias, n, 1e-5f);
      layernorm(actual.data(), x.data(), w.data(), bias, n, 1e-5f);
      // n == 1 normalizes to exactly 0 (variance 0); larger n stay within rounding.
      expect_near_all(actual.data(), expected.data(), n, 2e-4f);
    }
  }
}

TEST(Kernels, NormsWorkInPlace) {
  std::mt19937 rng(7);
  const std::size_t n = 255;
  auto x = random_vector(n, rng), w = random_vector(n, rng);
  Unaligned expected(n);
  rmsnorm(expected.data(), x.data(), w.data(), n, 1e-5f);
  rmsnorm(x.data(), x.data(), w.data(), n, 1e-5f);
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(x[i], expected[i]);
}

TEST(Kernels, SoftmaxMatchesReferenceAndSumsToOne) {
  std::mt19937 rng(8);
  for (std::size_t n : kLengths) {
    auto expected = random_vector(n, rng, -30.0f, 30.0f);
    Unaligned actual(n);
    std::copy(expected.data(), expected.data() + n, actual.data());
    reference::softmax(expected.data(), n, n);
    softmax(actual.data(), n);
    expect_probabilities_near(actual.data(), expected.data(), n);
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      total += actual[i];
    EXPECT_NEAR(total, 1.0, 1e-5) << n;
  }
}

TEST(Kernels, SoftmaxCausalLimitMasksTheRest) {
  std::mt19937 rng(9);
  for (std::size_t n : kLengths) {
    for (std::size_t limit : {std::size_t{0}, std::size_t{1}, n / 2 + 1, n - 1, n}) {
      auto x = random_vector(n, rng, -30.0f, 30.0f);
      Unaligned expected(n);
      std::copy(x.data(), x.data() + n, expected.data());
      reference::softmax(expected.data(), n, limit);
      softmax(x.data(), n, limit);
      expect_probabilities_near(x.data(), expected.data(), n);
      double total = 0.0;
      for (std::size_t i = 0; i < limit; ++i)
        total += x[i];
      if (limit > 0) EXPECT_NEAR(total, 1.0, 1e-5) << "n " << n << " limit " << limit;
      for (std::size_t i = limit; i < n; ++i)
        ASSERT_EQ(x[i], 0.0f) << "masked entry " << i << " of " << n << ", limit " << limit;
    }
  }
}

TEST(Kernels, SoftmaxIsStableForHugeScores) {
  float x[4] = {1e30f, 1e30f, -1e30f, 0.0f};
  softmax(x, 4);
  EXPECT_FLOAT_EQ(x[0], 0.5f);
  EXPECT_FLOAT_EQ(x[1], 0.5f);
  EXPECT_EQ(x[2], 0.0f);
  EXPECT_EQ(x[3], 0.0f);
}

template <class Optimized, class Reference>
void expect_activation_matches(Optimized optimized, Reference reference, float tolerance, unsigned seed) {
  std::mt19937 rng(seed);
  for (std::size_t n : kLengths) {
    auto actual = random_vector(n, rng, -12.0f, 12.0f);
    Unaligned expected(n);
    std::copy(actual.data(), actual.data() + n, expected.data());
    optimized(actual.data(), n);
    reference(expected.data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(actual[i], expected[i], tolerance * std::max(1.0f, std::fabs(expected[i])))
          << "index " << i;
    }
  }
}

TEST(Kernels, SiluMatchesReference) {
  expect_activation_matches(silu, reference::silu, 1e-6f, 10);
}
TEST(Kernels, GeluTanhMatchesReference) {
  expect_activation_matches(gelu_tanh, reference::gelu_tanh, 1e-6f, 11);
}
// Abramowitz and Stegun's erf is within 1.5e-7 of std::erf.
TEST(Kernels, GeluErfMatchesReference) {
  expect_activation_matches(gelu_erf, reference::gelu_erf, 1e-6f, 14);
}
TEST(Kernels, ReluMatchesReference) {
  expect_activation_matches(relu, reference::relu, 0.0f, 12);
}

TEST(Kernels, SwigluMatchesReference) {
  std::mt19937 rng(13);
  for (std::size_t n : kLengths) {
    auto gate = random_vector(n, rng, -12.0f, 12.0f), up = random_vector(n, rng);
    Unaligned expected(n);
    std::copy(gate.data(), gate.data() + n, expected.data());
    swiglu(gate.data(), up.data(), n);
    reference::swiglu(expected.data(), up.data(), n);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_NEAR(gate[i], expected[i], 2e-6f * std::max(1.0f, std::fabs(expected[i])));
  }
}

TEST(Kernels, RopeMatchesReferenceForBothPairings) {
  std::mt19937 rng(14);
  for (RopePairing pairing : {RopePairing::Adjacent, RopePairing::HalfSplit}) {
    for (std::size_t n : kLengths) {
      const std::size_t rotary = n - n % 2;  // rotary dims are even; an odd n leaves the last value alone
      auto angles = random_vector(rotary / 2 + 1, rng, -100.0f, 100.0f);
      Unaligned cos_table(rotary / 2 + 1), sin_table(rotary / 2 + 1);
      for (std::size_t i = 0; i < rotary / 2; ++i) {
        cos_table[i] = std::cos(angles[i]);
        sin_table[i] = std::sin(angles[i]);
      }
      auto actual = random_vector(n, rng);
      Unaligned expected(n);
      std::copy(actual.data(), actual.data() + n, expected.data());
      rope(actual.data(), cos_table.data(), sin_table.data(), rotary, pairing);
      reference::rope(expected.data(), cos_table.data(), sin_table.data(), rotary, pairing);
      expect_near_all(actual.data(), expected.data(), n, 1e-6f);
    }
  }
}

TEST(Kernels, RopeAdjacentRotatesAPairByTheAngle) {
  // (1, 0) rotated by 90 degrees is (0, 1); by 180, (-1, 0).
  float x[4] = {1.0f, 0.0f, 1.0f, 0.0f};
  const float cos_table[2] = {0.0f, -1.0f}, sin_table[2] = {1.0f, 0.0f};
  rope(x, cos_table, sin_table, 4, RopePairing::Adjacent);
  EXPECT_FLOAT_EQ(x[0], 0.0f);
  EXPECT_FLOAT_EQ(x[1], 1.0f);
  EXPECT_FLOAT_EQ(x[2], -1.0f);
  EXPECT_FLOAT_EQ(x[3], 0.0f);
}

TEST(Kernels, ElementwiseMatchPlainLoops) {
  std::mt19937 rng(15);
  for (std::size_t n : kLengths) {
    auto x = random_vector(n, rng), y = random_vector(n, rng);
    std::vector<float> added(x.data(), x.data() + n), scaled(x.data(), x.data() + n),
        axpyd(x.data(), x.data() + n);
    add_in_place(added.data(), y.data(), n);
    scale_in_place(scaled.data(), 0.5f, n);
    axpy(axpyd.data(), 3.0f, y.data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(added[i], x[i] + y[i]);
      ASSERT_EQ(scaled[i], x[i] * 0.5f);
      ASSERT_EQ(axpyd[i], x[i] + 3.0f * y[i]);
    }
  }
}

}  // namespace
}  // namespace glassbox::kernels
