// The AVX2 form of int_matmul (quantized_int_matmul.hpp): byte products with vpmaddubsw, built where the
// compiler targets AVX2 and used where the AVX-512 VNNI kernel is not (quantized_int_matmul_vnni.hpp). It
// reads the same activation bytes as that kernel (x + 128, four consecutive values of a token together) and
// gives int_matvec's bits, like every form of int_matmul.
#pragma once

#include <cstddef>

#include "kernels/quantized_int_matmul.hpp"

#if defined(__AVX2__)
#define GLASSBOX_HAS_AVX2_MATMUL 1
#else
#define GLASSBOX_HAS_AVX2_MATMUL 0
#endif

namespace glassbox::kernels {

// Tokens the AVX2 kernel takes at once: its block of activation bytes (ActivationColumns::byte_block).
inline constexpr std::size_t kAvx2MatmulTokens = 16;

#if GLASSBOX_HAS_AVX2_MATMUL
// For one type with integer kernels: its file (blocks/<type>.cpp) points its BlockKernels::int_matmul_avx2
// here.
template <DType kType>
void int_matmul_avx2(float* out, std::size_t out_stride, const std::byte* w, std::size_t row_bytes,
                     std::size_t cols, const ActivationColumns& x, std::size_t row_begin, std::size_t row_end,
                     IntMatmulScratch scratch);
#endif

}  // namespace glassbox::kernels
