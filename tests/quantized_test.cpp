// Decoding the 16-bit and block-quantized weight types, each checked against an independent description of
// its layout (value j located bit by bit from the format's definition), plus the quantizers `convert` uses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/quantized.hpp"

namespace glassbox::kernels {
namespace {

TEST(Half, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const float f = half_to_float(static_cast<uint16_t>(bits));
    if (std::isnan(f)) {
      EXPECT_TRUE((bits & 0x7C00) == 0x7C00 && (bits & 0x3FF) != 0);
      continue;
    }
    ASSERT_EQ(float_to_half(f), bits) << std::hex << bits;
  }
}

TEST(Half, KnownValuesAndRounding) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // halfway: to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // halfway: to even (up)
  EXPECT_EQ(float_to_half(70000.0f), 0x7C00);                          // overflow to infinity
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)), 0x0000);             // below half the smallest subnormal
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
}

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v)
    x = normal(rng);
  return v;
}

TEST(Quantized, Q8_0RoundTripIsWithinHalfAStep) {
  const auto x = random_values(256, 1);
  std::vector<std::byte> q(8 * 34);
  quantize_row_q8_0(x.data(), q.data(), x.size());
  std::vector<float> y(x.size());
  dequantize_row(DType::Q8_0, q.data(), y.data(), y.size());
  for (std::size_t b = 0; b < 8; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j)
      amax = std::max(amax, std::fabs(x[b * 32 + j]));
    for (int j = 0; j < 32; ++j)
      EXPECT_NEAR(y[b * 32 + j], x[b * 32 + j], amax / 127 * 0.5f + 1e-3f * amax);
  }
}

TEST(Quantized, Q4_0RoundTripIsWithinOneStep) {
  const auto x = random_values(256, 2);
  std::vector<std::byte> q(8 * 18);
  quantize_row_q4_0(x.data(), q.data(), x.size());
  std::vector<float> y(x.size());
  dequantize_row(DType::Q4_0, q.data(), y.data(), y.size());
  for (std::size_t b = 0; b < 8; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j)
      amax = std::max(amax, std::fabs(x[b * 32 + j]));
    for (int j = 0; j < 32; ++j)
      EXPECT_NEAR(y[b * 32 + j], x[b * 32 + j], amax / 8 + 1e-3f * amax);
  }
}

// Q4_0 by its definition: byte j of the 16 holds value j (low nibble) and value j + 16 (high nibble).
TEST(Quantized, Q4_0LayoutFromItsDefinition) {
  std::vector<std::byte> block(18);
  const uint16_t d = float_to_half(0.5f);
  std::memcpy(block.data(), &d, 2);
  for (int j = 0; j < 16; ++j)
    block[2 + j] = static_cast<std::byte>(j | ((15 - j) << 4));
  float y[32];
  dequantize_row(DType::Q4_0, block.data(), y, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * static_cast<float>(j - 8));
    EXPECT_EQ(y[j + 16], 0.5f * static_cast<float>(15 - j - 8));
  }
}

// Q4_K, value j of a 256-value super-block: sub-block s = j / 32 has a 6-bit scale and min (s < 4: low six
// bits of bytes s and s + 4; s >= 4: low nibble / high nibble of byte s + 4 with two high bits from the top
// of bytes s - 4 / s); the 4-bit quant is in byte 32 * (j / 64) + j % 32 of the quants, low nibble for the
// first 32 of each 64 values, high nibble for the second.
float q4_k_value(const uint8_t* block, int j) {
  float d, dmin;
  uint16_t h;
  std::memcpy(&h, block, 2);
  d = half_to_float(h);
  std::memcpy(&h, block + 2, 2);
  dmin = half_to_float(h);
  const uint8_t* packed = block + 4;
  const int s = j / 32;
  int scale, min;
  if (s < 4) {
    scale = packed[s] & 63;
    min = packed[s + 4] & 63;
  } else {
    scale = (packed[s + 4] & 15) | ((packed[s - 4] >> 6) << 4);
    min = (packed[s + 4] >> 4) | ((packed[s] >> 6) << 4);
  }
  const uint8_t byte = block[16 + 32 * (j / 64) + j % 32];
  const int q = (j % 64) < 32 ? (byte & 15) : (byte >> 4);
  return d * static_cast<float>(scale) * static_cast<float>(q) - dmin * static_cast<float>(min);
}

