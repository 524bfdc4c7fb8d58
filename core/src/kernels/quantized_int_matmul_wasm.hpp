// The WebAssembly SIMD128 form of int_matmul (quantized_int_matmul.hpp): 16-bit products with
// i32x4.dot_i16x8_s, built for WebAssembly (natively the AVX2 and AVX-512 VNNI forms serve; the float kernel
// is what every build can fall back on). It gives int_matvec's bits, like every form of int_matmul.
#pragma once

#include <cstddef>

#include "kernels/block_kernels.hpp"
#include "kernels/quantized_int_matmul.hpp"

#if defined(__wasm_simd128__)
#define GLASSBOX_HAS_WASM_MATMUL 1
#else
#define GLASSBOX_HAS_WASM_MATMUL 0
#endif

namespace glassbox::kernels {

// Tokens the WebAssembly kernel takes at once: its block of activation bytes (ActivationColumns::byte_block),
// two groups of four, whose bytes it reads in pairs (ActivationColumns: kPairedBytes).
inline constexpr std::size_t kWasmMatmulTokens = 8;

#if GLASSBOX_HAS_WASM_MATMUL
void int_matmul_wasm(float* out, std::size_t out_stride, const BlockKernels& type, const std::byte* w,
                     std::size_t row_bytes, std::size_t cols, const ActivationColumns& x,
                     std::size_t row_begin, std::size_t row_end, IntMatmulScratch scratch);
#endif

}  // namespace glassbox::kernels
