// The integer dot products (kernels/quantized_int_dot.hpp) against their plain-loop reference, bit for bit:
// every type with an integer kernel, random blocks with ordinary and extreme scales, 1 to 33 blocks (so every
// remainder of the four-block passes), weights and activations at odd addresses, several rows and tokens at
// once. Then the activation rounding rule on known values, the error of the integer dot against the float
// one, and a checksum of fixed results that ties the native and WebAssembly builds together.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "kernels/element_types.hpp"
#include "kernels/kernels.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/quantized_int_dot.hpp"
#include "kernels/quantized_int_matmul.hpp"
#include "kernels/quantized_int_terms.hpp"
#include "quantized_inputs.hpp"

namespace glassbox::kernels {
namespace {

const DType kIntTypes[] = {DType::Q8_0, DType::Q4_0,   DType::Q4_K,  DType::Q5_K,
                           DType::Q6_K, DType::IQ4_XS, DType::IQ4_NL};

// Activations quantized into storage that starts `offset` bytes past an aligned address.
struct Activations {
  std::vector<int8_t> q;
  std::vector<float> d;
  std::vector<int32_t> sums16, sums32;
  std::size_t offset;
  Activations(const std::vector<float>& x, std::size_t offset)
      : q(x.size() + offset),
        d(x.size() / 32 + 1),
        sums16(x.size() / 16 + 1),
        sums32(x.size() / 32 + 1),
        offset(offset) {
    quantize_activations(x.data(), x.size(), q.data() + offset, d.data() + 1, sums16.data() + 1,
                         sums32.data() + 1);
  }
  QuantizedActivations view() const {
    return {q.data() + offset, d.data() + 1, sums16.data() + 1, sums32.data() + 1};
  }
};

std::vector<float> random_vector(std::size_t n, Inputs& in) {
  std::vector<float> x(n);
  for (float& v : x)
    v = in.uniform(-1.0f, 1.0f);
  return x;
}

// int_matmul (the batched kernel) of `rows` rows of w against every token of x, with scratch as the sessions
// size it: out[t * rows + r].
std::vector<float> batched(DType type, const std::byte* w, std::size_t row_bytes, std::size_t n,
                           std::size_t rows, const std::vector<QuantizedActivations>& x) {
  const std::size_t tokens = x.size(), lanes = activation_lanes(tokens);
  std::vector<float> q(n * lanes), d(n / 32 * lanes), xsum(n / 32 * lanes);
  std::vector<uint8_t> column_bytes(n * lanes);
  const ActivationColumns columns = fill_activation_columns(x.data(), tokens, n, type, q.data(), d.data(),
                                                            xsum.data(), column_bytes.data());
  std::vector<float> w_rows(kIntMatmulRows * n), ws(kIntMatmulRows * n / 32), wm(kIntMatmulRows * n / 32);
  std::vector<int8_t> row_bytes_scratch(kIntMatmulRows * n), row_high(kIntMatmulRows * n);
  std::vector<int16_t> row_groups(kIntMatmulRows * n / 16);
  std::vector<int32_t> row_sums(kIntMatmulRows * n / 16);
  std::vector<int16_t> row_wide(kIntMatmulRows * n);
  std::vector<float> out(rows * tokens, -1.0f);
  int_matmul(out.data(), rows, type, w, row_bytes, n, columns, 0, rows,
             {w_rows.data(), ws.data(), wm.data(), row_bytes_scratch.data(), row_groups.data(),
              row_sums.data(), row_high.data(), row_wide.data()});
  return out;
}

void check_type(DType type, uint32_t seed) {
  Inputs in(seed);
  const std::size_t block = element_type(type).block_values, block_bytes = element_type(type).block_bytes;
  std::size_t round = 0;
  for (std::size_t blocks : {1, 2, 3, 4, 5, 6, 7, 8, 9, 33}) {
    const std::size_t n = blocks * block, rows = 1 + round % 6;
    const std::size_t tokens = std::vector<std::size_t>{1, 2, 5, 17, 33}[round % 5];
    const std::size_t w_offset = 1 + round % 3, x_offset = 1 + (round / 3) % 3;
    ++round;
    const auto w = random_rows(type, rows, n, w_offset, in);
    const std::byte* w0 = w.data() + w_offset;
    const std::size_t row_bytes = blocks * block_bytes;
    std::vector<Activations> x;
    std::vector<QuantizedActivations> views;
    for (std::size_t t = 0; t < tokens; ++t)
      x.emplace_back(random_vector(n, in), x_offset);
    for (const Activations& a : x)
      views.push_back(a.view());
    const std::string what = std::string(element_type(type).name) + " n=" + std::to_string(n);

    const std::vector<float> got = batched(type, w0, row_bytes, n, rows, views);
    for (std::size_t t = 0; t < tokens; ++t) {
      std::vector<float> one(rows, -1.0f);
      int_matvec(one.data(), type, w0, row_bytes, n, views[t], 0, rows);
      for (std::size_t r = 0; r < rows; ++r) {
        const float want = int_dot_reference(type, w0 + r * row_bytes, views[t], n);
        ASSERT_EQ(bits(one[r]), bits(want))
            << what << " row " << r << ": kernel " << one[r] << ", reference " << want;
        ASSERT_EQ(bits(got[t * rows + r]), bits(want))
            << what << " token " << t << " row " << r << " (matmul)";
      }
    }
    if (rows >= 3) {  // a sub-range writes only its rows
      std::vector<float> part(rows, 42.0f);
      int_matvec(part.data(), type, w0, row_bytes, n, views[0], 1, rows - 1);
      EXPECT_EQ(part.front(), 42.0f);
      EXPECT_EQ(part.back(), 42.0f);
    }
  }
}

TEST(QuantizedIntDot, Q8_0MatchesTheReference) {
  check_type(DType::Q8_0, 21);
}
TEST(QuantizedIntDot, Q4_0MatchesTheReference) {
  check_type(DType::Q4_0, 22);
}

TEST(QuantizedIntDot, Q4_KMatchesTheReference) {
  check_type(DType::Q4_K, 26);
}
TEST(QuantizedIntDot, Q5_KMatchesTheReference) {
  check_type(DType::Q5_K, 25);
}
TEST(QuantizedIntDot, Q6_KMatchesTheReference) {
  check_type(DType::Q6_K, 27);
}

TEST(QuantizedIntDot, IQ4_XSMatchesTheReference) {
  check_type(DType::IQ4_XS, 33);
}
TEST(QuantizedIntDot, IQ4_NLMatchesTheReference) {
  check_type(DType::IQ4_NL, 35);
}

TEST(QuantizedIntDot, IQ4_XSLooksUpEveryTableValue) {
  // Every index (0..15) in every position of a sub-block, with every stored scale (ls 0..63, so ws from
  // -32 d to 31 d), against activations of +-127: the kernel's lookup and sign trick must give the plain
  // loop's integers, and the decoded weights times the activations (exact here: d = 1, x = +-1).
  const std::size_t n = 8 * 256;
  std::vector<std::byte> row(8 * 136);
  std::vector<float> x(n);
  for (std::size_t s = 0; s < 8; ++s) {
    std::byte* block = row.data() + s * 136;
    const uint16_t one = float_to_half(1.0f);
    std::memcpy(block, &one, 2);
    uint16_t high = 0;
    for (std::size_t j = 0; j < 8; ++j) {
      const std::size_t ls = (8 * s + j) * 37 % 64;  // each of 0..63 once, shuffled
      high = static_cast<uint16_t>(high | ((ls >> 4) << (2 * j)));
      block[4 + j / 2] |= static_cast<std::byte>((ls & 0x0F) << (4 * (j % 2)));
      for (std::size_t i = 0; i < 16; ++i)  // value i: index (i + j) % 16; value i + 16: 15 - that
        block[8 + 16 * j + i] = static_cast<std::byte>(((i + j + s) % 16) | ((15 - (i + j + s) % 16) << 4));
    }
    std::memcpy(block + 2, &high, 2);
  }
  for (std::size_t i = 0; i < n; ++i)
    x[i] = (i * 7) % 3 == 0 ? -1.0f : 1.0f;
  Activations a(x, 0);
  std::vector<float> decoded(n);
  dequantize_row(DType::IQ4_XS, row.data(), decoded.data(), n);
  double exact = 0.0, magnitude = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double term = static_cast<double>(decoded[i]) * a.view().d[i / 32] * a.view().q[i];
    exact += term;
    magnitude += std::fabs(term);
  }
  float kernel = 0.0f;
  int_matvec(&kernel, DType::IQ4_XS, row.data(), 0, n, a.view(), 0, 1);
  EXPECT_EQ(bits(kernel), bits(int_dot_reference(DType::IQ4_XS, row.data(), a.view(), n)));
  EXPECT_NEAR(kernel, exact, 1e-6 * magnitude);
  const std::vector<float> batch = batched(DType::IQ4_XS, row.data(), row.size(), n, 1, {a.view()});
  EXPECT_EQ(bits(batch[0]), bits(kernel));
}

TEST(QuantizedIntDot, Q8_0RowsAskedForAheadKeepTheirBits) {
  // Decoding asks for Q8_0 rows a few KB ahead of the one it reads (quantized_int_dot_rows.hpp's rows_dot):
  // with 40 rows of 33 blocks (1,122 bytes each, so 3 rows ahead) and the range [5, 37), rows 8 to 36 are read
  // after being asked for and 5 to 7 without; nothing is asked for past the range, and no row outside it is
  // written.
  Inputs in(29);
  const std::size_t blocks = 33, n = blocks * 32, rows = 40, first = 5, end = 37;
  const std::size_t row_bytes = blocks * element_type(DType::Q8_0).block_bytes;
  const auto w = random_rows(DType::Q8_0, rows, n, 1, in);
  const std::byte* w0 = w.data() + 1;
  const Activations a(random_vector(n, in), 3);
  std::vector<float> out(rows, 42.0f);
  int_matvec(out.data(), DType::Q8_0, w0, row_bytes, n, a.view(), first, end);
  for (std::size_t r = 0; r < rows; ++r) {
    if (r < first || r >= end) {
      EXPECT_EQ(out[r], 42.0f) << "row " << r << " is outside the range";
      continue;
    }
    const float want = int_dot_reference(DType::Q8_0, w0 + r * row_bytes, a.view(), n);
    ASSERT_EQ(bits(out[r]), bits(want)) << "row " << r << ": kernel " << out[r] << ", reference " << want;
  }
}

TEST(QuantizedIntDot, RowsTakenFourAtOnceKeepTheirBits) {
  // WebAssembly takes rows four at a time with their last one to three blocks across the four rows
  // (quantized_int_dot_rows.hpp's rows4_dot), and any rows left one at a time: every count of blocks
  // left over, with 1 to 9 rows from an odd first row, gives the reference's bits.
  Inputs in(33);
  for (DType type : {DType::Q8_0, DType::Q4_0}) {
    const std::size_t block_bytes = element_type(type).block_bytes;
    for (std::size_t blocks = 1; blocks <= 8; ++blocks)
      for (std::size_t rows = 1; rows <= 9; rows += 4 - blocks % 4) {
        const std::size_t n = blocks * 32, row_bytes = blocks * block_bytes;
        const auto w = random_rows(type, rows + 1, n, 0, in);
        const Activations a(random_vector(n, in), 1);
        std::vector<float> out(rows + 1, 42.0f);
        int_matvec(out.data(), type, w.data(), row_bytes, n, a.view(), 1, rows + 1);
        EXPECT_EQ(out[0], 42.0f);
        for (std::size_t r = 1; r <= rows; ++r) {
          const float want = int_dot_reference(type, w.data() + r * row_bytes, a.view(), n);
          ASSERT_EQ(bits(out[r]), bits(want)) << element_type(type).name << " " << blocks
                                              << " blocks, rows [1, " << rows + 1 << "), row " << r;
        }
      }
  }
}

TEST(QuantizedIntDot, ExtremeWeightBytesStayExact) {
  // Q8_0 weights of -128 and 127 against activations of +-127 (the largest products the x86 byte
  // instructions see; a saturating step would show here), in every position of a 4-block pass.
  const std::size_t n = 8 * 32;
  std::vector<std::byte> row(8 * 34);
  std::vector<float> x(n);
  for (std::size_t b = 0; b < 8; ++b) {
    const uint16_t one = float_to_half(1.0f);
    std::memcpy(row.data() + b * 34, &one, 2);
    for (std::size_t j = 0; j < 32; ++j) {
      row[b * 34 + 2 + j] = static_cast<std::byte>(j % 2 == 0 ? 0x80 : 0x7F);
      x[b * 32 + j] = j % 4 < 2 ? -1.0f : 1.0f;
    }
  }
  Activations a(x, 0);
  const float got = int_dot_reference(DType::Q8_0, row.data(), a.view(), n);
  float kernel = 0.0f;
  int_matvec(&kernel, DType::Q8_0, row.data(), 0, n, a.view(), 0, 1);
  // x rounds to -127, -127, 127, 127, ...: per four values -128 * -127 + 127 * -127 - 128 * 127 + 127 * 127 = 0,
  // so every block's integer sum, and the dot, is exactly 0.
  EXPECT_EQ(got, 0.0f);
  EXPECT_EQ(bits(kernel), bits(got));
  // Every weight -128 against x = -1 everywhere: 32 * 128 * 127 per block.
  for (std::size_t b = 0; b < 8; ++b)
    for (std::size_t j = 0; j < 32; ++j)
      row[b * 34 + 2 + j] = static_cast<std::byte>(0x80);
  std::vector<float> minus_one(n, -1.0f);
  Activations m(minus_one, 0);
  int_matvec(&kernel, DType::Q8_0, row.data(), 0, n, m.view(), 0, 1);
  const float scale = half_to_float(float_to_half(1.0f / 127.0f));
  // Eight equal terms, two in each partial sum: exactly 8 times one (the factors are powers of two apart).
  EXPECT_EQ(kernel, 8.0f * ((1.0f * scale) * static_cast<float>(32 * 128 * 127)));
}

TEST(QuantizedIntDot, ExtremeQ6_KValuesStayExact) {
  // Every 6-bit value 63 (all bits set) with every scale -128, against activations of 127: the largest
  // products Q6_K's byte instructions see (pairs of 63 * 127, times -128). isum_b is then exactly
  // -128 * 32 * (63 - 32) * 127 per sub-block, and the kernel must give the reference's bits.
  const std::size_t n = 2 * 256;
  std::vector<std::byte> row(2 * 210, std::byte{0xFF});
  for (std::size_t s = 0; s < 2; ++s) {
    for (std::size_t i = 0; i < 16; ++i)
      row[s * 210 + 192 + i] = std::byte{0x80};
    const uint16_t one = float_to_half(1.0f);
    std::memcpy(row.data() + s * 210 + 208, &one, 2);
  }
  std::vector<float> x(n, 1.0f);
  Activations a(x, 0);
  float kernel = 0.0f;
  int_matvec(&kernel, DType::Q6_K, row.data(), 0, n, a.view(), 0, 1);
  const float term = (1.0f * a.view().d[0]) * static_cast<float>(-128 * 32 * 31 * 127);
  EXPECT_FLOAT_EQ(kernel, 16.0f * term);  // 16 equal terms, four in each partial sum
  EXPECT_EQ(bits(kernel), bits(int_dot_reference(DType::Q6_K, row.data(), a.view(), n)));
}

TEST(QuantizedIntDot, ExtremeBytesStayExactInTheBatchedKernels) {
  // The batched kernels' byte products (the VNNI and AVX2 ones add several before widening) at their largest:
  // every weight byte at an extreme or alternating between extremes, block scales 1, against activations at
  // +-127 in patterns that line up with and against the weights' signs, for 17 tokens (a whole group of
  // lanes and a partial one). Every token must get the plain-loop reference's bits.
  const std::size_t n = 2 * 256;
  const uint8_t patterns[][2] = {{0x00, 0x00}, {0xFF, 0xFF}, {0x80, 0x80},
                                 {0x7F, 0x7F}, {0x80, 0x7F}, {0x0F, 0xF0}};
  const float signs[][4] = {{1, 1, 1, 1}, {-1, -1, -1, -1}, {-1, 1, -1, 1}, {1, 1, -1, -1}};
  for (DType type : kIntTypes) {
    const std::size_t row_bytes = n / element_type(type).block_values * element_type(type).block_bytes;
    for (const auto& pattern : patterns) {
      std::vector<std::byte> row(row_bytes);
      for (std::size_t i = 0; i < row_bytes; ++i)
        row[i] = static_cast<std::byte>(pattern[i % 2]);
      for (std::size_t b = 0; b < n / element_type(type).block_values; ++b)
        for (std::size_t at : scale_offsets(type)) {
          const uint16_t one = float_to_half(1.0f);
          std::memcpy(row.data() + b * element_type(type).block_bytes + at, &one, 2);
        }
      std::vector<Activations> x;
      std::vector<QuantizedActivations> views;
      for (std::size_t t = 0; t < 17; ++t) {
        std::vector<float> v(n);
        for (std::size_t i = 0; i < n; ++i)
          v[i] = signs[t % 4][i % 4];
        x.emplace_back(v, 0);
      }
      for (const Activations& a : x)
        views.push_back(a.view());
      const std::vector<float> got = batched(type, row.data(), row_bytes, n, 1, views);
      for (std::size_t t = 0; t < views.size(); ++t)
        ASSERT_EQ(bits(got[t]), bits(int_dot_reference(type, row.data(), views[t], n)))
            << element_type(type).name << " bytes " << int{pattern[0]} << "/" << int{pattern[1]} << " token "
            << t;
    }
  }
}

TEST(QuantizedIntDot, ActivationRoundingRule) {
  // The values of the NumPy reference's check (ggml_quants.round_like_q8_0): d = 1 in the first block, halves
  // away from zero, the ends at +-127; the second block's scale is 0.1 / 127 rounded to f16; an all-zero block.
  std::vector<float> x(96, 0.0f);
  const float first[] = {127.0f, -127.0f, 2.5f, 3.5f, -2.5f, 0.49f, 126.6f};
  std::copy(std::begin(first), std::end(first), x.begin());
  std::fill(x.begin() + 32, x.begin() + 64, 0.1f);
  std::vector<int8_t> q(96);
  std::vector<float> d(3);
  std::vector<int32_t> sums(6), sums32(3);
  quantize_activations(x.data(), x.size(), q.data(), d.data(), sums.data(), sums32.data());
  const int8_t want[] = {127, -127, 3, 4, -3, 0, 127, 0};
  for (int j = 0; j < 8; ++j)
    EXPECT_EQ(q[j], want[j]) << "value " << j;
  EXPECT_EQ(d[0], 1.0f);
  EXPECT_EQ(d[1], half_to_float(float_to_half(0.1f / 127.0f)));
  for (int j = 32; j < 64; ++j)
    EXPECT_EQ(q[j], 127);
  EXPECT_EQ(d[2], 0.0f);
  EXPECT_EQ(sums[0], 127 - 127 + 3 + 4 - 3 + 0 + 127);
  EXPECT_EQ(sums[2], 16 * 127);
  EXPECT_EQ(sums[4], 0);
  EXPECT_EQ(sums32[0], sums[0] + sums[1]);
  EXPECT_EQ(sums32[1], 32 * 127);
  EXPECT_EQ(sums32[2], 0);
}

TEST(QuantizedIntDot, CloseToTheFloatDot) {
  // Rounding the activations to 8 bits costs about 1/254 of each block's largest value per element; over a
  // row of random values the dot moves by well under 1% of the sum of |w * x|.
  Inputs in(23);
  for (DType type : kIntTypes) {
    const std::size_t n = 64 * 32;
    auto w = random_rows(type, 1, n, 0, in);
    for (std::size_t b = 0; b < n / element_type(type).block_values; ++b) {  // ordinary scales only
      for (std::size_t at : scale_offsets(type)) {
        const uint16_t s = float_to_half(in.uniform(0.01f, 0.05f));
        std::memcpy(w.data() + b * element_type(type).block_bytes + at, &s, 2);
      }
    }
    const auto x = random_vector(n, in);
    std::vector<float> decoded(n);
    dequantize_row(type, w.data(), decoded.data(), n);
    double exact = 0.0, magnitude = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      exact += static_cast<double>(decoded[i]) * x[i];
      magnitude += std::fabs(static_cast<double>(decoded[i]) * x[i]);
    }
    Activations a(x, 0);
    float got = 0.0f;
    int_matvec(&got, type, w.data(), 0, n, a.view(), 0, 1);
    EXPECT_LT(std::fabs(got - exact), 0.01 * magnitude) << element_type(type).name;
    EXPECT_GT(std::fabs(got - exact), 0.0) << element_type(type).name << ": the activations were not rounded";
  }
}