// Q6_K, value j: half h = j / 128, within it quadrant k = (j % 128) / 32 and lane l = j % 32. Low 4 bits:
// ql[64 h + l + 32 (k % 2)], low nibble for k < 2 else high; high 2 bits: bits 2k..2k+1 of qh[32 h + l];
// scale: scales[8 h + l / 16 + 2 k]; value = d * scale * (q - 32).
float q6_k_value(const uint8_t* block, int j) {
  const int h = j / 128, k = (j % 128) / 32, l = j % 32;
  const uint8_t low_byte = block[64 * h + l + 32 * (k % 2)];
  const int low = k < 2 ? (low_byte & 15) : (low_byte >> 4);
  const int high = (block[128 + 32 * h + l] >> (2 * k)) & 3;
  const auto scale = static_cast<int8_t>(block[192 + 8 * h + l / 16 + 2 * k]);
  uint16_t dh;
  std::memcpy(&dh, block + 208, 2);
  return half_to_float(dh) * static_cast<float>(scale) * static_cast<float>((low | (high << 4)) - 32);
}

TEST(Quantized, Q4_KMatchesItsDefinitionOnRandomBlocks) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<uint8_t> block(144);
    for (auto& b : block)
      b = static_cast<uint8_t>(rng());
    const uint16_t d = float_to_half(0.01f * static_cast<float>(rng() % 100)), dmin = float_to_half(0.003f);
    std::memcpy(block.data(), &d, 2);
    std::memcpy(block.data() + 2, &dmin, 2);
    float y[256];
    dequantize_row(DType::Q4_K, reinterpret_cast<const std::byte*>(block.data()), y, 256);
    for (int j = 0; j < 256; ++j)
      ASSERT_EQ(y[j], q4_k_value(block.data(), j)) << "value " << j;
  }
}

TEST(Quantized, Q6_KMatchesItsDefinitionOnRandomBlocks) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<uint8_t> block(210);
    for (auto& b : block)
      b = static_cast<uint8_t>(rng());
    const uint16_t d = float_to_half(0.001f * static_cast<float>(1 + rng() % 100));
    std::memcpy(block.data() + 208, &d, 2);
    float y[256];
    dequantize_row(DType::Q6_K, reinterpret_cast<const std::byte*>(block.data()), y, 256);
    for (int j = 0; j < 256; ++j)
      ASSERT_EQ(y[j], q6_k_value(block.data(), j)) << "value " << j;
  }
}

float half_at(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return half_to_float(h);
}

// Q4_1 / Q5_0 / Q5_1, value j of 32: the nibble of byte j % 16 (low for j < 16), and for the 5-bit types bit
// j of the little-endian uint32 before the nibbles as the fifth bit. Q4_1 and Q5_1: d * q + m; Q5_0:
// d * (q - 16).
float q4_1_value(const uint8_t* block, int j) {
  const int q = j < 16 ? block[4 + j] & 15 : block[4 + j - 16] >> 4;
  return half_at(block) * static_cast<float>(q) + half_at(block + 2);
}
int five_bit_q(const uint8_t* fifth, const uint8_t* nibbles, int j) {
  const int low = j < 16 ? nibbles[j] & 15 : nibbles[j - 16] >> 4;
  return low | (((fifth[j / 8] >> (j % 8)) & 1) << 4);
}
float q5_0_value(const uint8_t* block, int j) {
  return half_at(block) * static_cast<float>(five_bit_q(block + 2, block + 6, j) - 16);
}
float q5_1_value(const uint8_t* block, int j) {
  return half_at(block) * static_cast<float>(five_bit_q(block + 4, block + 8, j)) + half_at(block + 2);
}

// Q2_K, value j of 256: group g = j / 16 has the scale (low nibble) and min (high nibble) of byte g; the
// 2-bit q is at bits 2 k of byte 32 (j / 128) + j % 32 of the quants, k = (j % 128) / 32; d, dmin at 80, 82.
float q2_k_value(const uint8_t* block, int j) {
  const uint8_t sm = block[j / 16];
  const int q = (block[16 + 32 * (j / 128) + j % 32] >> (2 * ((j % 128) / 32))) & 3;
  return half_at(block + 80) * static_cast<float>(sm & 15) * static_cast<float>(q) -
         half_at(block + 82) * static_cast<float>(sm >> 4);
}

