// The fused decode-and-dot kernels (kernels/quantized_dot.hpp) against their reference, decoding the row
// with dequantize_row and taking the canonical dot(): the results must be the same bits, for every type, on
// random blocks with ordinary and extreme scales, odd lengths, misaligned weights and x, and several rows
// at once. A checksum of fixed results ties the native and WebAssembly builds together.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernels/element_types.hpp"
#include "kernels/kernels.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_dot.hpp"
#include "quantized_inputs.hpp"

namespace glassbox::kernels {
namespace {

// The reference: decode each row, then dot().
std::vector<float> decode_then_dot(DType type, const std::byte* w, std::size_t rows, std::size_t n,
                                   const float* x) {
  const std::size_t row_bytes = n / element_type(type).block_values * element_type(type).block_bytes;
  std::vector<float> row(n), out(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    dequantize_row(type, w + r * row_bytes, row.data(), n);
    out[r] = dot(row.data(), x, n);
  }
  return out;
}

void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want,
                      const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(bits(got[i]), bits(want[i]))
        << what << " row " << i << ": fused " << got[i] << ", decode+dot " << want[i];
}

// The first checksum's types (its value predates the others), then the second's, then the third's.
const DType kFusedTypes[] = {DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K};
const DType kLaterFusedTypes[] = {DType::Q4_1, DType::Q5_0, DType::Q5_1,
                                  DType::Q2_K, DType::Q3_K, DType::Q5_K};
const DType kNonLinearFusedTypes[] = {DType::IQ4_NL, DType::IQ4_XS};

// Lengths in values: 1, 2, 3, 7 and 33 blocks, and for the 16-bit types also lengths that end inside a
// reduction pass and inside a SIMD batch.
std::vector<std::size_t> lengths(DType type) {
  const std::size_t block = element_type(type).block_values;
  std::vector<std::size_t> out;
  for (std::size_t blocks : {1, 2, 3, 7, 33})
    out.push_back(blocks * block);
  if (block == 1)
    for (std::size_t n : {1, 5, 17, 31, 32, 33, 63, 100, 257})
      out.push_back(n);
  return out;
}

void check_type(DType type, uint32_t seed) {
  Inputs in(seed);
  const std::size_t row_counts[] = {1, 2, 3, 5, 9};
  std::size_t round = 0;
  for (std::size_t n : lengths(type)) {
    for (std::size_t rows : row_counts) {
      const std::size_t w_offset = 1 + round % 3, x_offset = 1 + (round / 3) % 3;  // 1..3 bytes / floats
      ++round;
      const auto w = random_rows(type, rows, n, w_offset, in);
      std::vector<float> x_storage(n + x_offset);
      float* x = x_storage.data() + x_offset;
      for (std::size_t i = 0; i < n; ++i)
        x[i] = in.uniform(-1.0f, 1.0f);
      const std::byte* w0 = w.data() + w_offset;
      const std::size_t row_bytes = (w.size() - w_offset) / rows;
      const auto want = decode_then_dot(type, w0, rows, n, x);
      const std::string what =
          std::string(element_type(type).name) + " n=" + std::to_string(n) + " rows=" + std::to_string(rows);

      std::vector<float> got(rows, -1.0f);
      fused_matvec(got.data(), type, w0, row_bytes, n, x, 0, rows);
      expect_same_bits(got, want, what + " matvec");

      std::vector<float> one(rows);
      for (std::size_t r = 0; r < rows; ++r)
        one[r] = fused_dot(type, w0 + r * row_bytes, x, n);
      expect_same_bits(one, want, what + " dot");

      // A sub-range writes only its rows.
      if (rows >= 3) {
        std::vector<float> part(rows, 42.0f);
        fused_matvec(part.data(), type, w0, row_bytes, n, x, 1, rows - 1);
        EXPECT_EQ(part.front(), 42.0f);
        EXPECT_EQ(part.back(), 42.0f);
        for (std::size_t r = 1; r + 1 < rows; ++r)
          ASSERT_EQ(bits(part[r]), bits(want[r])) << what << " range, row " << r;
      }
    }
  }
}

TEST(QuantizedDot, EveryDecodableTypeButF32HasAFusedKernel) {
  for (const ElementType& e : kElementTypes) {
    if (!e.dtype) continue;
    EXPECT_EQ(has_fused_dot(*e.dtype), *e.dtype != DType::F32) << e.name;
  }
}

TEST(QuantizedDot, F16MatchesDecodeThenDot) {
  check_type(DType::F16, 1);
}
TEST(QuantizedDot, BF16MatchesDecodeThenDot) {
  check_type(DType::BF16, 2);
}
TEST(QuantizedDot, Q8_0MatchesDecodeThenDot) {
  check_type(DType::Q8_0, 3);
}
TEST(QuantizedDot, Q4_0MatchesDecodeThenDot) {
  check_type(DType::Q4_0, 4);
}
TEST(QuantizedDot, Q4_KMatchesDecodeThenDot) {
  check_type(DType::Q4_K, 5);
}
TEST(QuantizedDot, Q6_KMatchesDecodeThenDot) {
  check_type(DType::Q6_K, 6);
}
TEST(QuantizedDot, Q4_1MatchesDecodeThenDot) {
  check_type(DType::Q4_1, 12);
}
TEST(QuantizedDot, Q5_0MatchesDecodeThenDot) {
  check_type(DType::Q5_0, 13);
}
TEST(QuantizedDot, Q5_1MatchesDecodeThenDot) {
  check_type(DType::Q5_1, 14);
}
TEST(QuantizedDot, Q2_KMatchesDecodeThenDot) {
  check_type(DType::Q2_K, 15);
}
TEST(QuantizedDot, Q3_KMatchesDecodeThenDot) {
  check_type(DType::Q3_K, 16);
}
TEST(QuantizedDot, Q5_KMatchesDecodeThenDot) {
  check_type(DType::Q5_K, 17);
}
TEST(QuantizedDot, IQ4_NLMatchesDecodeThenDot) {
  check_type(DType::IQ4_NL, 18);
}
TEST(QuantizedDot, IQ4_XSMatchesDecodeThenDot) {
  check_type(DType::IQ4_XS, 19);
}

// Every index of IQ4_NL and IQ4_XS reaches its own value: x one-hot at value j, index (j + shift) % 16 in
// every nibble, d = 1 (and IQ4_XS sub-block scale 1: stored 33), so the result is that table value.
TEST(QuantizedDot, NonLinearIndicesReachTheirValues) {
  for (DType type : {DType::IQ4_NL, DType::IQ4_XS}) {
    const ElementType& e = element_type(type);
    const std::size_t indices_at = e.block_bytes - e.block_values / 2;
    for (int shift = 0; shift < 16; ++shift) {
      std::vector<std::byte> block(e.block_bytes);
      const uint16_t one = 0x3C00;
      std::memcpy(block.data(), &one, 2);
      if (type == DType::IQ4_XS) {
        const uint16_t high = 0xAAAA;  // top bits 10 for all eight sub-blocks: 32 + 1 (low nibble) = 33
        std::memcpy(block.data() + 2, &high, 2);
        for (int i = 0; i < 4; ++i)
          block[4 + i] = std::byte{0x11};
      }
      // value j of a 32-value group: low nibble of byte j % 16 for j < 16, high nibble otherwise
      for (std::size_t j = 0; j < e.block_values; ++j) {
        const int index = static_cast<int>((j + shift) % 16);
        const std::size_t byte = indices_at + 16 * (j / 32) + j % 16;
        block[byte] |= static_cast<std::byte>(j % 32 < 16 ? index : index << 4);
      }
      std::vector<float> x(e.block_values, 0.0f);
      for (std::size_t j = 0; j < e.block_values; ++j) {
        x[j] = 1.0f;
        EXPECT_EQ(fused_dot(type, block.data(), x.data(), e.block_values),
                  static_cast<float>(kIq4NlValues[(j + shift) % 16]))
            << e.name << " value " << j << " shift " << shift;
        x[j] = 0.0f;
      }
    }
  }
}

// Every fifth-bit position of Q5_0 and Q5_1 reaches its own value: one bit set at a time with zero nibbles
// and x one-hot at that value, so a bit landing in the wrong lane shows as a zero result.
TEST(QuantizedDot, FifthBitsReachTheirValues) {
  for (DType type : {DType::Q5_0, DType::Q5_1}) {
    const std::size_t bytes = element_type(type).block_bytes, fifth_at = bytes - 20;
    for (int bit = 0; bit < 32; ++bit) {
      std::vector<std::byte> block(bytes);
      const uint16_t one = 0x3C00;  // d = 1 (and m = 0 for Q5_1)
      std::memcpy(block.data(), &one, 2);
      const uint32_t fifth = 1u << bit;
      std::memcpy(block.data() + fifth_at, &fifth, 4);
      std::vector<float> x(32, 0.0f);
      x[bit] = 1.0f;
      const float want = type == DType::Q5_0 ? 0.0f : 16.0f;  // (16 - 16) * 1, or 16 * 1 + 0
      EXPECT_EQ(fused_dot(type, block.data(), x.data(), 32), want) << to_string(type) << " bit " << bit;
      x[bit] = 0.0f;
      x[(bit + 1) % 32] = 1.0f;  // a neighbour without the bit
      const float other = type == DType::Q5_0 ? -16.0f : 0.0f;
      EXPECT_EQ(fused_dot(type, block.data(), x.data(), 32), other) << to_string(type) << " bit " << bit;
    }
  }
}

// Every finite half decodes to the same weight: each row of 32 holds 32 consecutive half bit patterns, and
// x is one-hot, so each result is a single decoded weight times 1 (plus zeros). Also a dense x over the
// same rows.
TEST(QuantizedDot, F16EveryFiniteHalf) {
  constexpr std::size_t n = 32, rows = 65536 / n;
  std::vector<std::byte> w(65536 * 2);
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t v =
        static_cast<uint16_t>((h & 0x7C00) == 0x7C00 ? h & 0x83FF : h);  // inf/nan -> subnormal
    std::memcpy(w.data() + 2 * h, &v, 2);
  }
  Inputs in(7);
  std::vector<float> x(n);
  for (std::size_t lane = 0; lane < n; lane += 5) {
    std::fill(x.begin(), x.end(), 0.0f);
    x[lane] = 1.0f;
    std::vector<float> got(rows);
    fused_matvec(got.data(), DType::F16, w.data(), 2 * n, n, x.data(), 0, rows);
    expect_same_bits(got, decode_then_dot(DType::F16, w.data(), rows, n, x.data()),
                     "one-hot lane " + std::to_string(lane));
  }
  for (float& v : x)
    v = in.uniform(-1.0f, 1.0f);
  std::vector<float> got(rows);
  fused_matvec(got.data(), DType::F16, w.data(), 2 * n, n, x.data(), 0, rows);
  expect_same_bits(got, decode_then_dot(DType::F16, w.data(), rows, n, x.data()), "dense");
}

