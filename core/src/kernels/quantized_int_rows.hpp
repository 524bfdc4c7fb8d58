// A weight row as the integer dot products see it (quantized_int_dot.hpp): every value's integer w, whose
// products with the activation integers are summed exactly, and each 32-value sub-block's scale ws (and wm,
// for types whose values carry a per-sub-block offset: value = ws * w - wm). The plain-loop reference and the
// batched prefill kernel (quantized_int_matmul.hpp) both read rows through this one decoder.
#pragma once

#include <cstddef>

#include "glassbox/tensor.hpp"

namespace glassbox::kernels {

// Whether `type`'s sub-blocks carry an offset wm (then the term subtracts (wm * dx) * xsum).
bool int_dot_has_offsets(DType type);

// Decodes one row of `cols` values of a type with integer kernels: w[cols] (integers, as floats: every one is
// exact), ws[cols / 32], and wm[cols / 32] where int_dot_has_offsets(type) (left untouched otherwise).
void decode_integer_row(DType type, const std::byte* row, std::size_t cols, float* w, float* ws, float* wm);

}  // namespace glassbox::kernels
