// Random quantized weight rows for the kernel tests (quantized_dot_test.cpp, quantized_int_dot_test.cpp):
// random bytes with block scales that are mostly ordinary and sometimes zero, subnormal, the largest half or
// negative, from std::mt19937's raw output, which the standard fixes bit for bit (its distributions are not),
// so the WebAssembly suite sees the same numbers for the checksums.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/element_types.hpp"
#include "kernels/quantized.hpp"

namespace glassbox::kernels {

inline uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// FNV-1a: folds the bytes of v into hash (the checksums that tie the native and WebAssembly builds together).
inline uint64_t fold_bits(uint64_t hash, float v) {
  for (int byte = 0; byte < 4; ++byte)
    hash = (hash ^ ((bits(v) >> (8 * byte)) & 0xff)) * 1099511628211ull;
  return hash;
}

// Inputs from std::mt19937's raw output, which the standard fixes bit for bit (its distributions are not),
// so the WebAssembly suite sees the same numbers for the checksum.
class Inputs {
 public:
  explicit Inputs(uint32_t seed) : rng_(seed) {}
  uint32_t next() { return static_cast<uint32_t>(rng_()); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * (static_cast<float>(next() >> 8) * 0x1p-24f); }
  // Block scales: mostly ordinary, sometimes zero, subnormal, the largest half, or negative.
  uint16_t scale() {
    switch (next() % 8) {
      case 0:
        return 0x0000;  // zero
      case 1:
        return static_cast<uint16_t>(1 + next() % 0x3FF);  // subnormal
      case 2:
        return 0x7BFF;  // 65504, the largest finite half
      case 3:
        return 0x8400 | static_cast<uint16_t>(next() % 0x400);  // negative, smallest normal exponent
      default:
        return float_to_half(uniform(-0.05f, 0.05f));
    }
  }

 private:
  std::mt19937 rng_;
};

// Offsets of the f16 scales within a block of each type (the rest of a block is random bytes).
inline std::vector<std::size_t> scale_offsets(DType type) {
  switch (type) {
    case DType::Q8_0:
    case DType::Q4_0:
      return {0};
    case DType::Q4_K:
      return {0, 2};  // d, dmin
    case DType::Q6_K:
      return {208};
    case DType::Q4_1:
    case DType::Q5_1:
    case DType::Q5_K:
      return {0, 2};  // d, m / dmin
    case DType::Q5_0:
      return {0};
    case DType::Q2_K:
      return {80, 82};
    case DType::Q3_K:
      return {108};
    case DType::IQ4_NL:
    case DType::IQ4_XS:
      return {0};
    default:
      return {};
  }
}

// `rows` encoded rows of `n` values, starting `offset` bytes into the returned buffer.
inline std::vector<std::byte> random_rows(DType type, std::size_t rows, std::size_t n, std::size_t offset,
                                          Inputs& in) {
  const ElementType& e = element_type(type);
  const std::size_t blocks = n / e.block_values, row_bytes = blocks * e.block_bytes;
  std::vector<std::byte> out(offset + rows * row_bytes);
  for (std::size_t i = offset; i < out.size(); ++i)
    out[i] = static_cast<std::byte>(in.next());
  for (std::size_t b = 0; b < rows * blocks; ++b)
    for (std::size_t at : scale_offsets(type)) {
      const uint16_t s = in.scale();
      std::memcpy(out.data() + offset + b * e.block_bytes + at, &s, 2);
    }
  if (type == DType::F16) {  // random finite halves (no inf / nan exponent)
    for (std::size_t i = 0; i < rows * n; ++i) {
      uint16_t h;
      std::memcpy(&h, out.data() + offset + 2 * i, 2);
      if ((h & 0x7C00) == 0x7C00) h &= 0xBFFF;
      std::memcpy(out.data() + offset + 2 * i, &h, 2);
    }
  }
  if (type == DType::BF16) {  // finite, and of moderate size so sums do not overflow
    for (std::size_t i = 0; i < rows * n; ++i) {
      const uint16_t h = static_cast<uint16_t>(bits(in.uniform(-2.0f, 2.0f)) >> 16);
      std::memcpy(out.data() + offset + 2 * i, &h, 2);
    }
  }
  return out;
}

}  // namespace glassbox::kernels
