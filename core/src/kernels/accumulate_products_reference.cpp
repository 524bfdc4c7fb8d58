// The scalar twin of accumulate_products (accumulate_products.hpp), written as the formula.
#include "kernels/accumulate_products.hpp"

namespace glassbox::kernels::reference {

void accumulate_products(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
                         const float* b, std::size_t ldb, std::size_t rows, std::size_t cols,
                         std::size_t depth) {
  for (std::size_t m = 0; m < rows; ++m)
    for (std::size_t j = 0; j < cols; ++j) {
      float sum = 0.0f;
      for (std::size_t k = 0; k < depth; ++k)
        sum = sum + a[m * a_row + k * a_step] * b[k * ldb + j];
      c[m * ldc + j] = c[m * ldc + j] + sum;
    }
}

}  // namespace glassbox::kernels::reference
