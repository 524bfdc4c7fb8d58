// Reading (and, for `glassbox convert`, writing) the block-quantized and 16-bit element types of GGUF and
// safetensors files. Block sizes come from the element table (element_types.hpp). Decoding follows ggml's
// reference dequantizers exactly (the same float expression for every value):
//   F16 / BF16  one IEEE half / bfloat16 per value
//   Q8_0  blocks of 32: f16 d, 32 int8 q;                                x = d * q
//   Q4_0  blocks of 32: f16 d, 16 bytes of nibbles;                      x = d * (q - 8)
//   Q4_1  blocks of 32: f16 d, f16 m, 16 bytes of nibbles;               x = d * q + m
//   Q5_0  blocks of 32: f16 d, 32 fifth bits, 16 bytes of nibbles;       x = d * (q - 16)
//   Q5_1  blocks of 32: f16 d, f16 m, 32 fifth bits, 16 bytes of nibbles; x = d * q + m
//         (in all of these, byte j of the nibbles holds value j low and value j + 16 high; the fifth bits are
//         a little-endian uint32 whose bit j belongs to value j)
//   Q2_K  super-blocks of 256: 16 bytes of (scale, min) nibbles, one per 16 values, 64 bytes of 2-bit q,
//         f16 d, f16 dmin;                                               x = (d * scale) * q - dmin * min
//   Q3_K  super-blocks of 256: 32 bytes of third bits, 64 bytes of 2-bit q, 12 bytes of 6-bit scales (one
//         per 16 values), f16 d;                                         x = (d * (scale - 32)) * (q - 4)
//   Q4_K  super-blocks of 256: f16 d, f16 dmin, 12 bytes of 6-bit (scale, min) pairs for eight sub-blocks
//         of 32, 128 bytes of nibbles;                                   x = (d * scale) * q - dmin * min
//   Q5_K  Q4_K with 32 bytes of fifth bits before the nibbles;           x = (d * scale) * q - dmin * min
//   Q6_K  super-blocks of 256: 128 bytes of low nibbles, 64 bytes of 2-bit highs, 16 int8 scales, f16 d;
//                                                                        x = (d * scale) * (q - 32)
//   IQ4_NL blocks of 32: f16 d, 16 bytes of nibbles (ordered as Q4_0's), each an index i into the 16
//         non-linear values kIq4NlValues;                                x = d * kIq4NlValues[i]
//   IQ4_XS super-blocks of 256: f16 d, 16 bits of high scale bits, 4 bytes of low scale nibbles (a 6-bit
//         scale per sub-block of 32, stored plus 32), 128 bytes of indices, each 16 ordered as IQ4_NL's;
//                                                                        x = (d * (scale - 32)) * kIq4NlValues[i]
// The bit positions of the K-quants are spelled out beside each decoder (blocks/<type>.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "glassbox/tensor.hpp"

