// The entry points of one computable element type's kernels (its row decoder and encoder among them), found by lookup in the element table
// (element_types.hpp: ElementType::block_kernels) rather than by a switch over types. Each block type's file
// (blocks/<type>.cpp) defines its BlockKernels, pointing at the kernels it defines there; a type leaves
// null what it does not have. The dispatchers (quantized_dot.cpp, quantized_int_dot.cpp,
// quantized_int_rows.cpp, quantized_int_matmul*.cpp) look a type up once per call and pass the pointer down,
// so no lookup sits inside a loop over rows or blocks, and the hot loops stay inlined inside each entry
// point.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized_activations.hpp"
#include "kernels/quantized_int_matmul.hpp"

namespace glassbox::kernels {

// n values (a whole number of blocks) from the encoded `row`, or into the encoded `out`.
using RowDecoder = void (*)(const std::byte* row, float* out, std::size_t n);
using RowEncoder = void (*)(const float* row, std::byte* out, std::size_t n);

// The fused decode-and-dot product (quantized_dot.hpp): out[r] for r in [row_begin, row_end).
using FusedMatvec = void (*)(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                             const float* x, std::size_t row_begin, std::size_t row_end);

// The integer dot product (quantized_int_dot.hpp): out[r] for r in [row_begin, row_end).
using IntMatvec = void (*)(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                           const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end);

// One row as the integer kernels see it (quantized_int_rows.hpp): w[cols], ws[cols / 32], and where the type
// has them wm[cols / 32] and group_scales[cols / 16].
using IntegerRowDecoder = void (*)(const std::byte* row, std::size_t cols, int8_t* w, int16_t* group_scales,
                                   float* ws, float* wm);

// A prompt product written for one type and one instruction set (quantized_int_matmul_avx2.hpp).
using TypedIntMatmul = void (*)(float* out, std::size_t out_stride, const std::byte* w, std::size_t row_bytes,
                                std::size_t cols, const ActivationColumns& x, std::size_t row_begin,
                                std::size_t row_end, IntMatmulScratch scratch);

struct BlockKernels {
  RowDecoder decode = nullptr;         // every computable type
  RowEncoder encode = nullptr;         // the types `convert` can write
  FusedMatvec fused_matvec = nullptr;  // every computable type but F32
  // The integer kernels; null (and the flags false) for types whose products decode to floats.
  IntMatvec int_matvec = nullptr;
  IntegerRowDecoder decode_integer_row = nullptr;
  bool int_offsets = false;       // sub-blocks carry an offset wm (value = ws * w - wm)
  bool int_group_scales = false;  // an integer scale per 16 values
  // The AVX2 prompt product (quantized_int_matmul_avx2.cpp), set for the integer types in AVX2 builds.
  TypedIntMatmul int_matmul_avx2 = nullptr;
};

}  // namespace glassbox::kernels
