// kernels::accumulate_products (kernels/accumulate_products.hpp) against its scalar reference: the same
// bits, since both sum each output's terms in order of k and then add the sum to c. Random inputs, shapes
// around the kernel's tiles (4 rows by 2 registers) and SIMD widths, unaligned pointers, both ways of reading
// a (along its rows, and down its columns as training's dW += dy^T x does), and c holding values before.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/accumulate_products.hpp"

namespace glassbox::kernels {
namespace {

std::vector<float> random_floats(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v)
    x = uniform(rng);
  return v;
}

struct Shape {
  std::size_t rows, cols, depth;
};

TEST(AccumulateProducts, GivesTheScalarReferencesBits) {
  std::mt19937 rng(7);
  const Shape shapes[] = {{1, 1, 1},   {4, 32, 3}, {5, 33, 17},   {3, 7, 64},
                          {9, 100, 2}, {8, 48, 0}, {13, 129, 40}, {4, 16, 255}};
  for (const Shape& s : shapes)
    for (const bool down_columns : {false, true}) {
      // a is rows x depth, read along its rows; or depth x rows, read down its columns (a[k][m]).
      const std::size_t a_row = down_columns ? 1 : s.depth, a_step = down_columns ? s.rows : 1;
      const std::size_t ldb = s.cols + 3, ldc = s.cols + 1;  // rows of b and c with gaps between them
      const std::vector<float> a = random_floats(rng, s.rows * s.depth + 1),
                               b = random_floats(rng, s.depth * ldb + 1);
      std::vector<float> c = random_floats(rng, s.rows * ldc + 1), expected = c;
      accumulate_products(c.data() + 1, ldc, a.data() + 1, a_row, a_step, b.data() + 1, ldb, s.rows, s.cols,
                          s.depth);
      reference::accumulate_products(expected.data() + 1, ldc, a.data() + 1, a_row, a_step, b.data() + 1, ldb,
                                     s.rows, s.cols, s.depth);
      EXPECT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(float)), 0)
          << s.rows << " x " << s.cols << " x " << s.depth << (down_columns ? ", a down its columns" : "");
    }
}

}  // namespace
}  // namespace glassbox::kernels
