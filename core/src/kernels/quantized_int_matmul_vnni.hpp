// The AVX-512 VNNI form of int_matmul (quantized_int_matmul.hpp), built where the compiler
// targets AVX-512 VNNI (the other instruction sets take the float kernel, which gives the same bits).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/block_kernels.hpp"
#include "kernels/quantized_int_matmul.hpp"

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define GLASSBOX_HAS_VNNI_MATMUL 1
#else
#define GLASSBOX_HAS_VNNI_MATMUL 0
#endif

namespace glassbox::kernels {

#if GLASSBOX_HAS_VNNI_MATMUL
// Tokens the VNNI kernel takes at once: its block of activation bytes (ActivationColumns::byte_block), two
// registers of 16. Each block's bytes are one run (values 0..3 of its tokens, then 4..7, ...), so a row's
// pass reads them in order; with all the tokens as one block, the kernel read 128 bytes every lanes * 4 bytes
// (gqa40M Q4_0 256-token prompt at 1 thread, Zen 5: see quantized_int_matmul_vnni.cpp).
inline constexpr std::size_t kVnniMatmulTokens = 32;

// For every type with integer kernels (has_int_dot), given its entry points.
void int_matmul_vnni(float* out, std::size_t out_stride, const BlockKernels& type, const std::byte* w,
                     std::size_t row_bytes, std::size_t cols, const ActivationColumns& x,
                     std::size_t row_begin, std::size_t row_end, IntMatmulScratch scratch);
#endif

}  // namespace glassbox::kernels