// Q3_K, value j: the 2-bit part as Q2_K's (quants at byte 32), the third bit is bit (j / 32) of mask byte
// j % 32 (clear: q - 4); the 6-bit scale of group g = j / 16 is g's nibble of the 12 packed bytes at 96
// (byte g % 8, low for g < 8) with two high bits from byte 104 + g % 4 at bit 2 (g / 4), minus 32; d at 108.
float q3_k_value(const uint8_t* block, int j) {
  const int g = j / 16;
  const uint8_t* packed = block + 96;
  const int low4 = g < 8 ? packed[g % 8] & 15 : packed[g % 8] >> 4;
  const int scale = (low4 | (((packed[8 + g % 4] >> (2 * (g / 4))) & 3) << 4)) - 32;
  const int two = (block[32 + 32 * (j / 128) + j % 32] >> (2 * ((j % 128) / 32))) & 3;
  const int q = two - (((block[j % 32] >> (j / 32)) & 1) ? 0 : 4);
  return half_at(block + 108) * static_cast<float>(scale) * static_cast<float>(q);
}

// Q5_K, value j: Q4_K's scales, mins and nibble (the nibbles start at byte 48), plus 16 from bit j / 32 of
// byte j % 32 of the fifth bits at 16.
float q5_k_value(const uint8_t* block, int j) {
  const uint8_t* packed = block + 4;
  const int s = j / 32;
  int scale, min;
  if (s < 4) {
    scale = packed[s] & 63;
    min = packed[s + 4] & 63;
  } else {
    scale = (packed[s + 4] & 15) | ((packed[s - 4] >> 6) << 4);
    min = (packed[s + 4] >> 4) | ((packed[s] >> 6) << 4);
  }
  const uint8_t byte = block[48 + 32 * (j / 64) + j % 32];
  const int q = ((j % 64) < 32 ? (byte & 15) : (byte >> 4)) | (((block[16 + j % 32] >> (j / 32)) & 1) << 4);
  return half_at(block) * static_cast<float>(scale) * static_cast<float>(q) -
         half_at(block + 2) * static_cast<float>(min);
}

// Random blocks with ordinary f16 scales at `scale_at`, each value against its definition.
void check_random_blocks(DType type, std::size_t values, std::size_t bytes, std::vector<std::size_t> scale_at,
                         float (*definition)(const uint8_t*, int), unsigned seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<uint8_t> block(bytes);
    for (auto& b : block)
      b = static_cast<uint8_t>(rng());
    for (std::size_t at : scale_at) {
      const uint16_t d = float_to_half(0.001f * static_cast<float>(static_cast<int>(rng() % 200) - 100));
      std::memcpy(block.data() + at, &d, 2);
    }
    std::vector<float> y(values);
    dequantize_row(type, reinterpret_cast<const std::byte*>(block.data()), y.data(), values);
    for (std::size_t j = 0; j < values; ++j)
      ASSERT_EQ(y[j], definition(block.data(), static_cast<int>(j))) << to_string(type) << " value " << j;
  }
}

TEST(Quantized, Q4_1MatchesItsDefinitionOnRandomBlocks) {
  check_random_blocks(DType::Q4_1, 32, 20, {0, 2}, q4_1_value, 5);
}
TEST(Quantized, Q5_0MatchesItsDefinitionOnRandomBlocks) {
  check_random_blocks(DType::Q5_0, 32, 22, {0}, q5_0_value, 6);
}
TEST(Quantized, Q5_1MatchesItsDefinitionOnRandomBlocks) {
  check_random_blocks(DType::Q5_1, 32, 24, {0, 2}, q5_1_value, 7);
}
TEST(Quantized, Q2_KMatchesItsDefinitionOnRandomBlocks) {
  check_random_blocks(DType::Q2_K, 256, 84, {80, 82}, q2_k_value, 8);
}
TEST(Quantized, Q3_KMatchesItsDefinitionOnRandomBlocks) {
  check_random_blocks(DType::Q3_K, 256, 110, {108}, q3_k_value, 9);
}
TEST(Quantized, Q5_KMatchesItsDefinitionOnRandomBlocks) {
  check_random_blocks(DType::Q5_K, 256, 176, {0, 2}, q5_k_value, 10);
}

// ggml's kvalues_iq4nl, written out here apart from the decoder's copy.
constexpr int kNonLinear[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// IQ4_NL: d = 0.5, byte i of the indices holds i (low nibble: value i) and 15 - i (high: value i + 16).
TEST(Quantized, IQ4_NLDecodesAHandBuiltBlock) {
  uint8_t block[18];
  const uint16_t d = 0x3800;  // 0.5
  std::memcpy(block, &d, 2);
  for (int i = 0; i < 16; ++i)
    block[2 + i] = static_cast<uint8_t>(i | ((15 - i) << 4));
  float y[32];
  dequantize_row(DType::IQ4_NL, reinterpret_cast<const std::byte*>(block), y, 32);
  EXPECT_EQ(y[0], -63.5f);
  EXPECT_EQ(y[15], 56.5f);
  EXPECT_EQ(y[16], 56.5f);
  EXPECT_EQ(y[31], -63.5f);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(y[i], 0.5f * static_cast<float>(kNonLinear[i])) << "value " << i;
    EXPECT_EQ(y[16 + i], 0.5f * static_cast<float>(kNonLinear[15 - i])) << "value " << 16 + i;
  }
}