// FNV-1a over the bits of fixed results of `types`' kernels (random rows and activations from `seed`).
uint64_t checksum(std::initializer_list<DType> types, uint32_t seed) {
  uint64_t hash = 14695981039346656037ull;
  Inputs in(seed);
  for (DType type : types) {
    for (std::size_t blocks : {1, 3, 4, 7, 33}) {
      const std::size_t n = blocks * element_type(type).block_values, rows = 3;
      const auto w = random_rows(type, rows, n, 0, in);
      Activations a(random_vector(n, in), 0);
      std::vector<float> out(rows);
      int_matvec(out.data(), type, w.data(), w.size() / rows, n, a.view(), 0, rows);
      for (float v : out)
        hash = fold_bits(hash, v);
    }
  }
  return hash;
}

TEST(QuantizedIntDot, IsTheDecodedWeightsTimesTheRoundedActivations) {
  // Independent of the reference's integer decoding: the decoder's weights (dequantize_row) times the
  // activations the rounding gives (d * q), summed in doubles, agree with the kernel up to float rounding.
  Inputs in(28);
  for (DType type : kIntTypes) {
    const std::size_t n = 16 * 256;
    auto w = random_rows(type, 1, n, 0, in);
    for (std::size_t b = 0; b < n / element_type(type).block_values; ++b)  // ordinary scales only
      for (std::size_t at : scale_offsets(type)) {
        const uint16_t s = float_to_half(in.uniform(0.01f, 0.05f));
        std::memcpy(w.data() + b * element_type(type).block_bytes + at, &s, 2);
      }
    std::vector<float> decoded(n);
    dequantize_row(type, w.data(), decoded.data(), n);
    Activations a(random_vector(n, in), 0);
    double exact = 0.0, magnitude = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(a.view().d[i / 32]) * a.view().q[i];
      exact += decoded[i] * x;
      magnitude += std::fabs(decoded[i] * x);
    }
    float got = 0.0f;
    int_matvec(&got, type, w.data(), 0, n, a.view(), 0, 1);
    EXPECT_LT(std::fabs(got - exact), 1e-6 * magnitude) << element_type(type).name;
  }
}

