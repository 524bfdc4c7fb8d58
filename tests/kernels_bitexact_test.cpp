// The README's determinism claim, tested bit for bit: every SIMD kernel of this build (AVX-512 or AVX2
// natively, SSE2 in the ThreadSanitizer build, SIMD128 in the WebAssembly build) must give exactly the bits of
// the scalar loops in fixed_order_reference.cpp, which follow the kernels' one summation order and do not
// depend on any SIMD width. kernels_test.cpp compares against the textbook formulas with tolerances; here
// every comparison is EXPECT_EQ on the float's bits, over every length 1..300 (all remainders modulo the SIMD
// width and the 32-lane reduction block) and a few longer ones, at every misalignment within 64 bytes.
// The last test pins the scalar loops' own bits with a checksum: the same number natively and in WASM.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "kernels/fixed_order_reference.hpp"
#include "kernels/kernels.hpp"

namespace glassbox::kernels {
namespace {

// Lengths 1..300 and a few past several whole reduction blocks.
std::vector<std::size_t> lengths() {
  std::vector<std::size_t> out;
  for (std::size_t n = 1; n <= 300; ++n)
    out.push_back(n);
  for (std::size_t n : {511, 1000, 4099})
    out.push_back(n);
  return out;
}

// Random floats from std::mt19937's raw output, which the C++ standard fixes bit for bit;
// std::uniform_real_distribution is not fixed (libstdc++ and Emscripten's libc++ differ), and the checksum
// below needs the same inputs natively and in WebAssembly.
class Inputs {
 public:
  explicit Inputs(uint32_t seed) : rng_(seed) {}
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * (static_cast<float>(rng_() >> 8) * 0x1p-24f);  // [lo, hi), 24 random bits
  }

 private:
  std::mt19937 rng_;
};

// A float buffer starting `offset` floats past a 64-byte boundary; successive buffers cycle through all 16
// offsets in a scrambled order (1, 6, 11, 0, 5, ...), so the operands of one call are misaligned differently.
class Buffer {
 public:
  explicit Buffer(std::size_t n) : storage_(n + 32) {
    static std::size_t count = 0;
    const std::size_t offset = (count++ * 5 + 1) % 16;
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    start_ = ((64 - address % 64) % 64) / sizeof(float) + offset;
  }
  Buffer(std::size_t n, Inputs& in, float lo, float hi) : Buffer(n) {
    for (std::size_t i = 0; i < n; ++i)
      data()[i] = in.uniform(lo, hi);
  }
  float* data() { return storage_.data() + start_; }
  float& operator[](std::size_t i) { return data()[i]; }