namespace glassbox::kernels {

float half_to_float(uint16_t half);
uint16_t float_to_half(float value);  // round to nearest even, as ggml's GGML_FP32_TO_FP16
float bfloat16_to_float(uint16_t value);

// The little-endian uint16 / uint32 stored (unaligned) at p.
inline uint16_t u16_at(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t u32_at(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The f16 stored at p, as a float: with F16C one instruction (exact, as half_to_float; a prompt's row decoders
// spent 6% of a 32-token Q4_0 prompt calling half_to_float).
inline float half_at(const std::byte* p) {
#if defined(__F16C__)
  return _cvtsh_ss(u16_at(p));
#else
  return half_to_float(u16_at(p));
#endif
}

// Decodes n values (a whole number of blocks) starting at `row`, with the type's decoder from the element
// table (element_types.hpp). Each block type's decoder is in its file, kernels/blocks/<type>.cpp.
void dequantize_row(DType type, const std::byte* row, float* out, std::size_t n);

// Encodes n values (a whole number of blocks) into `out`, with the type's encoder from the element table;
// for the types `convert` writes (F32, F16, Q8_0, Q4_0).
void encode_row(DType type, const float* x, std::byte* out, std::size_t n);

// ggml's reference quantizers (quantize_row_q8_0_ref / q4_0_ref), the encoders of Q8_0 and Q4_0
// (blocks/q8_0.cpp, blocks/q4_0.cpp), for n values, a multiple of the block.
void quantize_row_q8_0(const float* x, std::byte* out, std::size_t n);
void quantize_row_q4_0(const float* x, std::byte* out, std::size_t n);

// Helpers shared by the decoders of several block types (blocks/<type>.cpp).

// The 32 values of a Q4_1 / Q5_0 / Q5_1 block as integers: the nibbles (value j low in byte j, value j + 16
// high), plus 16 where the value's bit of `fifth` is set (bit j for value j; zero for Q4_1).
inline void block_of_32_integers(const std::byte* nibbles, uint32_t fifth, int* q) {
  const auto* qs = reinterpret_cast<const uint8_t*>(nibbles);
  for (int j = 0; j < 16; ++j) {
    q[j] = (qs[j] & 0x0F) | static_cast<int>(((fifth >> j) & 1) << 4);
    q[j + 16] = (qs[j] >> 4) | static_cast<int>(((fifth >> (j + 16)) & 1) << 4);
  }
}

// Scale and min of Q4_K (and Q5_K) sub-block j (0..7): six bits each, packed into 12 bytes for the eight
// sub-blocks. Shared by the decoders, the fused dots and the integer kernels of Q4_K and Q5_K.
inline void q4_k_scale_min(int j, const uint8_t* packed, uint8_t* scale, uint8_t* min) {
  if (j < 4) {
    *scale = packed[j] & 63;
    *min = packed[j + 4] & 63;
  } else {
    *scale = (packed[j + 4] & 0x0F) | ((packed[j - 4] >> 6) << 4);
    *min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
  }
}

// Q3_K's sixteen 6-bit scales (one per 16 values), packed into 12 bytes: scale i has its low four bits in
// the low (i < 8) or high (i >= 8) nibble of byte i % 8, and its top two bits in bits 2 * (i / 4) of byte
// 8 + i % 4. Stored with an offset of 32: the result is the signed scale, -32..31.
inline int q3_k_scale(int i, const uint8_t* packed) {
  const int low = i < 8 ? packed[i] & 0x0F : packed[i - 8] >> 4;
  const int high = (packed[8 + i % 4] >> (2 * (i / 4))) & 3;
  return (low | (high << 4)) - 32;
}

// The 16 values an IQ4_NL / IQ4_XS nibble indexes: ggml's kvalues_iq4nl, spaced more finely near zero,
// where most weights lie.
inline constexpr int8_t kIq4NlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

// 32 values from 16 bytes of IQ4_NL indices (value j low in byte j, value j + 16 high), each scale * the
// table value it indexes (IQ4_NL's blocks, IQ4_XS's sub-blocks).
inline void iq4_block_of_32(const std::byte* indices, float scale, float* out) {
  const auto* qs = reinterpret_cast<const uint8_t*>(indices);
  for (int j = 0; j < 16; ++j) {
    out[j] = scale * static_cast<float>(kIq4NlValues[qs[j] & 0x0F]);
    out[j + 16] = scale * static_cast<float>(kIq4NlValues[qs[j] >> 4]);
  }
}

// The signed scale (-32..31) of IQ4_XS sub-block j (0..7): its low four bits are nibble j % 2 of byte j / 2
// of `low` (the 4 bytes after scales_h), its top two bits are bits 2j, 2j + 1 of the little-endian uint16
// `high`; stored plus 32.
inline int iq4_xs_scale(int j, uint16_t high, const uint8_t* low) {
  const int bits = ((low[j / 2] >> (4 * (j % 2))) & 0x0F) | (((high >> (2 * j)) & 3) << 4);
  return bits - 32;
}

}  // namespace glassbox::kernels