TEST(QuantizedIntDot, BlockScalesReadEveryHalfExactly) {
  // The kernels' f16 scales of four blocks (int_terms::f16_at4; in WebAssembly a vector form of its own)
  // against half_to_float, for every half: the same float, and a nan for a nan (whose payload the product
  // with the activations' scale quiets anyway), from blocks 34 bytes apart at an odd address.
  std::vector<std::byte> blocks(4 * 34 + 1);
  for (uint32_t first = 0; first < 0x10000; first += 4) {
    for (uint32_t k = 0; k < 4; ++k) {
      const auto half = static_cast<uint16_t>(first + k);
      std::memcpy(blocks.data() + 1 + k * 34, &half, 2);
    }
    float got[4];
    int_terms::f16_at4(blocks.data() + 1, 34, got);
    for (uint32_t k = 0; k < 4; ++k) {
      const float want = half_to_float(static_cast<uint16_t>(first + k));
      if (std::isnan(want))
        ASSERT_TRUE(std::isnan(got[k])) << "half " << std::hex << first + k;
      else
        ASSERT_EQ(bits(got[k]), bits(want))
            << "half " << std::hex << first + k << ": " << got[k] << ", not " << want;
    }
  }
}

TEST(QuantizedIntDot, ChecksumIsTheSameOnEveryPlatform) {
  const uint64_t hash = checksum({DType::Q8_0, DType::Q4_0}, 31);
  std::printf("integer quantized dot kernel checksum: %016llx\n", static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0x1246e7eed64b2d9aull) << "the integer kernels' bits changed on " << simd_instruction_set();
}