 private:
  std::vector<float> storage_;
  std::size_t start_;
};

Buffer copy_of(Buffer& from, std::size_t n) {
  Buffer to(n);
  std::memcpy(to.data(), from.data(), n * sizeof(float));
  return to;
}

// The float's bits (std::bit_cast is missing from Emscripten's libc++).
uint32_t bits(float v) {
  uint32_t out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

// EXPECT_EQ on the bits of the first element that differs (one failure per call, not one per element).
void expect_same_bits(const float* simd, const float* scalar, std::size_t n, const std::string& what) {
  for (std::size_t i = 0; i < n; ++i) {
    if (bits(simd[i]) != bits(scalar[i])) {
      EXPECT_EQ(bits(simd[i]), bits(scalar[i]))
          << what << ": index " << i << " of " << n << ", SIMD " << simd[i] << " vs scalar " << scalar[i]
          << " (" << simd_instruction_set() << ")";
      return;
    }
  }
}

void expect_same_bits(float simd, float scalar, const std::string& what) {
  expect_same_bits(&simd, &scalar, 1, what);
}

TEST(KernelsBitExact, DotAndSum) {
  Inputs in(1);
  for (std::size_t n : lengths()) {
    Buffer x(n, in, -2.0f, 2.0f), y(n, in, -2.0f, 2.0f);
    expect_same_bits(dot(x.data(), y.data(), n), fixed_order::dot(x.data(), y.data(), n),
                     "dot n=" + std::to_string(n));
    expect_same_bits(sum(x.data(), n), fixed_order::sum(x.data(), n), "sum n=" + std::to_string(n));
  }
  EXPECT_EQ(bits(dot(nullptr, nullptr, 0)), bits(0.0f));
}

TEST(KernelsBitExact, MatvecOverEveryRowRangeAndDotStrided) {
  Inputs in(2);
  // Past every row block (matvec: 1 or 8 rows per pass; dot_strided: up to 16, two rows to a register on
  // AVX-512 machines) at least twice, with a remainder.
  const std::size_t rows = 35;
  for (std::size_t cols : lengths()) {
    if (cols > 300 && cols != 1000) continue;
    Buffer w(rows * cols, in, -2.0f, 2.0f), x(cols, in, -2.0f, 2.0f), expected(rows);
    fixed_order::matvec(expected.data(), w.data(), x.data(), rows, cols);
    for (std::size_t begin : {0, 3}) {
      Buffer actual(rows);
      matvec(actual.data(), w.data(), x.data(), cols, begin, rows);  // rows [begin, rows), as a thread would
      expect_same_bits(actual.data() + begin, expected.data() + begin, rows - begin,
                       "matvec cols=" + std::to_string(cols) + " from row " + std::to_string(begin));
    }
    // The KV cache's layout: rows a stride apart with other data between them.
    const std::size_t stride = cols + 7;
    Buffer m(rows * stride, in, -2.0f, 2.0f), strided(rows), strided_expected(rows);
    dot_strided(strided.data(), m.data(), stride, rows, x.data(), cols);
    fixed_order::dot_strided(strided_expected.data(), m.data(), stride, rows, x.data(), cols);
    expect_same_bits(strided.data(), strided_expected.data(), rows, "dot_strided n=" + std::to_string(cols));
  }
}

TEST(KernelsBitExact, WeightedRowSum) {
  Inputs in(3);
  for (std::size_t n : lengths()) {
    const std::size_t n_rows = 1 + n % 13, stride = n + 3;
    Buffer m(n_rows * stride, in, -2.0f, 2.0f), weights(n_rows, in, 0.0f, 1.0f), actual(n), expected(n);
    weighted_row_sum(actual.data(), weights.data(), m.data(), stride, n_rows, n);
    fixed_order::weighted_row_sum(expected.data(), weights.data(), m.data(), stride, n_rows, n);
    expect_same_bits(actual.data(), expected.data(), n, "weighted_row_sum n=" + std::to_string(n));
  }
}

TEST(KernelsBitExact, RmsnormAndLayernormWithAndWithoutBiasAndInPlace) {
  Inputs in(4);
  for (std::size_t n : lengths()) {
    const std::string at = " n=" + std::to_string(n);
    Buffer x(n, in, -3.0f, 5.0f), w(n, in, -2.0f, 2.0f), b(n, in, -1.0f, 1.0f);
    Buffer actual(n), expected(n);
    rmsnorm(actual.data(), x.data(), w.data(), n, 1e-5f);
    fixed_order::rmsnorm(expected.data(), x.data(), w.data(), n, 1e-5f);
    expect_same_bits(actual.data(), expected.data(), n, "rmsnorm" + at);

    for (const float* bias : {static_cast<const float*>(b.data()), static_cast<const float*>(nullptr)}) {
      layernorm(actual.data(), x.data(), w.data(), bias, n, 1e-5f);
      fixed_order::layernorm(expected.data(), x.data(), w.data(), bias, n, 1e-5f);
      expect_same_bits(actual.data(), expected.data(), n,
                       std::string("layernorm") + (bias ? "" : " no bias") + at);
    }
    // In place (out == x), as the forward pass calls them.
    Buffer in_place = copy_of(x, n);
    layernorm(in_place.data(), in_place.data(), w.data(), b.data(), n, 1e-5f);
    fixed_order::layernorm(expected.data(), x.data(), w.data(), b.data(), n, 1e-5f);
    expect_same_bits(in_place.data(), expected.data(), n, "layernorm in place" + at);
  }
}

// An input equal to 0 (or to the mean) times a negative weight is -0.0f. The vector body of norms.cpp keeps
// that sign; its scalar tail used to add `bias ? bias[i] : 0.0f`, and -0.0f + 0.0f is +0.0f, so which
// elements lost the sign depended on the SIMD width (n = 6: all of them with 8 lanes, none of the first 4
// with 4).
// The tail now adds the bias only when there is one, as the vector body does; this test failed before.
TEST(KernelsBitExact, NormsKeepTheSignOfZeroWithoutBias) {
  for (std::size_t n : lengths()) {
    Buffer x(n), w(n), actual(n), expected(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = i % 3 == 0 ? 0.0f : 1.0f + static_cast<float>(i % 5);
      w[i] = -1.0f;
    }
    rmsnorm(actual.data(), x.data(), w.data(), n, 1e-5f);
    fixed_order::rmsnorm(expected.data(), x.data(), w.data(), n, 1e-5f);
    expect_same_bits(actual.data(), expected.data(), n, "rmsnorm n=" + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i)
      x[i] = i % 3 == 0 ? 2.0f : static_cast<float>(i % 2) * 4.0f;  // mean 2 wherever n % 6 == 0
    layernorm(actual.data(), x.data(), w.data(), nullptr, n, 1e-5f);
    fixed_order::layernorm(expected.data(), x.data(), w.data(), nullptr, n, 1e-5f);
    expect_same_bits(actual.data(), expected.data(), n, "layernorm n=" + std::to_string(n));
  }
}

TEST(KernelsBitExact, SoftmaxWithEveryKindOfLimit) {
  Inputs in(5);
  for (std::size_t n : lengths()) {
    for (std::size_t limit : {n, n / 2 + 1, std::size_t{1}, std::size_t{0}}) {
      Buffer actual(n, in, -30.0f, 30.0f);
      Buffer expected = copy_of(actual, n);
      softmax(actual.data(), n, limit);
      fixed_order::softmax(expected.data(), n, limit);
      expect_same_bits(actual.data(), expected.data(), n,
                       "softmax n=" + std::to_string(n) + " limit=" + std::to_string(limit));
    }
  }
}

// Random values plus the edges of exp_approx's range (underflow to 0, saturation), signed zeros and a
// subnormal, placed at varying lanes. (No NaN or infinity: WebAssembly leaves a NaN's sign and payload to the
// engine, so NaN bits are not part of the claim.)
Buffer activation_inputs(std::size_t n, Inputs& in) {
  const float edges[] = {0.0f, -0.0f, 1e-40f, -87.2f, -87.4f, -100.0f, 87.9f, 88.5f, 100.0f, -1e30f, 1e30f};
  Buffer x(n, in, -12.0f, 12.0f);
  for (std::size_t k = 0; k < std::size(edges); ++k)
    if (n > 2 * k) x[(n / 2 + k * 7) % n] = edges[k];
  return x;
}

TEST(KernelsBitExact, ExpBasedActivationsAndRelu) {
  Inputs in(6);
  using Kernel = void (*)(float*, std::size_t);
  const struct {
    const char* name;
    Kernel simd;
    Kernel scalar;
  } kernels[] = {{"silu", silu, fixed_order::silu},
                 {"gelu_tanh", gelu_tanh, fixed_order::gelu_tanh},
                 {"gelu_erf", gelu_erf, fixed_order::gelu_erf},
                 {"relu", relu, fixed_order::relu}};
  for (const auto& k : kernels) {
    for (std::size_t n : lengths()) {
      Buffer actual = activation_inputs(n, in);
      Buffer expected = copy_of(actual, n);
      k.simd(actual.data(), n);
      k.scalar(expected.data(), n);
      expect_same_bits(actual.data(), expected.data(), n, std::string(k.name) + " n=" + std::to_string(n));
    }
  }
  for (std::size_t n : lengths()) {
    Buffer gate = activation_inputs(n, in), up(n, in, -2.0f, 2.0f);
    Buffer expected = copy_of(gate, n);
    swiglu(gate.data(), up.data(), n);
    fixed_order::swiglu(expected.data(), up.data(), n);
    expect_same_bits(gate.data(), expected.data(), n, "swiglu n=" + std::to_string(n));
  }
}

// rope and the element-wise updates already use the kernels' operations in reference.cpp / a plain loop.
TEST(KernelsBitExact, RopeAndElementwise) {
  Inputs in(7);
  for (std::size_t n : lengths()) {
    const std::string at = " n=" + std::to_string(n);
    for (RopePairing pairing : {RopePairing::Adjacent, RopePairing::HalfSplit}) {
      const std::size_t rotary = n - n % 2;  // an odd n leaves its last value alone
      Buffer cos_table(rotary / 2 + 1, in, -1.0f, 1.0f), sin_table(rotary / 2 + 1, in, -1.0f, 1.0f);
      Buffer actual(n, in, -2.0f, 2.0f);
      Buffer expected = copy_of(actual, n);
      rope(actual.data(), cos_table.data(), sin_table.data(), rotary, pairing);
      reference::rope(expected.data(), cos_table.data(), sin_table.data(), rotary, pairing);
      expect_same_bits(
          actual.data(), expected.data(), n,
          std::string(pairing == RopePairing::Adjacent ? "rope adjacent" : "rope half-split") + at);
    }
    Buffer x(n, in, -2.0f, 2.0f), y(n, in, -2.0f, 2.0f);
    Buffer added = copy_of(x, n), scaled = copy_of(x, n), axpyd = copy_of(x, n), expected(n);
    add_in_place(added.data(), y.data(), n);
    scale_in_place(scaled.data(), 0.3f, n);
    axpy(axpyd.data(), -1.7f, y.data(), n);
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = x[i] + y[i];
    expect_same_bits(added.data(), expected.data(), n, "add_in_place" + at);
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = x[i] * 0.3f;
    expect_same_bits(scaled.data(), expected.data(), n, "scale_in_place" + at);
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = x[i] + -1.7f * y[i];
    expect_same_bits(axpyd.data(), expected.data(), n, "axpy" + at);
  }
}

// FNV-1a over the bits of every fixed-order result on fixed inputs. The tests above tie each SIMD kernel to
// these scalar loops within one build; this number ties the scalar loops of every build together (the native
// suite and the WebAssembly suite must both print and expect it). It changes only when a kernel's arithmetic
// changes on purpose, and then the new value goes here.
TEST(KernelsBitExact, FixedOrderChecksumIsTheSameOnEveryPlatform) {
  uint64_t hash = 14695981039346656037ull;
  const auto add = [&](const float* v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      for (int byte = 0; byte < 4; ++byte)
        hash = (hash ^ ((bits(v[i]) >> (8 * byte)) & 0xff)) * 1099511628211ull;
  };
  Inputs in(8);
  for (std::size_t n : {1, 7, 33, 100, 300}) {
    Buffer x(n, in, -3.0f, 3.0f), y(n, in, -3.0f, 3.0f), out(n);
    const float d = fixed_order::dot(x.data(), y.data(), n), s = fixed_order::sum(x.data(), n);
    add(&d, 1), add(&s, 1);
    fixed_order::rmsnorm(out.data(), x.data(), y.data(), n, 1e-5f), add(out.data(), n);
    fixed_order::layernorm(out.data(), x.data(), y.data(), nullptr, n, 1e-5f), add(out.data(), n);
    Buffer scores(n, in, -30.0f, 30.0f);
    fixed_order::softmax(scores.data(), n, n), add(scores.data(), n);
    Buffer act = activation_inputs(n, in);
    Buffer act2 = copy_of(act, n);
    fixed_order::silu(act.data(), n), add(act.data(), n);
    fixed_order::gelu_tanh(act2.data(), n), add(act2.data(), n);
  }
  std::printf("fixed-order kernel checksum: %016llx\n", static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0x7984fa05694ffa54ull)
      << "the fixed-order kernels' bits changed on " << simd_instruction_set();
}

}  // namespace
}  // namespace glassbox::kernels