// Infinite and nan halves: the results are the reference's (inf with the same sign, or nan).
TEST(QuantizedDot, F16InfinityAndNan) {
  for (uint32_t h : {0x7C00u, 0xFC00u, 0x7C01u, 0x7E00u, 0xFFFFu}) {
    const uint16_t v = static_cast<uint16_t>(h);
    std::byte w[2];
    std::memcpy(w, &v, 2);
    const float x = 0.5f;
    const float got = fused_dot(DType::F16, w, &x, 1);
    float decoded;
    dequantize_row(DType::F16, w, &decoded, 1);
    const float want = dot(&decoded, &x, 1);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << h;
    } else {
      EXPECT_EQ(bits(got), bits(want)) << std::hex << h;
    }
  }
}

// FNV-1a over fused results on fixed inputs: the same number natively and in WebAssembly (both suites print
// and expect it), so the fused kernels agree across instruction sets, not only with decode+dot in one build.
uint64_t checksum(std::span<const DType> types) {
  uint64_t hash = 14695981039346656037ull;
  Inputs in(11);
  for (DType type : types) {
    for (std::size_t n : lengths(type)) {
      constexpr std::size_t rows = 3;
      const auto w = random_rows(type, rows, n, 0, in);
      std::vector<float> x(n), out(rows);
      for (float& v : x)
        v = in.uniform(-1.0f, 1.0f);
      fused_matvec(out.data(), type, w.data(), w.size() / rows, n, x.data(), 0, rows);
      for (float v : out)
        hash = fold_bits(hash, v);
    }
  }
  return hash;
}

TEST(QuantizedDot, ChecksumIsTheSameOnEveryPlatform) {
  const uint64_t hash = checksum(kFusedTypes);
  std::printf("fused quantized dot checksum: %016llx\n", static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0xe0838592a2fe0bcbull) << "the fused kernels' bits changed on " << simd_instruction_set();
}

TEST(QuantizedDot, LaterTypesChecksumIsTheSameOnEveryPlatform) {
  const uint64_t hash = checksum(kLaterFusedTypes);
  std::printf("fused quantized dot checksum (Q4_1 .. Q5_K): %016llx\n",
              static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0xe8ee7859bde95bd4ull) << "the fused kernels' bits changed on " << simd_instruction_set();
}

TEST(QuantizedDot, NonLinearTypesChecksumIsTheSameOnEveryPlatform) {
  const uint64_t hash = checksum(kNonLinearFusedTypes);
  std::printf("fused quantized dot checksum (IQ4_NL, IQ4_XS): %016llx\n",
              static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0x440de616d3698630ull) << "the fused kernels' bits changed on " << simd_instruction_set();
}

}  // namespace
}  // namespace glassbox::kernels