TEST(QuantizedIntDot, KQuantChecksumIsTheSameOnEveryPlatform) {
  const uint64_t hash = checksum({DType::Q4_K, DType::Q6_K}, 32);
  std::printf("integer K-quant dot kernel checksum: %016llx\n", static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0x2d07a3939439ce36ull)
      << "the integer K-quant kernels' bits changed on " << simd_instruction_set();
}

TEST(QuantizedIntDot, IQ4_XSChecksumIsTheSameOnEveryPlatform) {
  const uint64_t hash = checksum({DType::IQ4_XS}, 34);
  std::printf("integer IQ4_XS dot kernel checksum: %016llx\n", static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0x44a35d76c81f2a59ull)
      << "the integer IQ4_XS kernel's bits changed on " << simd_instruction_set();
}

TEST(QuantizedIntDot, IQ4_NLChecksumIsTheSameOnEveryPlatform) {
  const uint64_t hash = checksum({DType::IQ4_NL}, 36);
  std::printf("integer IQ4_NL dot kernel checksum: %016llx\n", static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0x08df30cef566b80aull)
      << "the integer IQ4_NL kernel's bits changed on " << simd_instruction_set();
}

TEST(QuantizedIntDot, Q5_KChecksumIsTheSameOnEveryPlatform) {
  // Apart from the K-quant checksum above, whose pinned value stays what it was before Q5_K had a kernel.
  const uint64_t hash = checksum({DType::Q5_K}, 33);
  std::printf("integer Q5_K dot kernel checksum: %016llx\n", static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0x1803085ea7785eeaull)
      << "the integer Q5_K kernel's bits changed on " << simd_instruction_set();
}

}  // namespace
}  // namespace glassbox::kernels
