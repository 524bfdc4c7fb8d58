// Dispatch from a DType to its fused kernel (quantized_dot_rows.hpp), with the number of rows per pass
// that measured fastest for it (see kRowsPerPass below).
#include "kernels/quantized_dot.hpp"

#include "kernels/element_types.hpp"
#include "kernels/quantized_dot_iquants.hpp"
#include "kernels/quantized_dot_kquants.hpp"
#include "kernels/quantized_dot_nibble_blocks.hpp"
#include "kernels/quantized_dot_rows.hpp"

namespace glassbox::kernels {
namespace {

using fused::Blocks;
using fused::Elements;

// Each kernel's block layout must be the element table's.
template <class Format>
constexpr bool matches_table(DType type) {
  return element_type(type).block_values == Format::kValues &&
         element_type(type).block_bytes == Format::kBytes;
}
static_assert(matches_table<fused::Q8_0>(DType::Q8_0) && matches_table<fused::Q4_0>(DType::Q4_0) &&
              matches_table<fused::Q4_K>(DType::Q4_K) && matches_table<fused::Q6_K>(DType::Q6_K));
static_assert(matches_table<fused::Q4_1>(DType::Q4_1) && matches_table<fused::Q5_0>(DType::Q5_0) &&
              matches_table<fused::Q5_1>(DType::Q5_1));
static_assert(matches_table<fused::Q2_K>(DType::Q2_K) && matches_table<fused::Q3_K>(DType::Q3_K) &&
              matches_table<fused::Q5_K>(DType::Q5_K));
static_assert(matches_table<fused::IQ4_NL>(DType::IQ4_NL) && matches_table<fused::IQ4_XS>(DType::IQ4_XS));
static_assert(element_type(DType::F16).block_bytes == 2 && element_type(DType::BF16).block_bytes == 2);

// Rows per pass, sharing each load of x. More rows save x loads but need R * kAccumulatorsPerRow
// accumulator registers besides the decoded weights. Measured on AVX2 (16 registers) over the matrix shapes
// of a stories15M-sized model: two rows are fastest for Q8_0, Q4_0 and Q4_K; Q6_K (three widened sources
// per lane) is no faster with two; F16 and BF16 were up to 2x slower with two rows on a 32000-row matrix.
// Q4_1, Q5_0 and Q5_1 take two rows and Q2_K, Q3_K and Q5_K one: on a 768 x 2048 matrix two rows were as
// fast or up to 6% faster for the 32-value blocks on AVX2 and AVX-512, and 7-18% slower for those K-quants.
// IQ4_NL takes two rows and IQ4_XS one: on a 2048 x 2048 matrix on AVX-512, two rows were 4% faster for
// IQ4_NL and 3% slower for IQ4_XS.
template <class Kernel, std::size_t R>
void matvec_with(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                 std::size_t begin, std::size_t end) {
  fused::matvec_rows<Kernel, R>(out, w, row_bytes, cols, x, begin, end);
}

}  // namespace

bool has_fused_dot(DType type) {
  switch (type) {
    case DType::F16:
    case DType::BF16:
    case DType::Q8_0:
    case DType::Q4_0:
    case DType::Q4_K:
    case DType::Q6_K:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q2_K:
    case DType::Q3_K:
    case DType::Q5_K:
    case DType::IQ4_NL:
    case DType::IQ4_XS:
      return true;
    default:
      return false;
  }
}

void fused_matvec(float* out, DType type, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                  const float* x, std::size_t row_begin, std::size_t row_end) {
  switch (type) {
    case DType::F16:
      return matvec_with<Elements<fused::F16>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::BF16:
      return matvec_with<Elements<fused::BF16>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q8_0:
      return matvec_with<Blocks<fused::Q8_0>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q4_0:
      return matvec_with<Blocks<fused::Q4_0>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q4_K:
      return matvec_with<Blocks<fused::Q4_K>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q6_K:
      return matvec_with<Blocks<fused::Q6_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q4_1:
      return matvec_with<Blocks<fused::Q4_1>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q5_0:
      return matvec_with<Blocks<fused::Q5_0>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q5_1:
      return matvec_with<Blocks<fused::Q5_1>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q2_K:
      return matvec_with<Blocks<fused::Q2_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q3_K:
      return matvec_with<Blocks<fused::Q3_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q5_K:
      return matvec_with<Blocks<fused::Q5_K>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::IQ4_NL:
      return matvec_with<Blocks<fused::IQ4_NL>, 2>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::IQ4_XS:
      return matvec_with<Blocks<fused::IQ4_XS>, 1>(out, w, row_bytes, cols, x, row_begin, row_end);
    default:
      return;  // has_fused_dot(type) is false: the caller decodes
  }
}

float fused_dot(DType type, const std::byte* row, const float* x, std::size_t n) {
  float out = 0.0f;
  fused_matvec(&out, type, row, 0, n, x, 0, 1);
  return out;
}

}  // namespace glassbox::kernels