// IQ4_XS: d = 0.25; sub-block scales stored as {0, 63, 32, 33, 31, 40, 1, 62} (signed: minus 32), their low
// nibbles packed two to a byte (even sub-block low) into bytes 4..7, their top two bits at bits 2j of the
// uint16 at byte 2; in each sub-block's 16 index bytes, byte 0 is 0xF8 (value 0: index 8, value 16: index
// 15) and the rest 0 (index 0).
TEST(Quantized, IQ4_XSDecodesAHandBuiltBlock) {
  uint8_t block[136] = {};
  const uint16_t d = 0x3400;  // 0.25
  std::memcpy(block, &d, 2);
  // top two bits {0, 3, 2, 2, 1, 2, 0, 3} at bits 0, 2, .., 14
  const uint16_t high = 0x000C | 0x0020 | 0x0080 | 0x0100 | 0x0800 | 0xC000;
  std::memcpy(block + 2, &high, 2);
  // low nibbles {0, 15, 0, 1, 15, 8, 1, 14}
  block[4] = 0xF0;
  block[5] = 0x10;
  block[6] = 0x8F;
  block[7] = 0xE1;
  for (int j = 0; j < 8; ++j)
    block[8 + 16 * j] = 0xF8;
  float y[256];
  dequantize_row(DType::IQ4_XS, reinterpret_cast<const std::byte*>(block), y, 256);
  const int scales[8] = {-32, 31, 0, 1, -1, 8, -31, 30};
  EXPECT_EQ(y[0], -8.0f);      // 0.25 * -32 * 1
  EXPECT_EQ(y[48], 875.75f);   // 0.25 * 31 * 113
  EXPECT_EQ(y[225], -952.5f);  // 0.25 * 30 * -127
  for (int i = 0; i < 256; ++i) {
    const int at = i % 32, index = at == 0 ? 8 : at == 16 ? 15 : 0;
    EXPECT_EQ(y[i], 0.25f * static_cast<float>(scales[i / 32]) * static_cast<float>(kNonLinear[index]))
        << "value " << i;
  }
}

// Two rows of blocks decode as each block on its own (the decoders step through whole rows).
TEST(Quantized, NewBlockTypesDecodeRowsOfSeveralBlocks) {
  struct Case {
    DType type;
    std::size_t values, bytes;
  };
  for (const Case c : {Case{DType::Q4_1, 32, 20}, Case{DType::Q5_0, 32, 22}, Case{DType::Q5_1, 32, 24},
                       Case{DType::Q2_K, 256, 84}, Case{DType::Q3_K, 256, 110}, Case{DType::Q5_K, 256, 176},
                       Case{DType::IQ4_NL, 32, 18}, Case{DType::IQ4_XS, 256, 136}}) {
    std::mt19937 rng(11);
    std::vector<std::byte> row(3 * c.bytes);
    for (auto& b : row)
      b = static_cast<std::byte>(rng() & 0x3B);  // no inf / nan halves
    std::vector<float> whole(3 * c.values), one(c.values);
    dequantize_row(c.type, row.data(), whole.data(), whole.size());
    for (std::size_t b = 0; b < 3; ++b) {
      dequantize_row(c.type, row.data() + b * c.bytes, one.data(), c.values);
      for (std::size_t j = 0; j < c.values; ++j)
        ASSERT_EQ(whole[b * c.values + j], one[j]) << to_string(c.type);
    }
  }
}

TEST(Quantized, SixteenBitRowsDecode) {
  const uint16_t halves[3] = {0x3C00, 0xC000, 0x3800};
  float y[3];
  dequantize_row(DType::F16, reinterpret_cast<const std::byte*>(halves), y, 3);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], -2.0f);
  EXPECT_EQ(y[2], 0.5f);
  const uint16_t bf[2] = {0x3F80, 0x4040};
  dequantize_row(DType::BF16, reinterpret_cast<const std::byte*>(bf), y, 2);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 3.0f);
}

}  // namespace
}  // namespace glassbox::kernels
