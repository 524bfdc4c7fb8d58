// The scalar twin of matmul (matmul.hpp), written as the formula.
#include "kernels/matmul.hpp"

namespace glassbox::kernels::reference {

void matmul(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
            std::size_t n_tokens, std::size_t n) {
  for (std::size_t t = 0; t < n_tokens; ++t) {
    for (std::size_t r = 0; r < n_rows; ++r) {
      float sum = 0.0f;
      for (std::size_t i = 0; i < n; ++i)
        sum += w[r * n + i] * x[t * n + i];
      out[t * out_stride + r] = sum;
    }
  }
}

}  // namespace glassbox::kernels::reference
