// A weight row as the integer dot products see it (quantized_int_dot.hpp): every value's integer w (a byte),
// for Q6_K an integer scale per 16 values, and each 32-value sub-block's float scale ws (and wm, for types
// whose values carry a per-sub-block offset: value = ws * w - wm). Sub-block b's integer sum is then
//   isum_b = sum over its 32 values of w * x                       (types without group scales)
//   isum_b = m_2b * (sum over the first 16) + m_2b+1 * (the second 16)     (Q6_K: m the int8 scales)
// The plain-loop reference and both prompt kernels (quantized_int_matmul.cpp, quantized_int_matmul_vnni.cpp)
// read rows through this one decoder.
// Each decoder unpacks a block with the integer dot products' vector operations (quantized_int_lanes.hpp): a
// plain byte loop here is compiled byte by byte (w is bytes, which may alias the row) and took 38% of a Q4_0
// prompt's time on AVX-512.
#pragma once

#include <cstddef>
#include <cstdint>

#include "glassbox/tensor.hpp"
#include "kernels/block_kernels.hpp"

namespace glassbox::kernels {

// Whether `type`'s sub-blocks carry an offset wm (then the term subtracts (wm * dx) * xsum).
bool int_dot_has_offsets(DType type);
// Whether `type` has an integer scale per 16 values (group_scales below).
bool int_dot_has_group_scales(DType type);

// `type`'s decoder, null where the type has no integer kernels: the prompt kernels look it up once per call.
IntegerRowDecoder integer_row_decoder(DType type);

// Decodes one row of `cols` values of a type with integer kernels: w[cols], ws[cols / 32], and where the type
// has them wm[cols / 32] and group_scales[cols / 16] (left untouched otherwise).
void decode_integer_row(DType type, const std::byte* row, std::size_t cols, int8_t* w, int16_t* group_scales,
                        float* ws, float* wm);

}  // namespace glassbox::kernels
