// The batched matrix product (kernels/matmul.hpp): each output must be dot()'s bits for its row and token,
// and the fixed-order scalar loop's bits, and near the textbook triple loop, at lengths around every
// remainder of the SIMD width and the 32-lane block, token counts around the kernel's tile, and unaligned
// pointers. Outputs outside the rows asked for stay untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/fixed_order_reference.hpp"
#include "kernels/kernels.hpp"
#include "kernels/matmul.hpp"

namespace glassbox::kernels {
namespace {

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(KernelsBitExactMatmul, EveryOutputIsDotsBits) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const std::size_t lengths[] = {1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, 257, 300};
  for (std::size_t n : lengths) {
    for (std::size_t rows : {1u, 2u, 3u, 5u, 6u, 7u, 13u}) {
      // Around every tile's token count, and across the 64-token blocks.
      for (std::size_t tokens : {1u, 2u, 3u, 4u, 5u, 7u, 12u, 13u, 25u, 63u, 64u, 65u, 130u}) {
        // One float past an aligned start, so neither operand is aligned to anything wider than 4 bytes.
        std::vector<float> w_storage(rows * n + 1), x_storage(tokens * n + 1);
        float* w = w_storage.data() + 1;
        float* x = x_storage.data() + 1;
        for (std::size_t i = 0; i < rows * n; ++i)
          w[i] = uniform(rng);
        for (std::size_t i = 0; i < tokens * n; ++i)
          x[i] = uniform(rng);
        // Output rows are wider than the matrix (stride rows + 2): the two extra columns must stay untouched.
        const std::size_t stride = rows + 2;
        const float untouched = 12345.0f;
        std::vector<float> out(tokens * stride, untouched), textbook(tokens * stride, untouched);
        matmul(out.data(), stride, w, rows, x, tokens, n);
        reference::matmul(textbook.data(), stride, w, rows, x, tokens, n);
        for (std::size_t t = 0; t < tokens; ++t) {
          for (std::size_t r = 0; r < stride; ++r) {
            const float got = out[t * stride + r];
            if (r >= rows) {
              ASSERT_EQ(got, untouched) << "wrote outside its rows";
              continue;
            }
            const float* row = w + r * n;
            const float* vec = x + t * n;
            ASSERT_TRUE(same_bits(got, dot(row, vec, n))) << "n " << n << " row " << r << " token " << t;
            ASSERT_TRUE(same_bits(got, fixed_order::dot(row, vec, n))) << "n " << n;
            ASSERT_NEAR(got, textbook[t * stride + r], 1e-5f * static_cast<float>(n));
          }
        }
      }
    }
  }
}

// Signed zeros, zeros against infinities and huge products: the partial sums of the batched product must
// still be dot()'s (a partial sum that became -0, or took a +0 product more or fewer, would show in the sign
// of a zero result; inf * 0 and inf - inf give NaN in both or neither).
TEST(KernelsBitExactMatmul, SignedZerosAndInfinitiesAreDotsToo) {
  std::mt19937 rng(7);
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 3e38f, -3e38f, INFINITY, -INFINITY, 1e-45f, -1e-45f};
  for (std::size_t n : {1u, 5u, 31u, 32u, 33u, 70u}) {
    const std::size_t rows = 7, tokens = 19;
    std::vector<float> w(rows * n), x(tokens * n), out(tokens * rows);
    for (int round = 0; round < 20; ++round) {
      // Mostly zeros of either sign, so that whole partial sums, and whole results, are zero.
      for (float& v : w)
        v = rng() % 4 == 0 ? specials[rng() % 10] : (rng() % 2 ? 0.0f : -0.0f);
      for (float& v : x)
        v = rng() % 4 == 0 ? specials[rng() % 10] : (rng() % 2 ? 0.0f : -0.0f);
      matmul(out.data(), rows, w.data(), rows, x.data(), tokens, n);
      for (std::size_t t = 0; t < tokens; ++t)
        for (std::size_t r = 0; r < rows; ++r) {
          const float got = out[t * rows + r], want = dot(w.data() + r * n, x.data() + t * n, n);
          if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got)) << "n " << n << " row " << r << " token " << t;
          } else {
            ASSERT_TRUE(same_bits(got, want))
                << "n " << n << " row " << r << " token " << t << ": " << got << " against dot's " << want;
          }
        }
    }
  }
}

// Rows computed in pieces (as threads split them) give the same bits as all at once.
TEST(KernelsBitExactMatmul, SplittingRowsChangesNothing) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const std::size_t rows = 37, tokens = 11, n = 77;
  std::vector<float> w(rows * n), x(tokens * n), whole(tokens * rows), pieces(tokens * rows);
  for (float& v : w)
    v = uniform(rng);
  for (float& v : x)
    v = uniform(rng);
  matmul(whole.data(), rows, w.data(), rows, x.data(), tokens, n);
  for (std::size_t begin = 0; begin < rows; begin += 5) {
    const std::size_t count = std::min<std::size_t>(5, rows - begin);
    matmul(pieces.data() + begin, rows, w.data() + begin * n, count, x.data(), tokens, n);
  }
  EXPECT_EQ(std::memcmp(whole.data(), pieces.data(), whole.size() * sizeof(float)), 0);
}

// Rows copied for matmul_rows lie an odd number of cache lines apart (matmul.hpp), barely further than n.
TEST(KernelsMatmul, CopiedRowsSpreadOverL1) {
  for (std::size_t n : {1u, 16u, 17u, 768u, 2048u, 2064u, 5632u}) {
    const std::size_t stride = kernels::matmul_row_stride(n);
    EXPECT_GE(stride, n);
    EXPECT_EQ(stride % 16, 0u) << n;      // whole 64-byte lines
    EXPECT_EQ(stride / 16 % 2, 1u) << n;  // an odd number of them
    EXPECT_LT(stride, n + 32) << n;       // less than two lines more
  }
  EXPECT_TRUE(kernels::matmul_copies_rows(2048));
  EXPECT_FALSE(kernels::matmul_copies_rows(2064));  // in place, an odd number of lines apart already
  EXPECT_FALSE(kernels::matmul_copies_rows(768));   // short enough for half of L1
}

}  // namespace
}  // namespace glassbox::kernels
