// The integer dot product kernels (contract and float order: quantized_int_dot.hpp). Four blocks at a time:
// their integer sums come out of quantized_int_lanes.hpp as vectors, are totalled together, and the four
// terms go to the four partial sums at once.
#include "kernels/quantized_int_dot.hpp"

#include <cstdint>

#include "kernels/quantized_int_lanes.hpp"
#include "kernels/quantized_lanes.hpp"
#include "kernels/simd.hpp"

namespace glassbox::kernels {
namespace {

using int_lanes::Sums;

GLASSBOX_INT_INLINE float f16_at(const std::byte* p) {
  const uint16_t bits = lanes::load_u16(p);
#if defined(__F16C__)
  return _cvtsh_ss(bits);  // exact, like the decoder (quantized_lanes.hpp, load_halves)
#else
  return lanes::half_to_float_exact(bits);
#endif
}

// The header's float order: partial sum b % 4, finished pairwise.
// The four partial sums are the lanes of one 4-float vector (SSE2 natively, SIMD128 in WebAssembly) while
// whole groups of four blocks come in (add4), then four floats for the last blocks (add): each partial sum
// sees exactly the scalar operations, so neither form changes a bit. All add4 calls come before any add.
struct Partials {
  using Float4 = xsimd::batch<float, xsimd::sse2>;
  using Int4 = xsimd::batch<int32_t, xsimd::sse2>;
  Float4 p = Float4(0.0f);
  alignas(16) float lanes[4];
  bool in_lanes = false;
  // Blocks b .. b + 3, b a multiple of 4.
  GLASSBOX_INT_INLINE void add4(const float* ws, const float* dx, const int32_t* isum) {
    p = p + (Float4::load_unaligned(ws) * Float4::load_unaligned(dx)) *
                xsimd::to_float(Int4::load_unaligned(isum));
  }
  GLASSBOX_INT_INLINE void add(std::size_t b, float ws, float dx, int32_t isum) {
    if (!in_lanes) spill();
    lanes[b % 4] += (ws * dx) * static_cast<float>(isum);
  }
  GLASSBOX_INT_INLINE float total() {
    if (!in_lanes) spill();
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  }

 private:
  GLASSBOX_INT_INLINE void spill() {
    p.store_aligned(lanes);
    in_lanes = true;
  }
};

// Q8_0: 34-byte blocks, an f16 scale then 32 int8 values.
struct Q8_0 {
  static constexpr std::size_t kBytes = 34;
  GLASSBOX_INT_INLINE static Sums sums(const std::byte* block, const int8_t* x) {
    return int_lanes::dot_signed(int_lanes::load32(block + 2), x);
  }
  GLASSBOX_INT_INLINE static int32_t finish(int32_t isum, const QuantizedActivations&, std::size_t) {
    return isum;
  }
};

// Q4_0: 18-byte blocks, an f16 scale then 16 bytes of nibbles (values 0..15 low, 16..31 high), value q - 8.
// (The 8 comes off the bytes: cheaper than taking 8 times the activations' sum off each block's total.)
struct Q4_0 {
  static constexpr std::size_t kBytes = 18;
  GLASSBOX_INT_INLINE static Sums sums(const std::byte* block, const int8_t* x) {
    return int_lanes::dot_signed(int_lanes::minus(int_lanes::nibbles(block + 2), 8), x);
  }
  GLASSBOX_INT_INLINE static int32_t finish(int32_t isum, const QuantizedActivations&, std::size_t) {
    return isum;
  }
};

template <class Format>
float row_dot(const std::byte* row, const QuantizedActivations& x, std::size_t nblocks) {
  Partials partials;
  std::size_t b = 0;
  for (; b + 4 <= nblocks; b += 4) {
    const std::byte* block = row + b * Format::kBytes;
    const Sums s0 = Format::sums(block, x.q + b * 32);
    const Sums s1 = Format::sums(block + Format::kBytes, x.q + (b + 1) * 32);
    const Sums s2 = Format::sums(block + 2 * Format::kBytes, x.q + (b + 2) * 32);
    const Sums s3 = Format::sums(block + 3 * Format::kBytes, x.q + (b + 3) * 32);
    int32_t isum[4];
    int_lanes::totals4(s0, s1, s2, s3, isum);
    float ws[4];
    for (int k = 0; k < 4; ++k) {
      isum[k] = Format::finish(isum[k], x, b + k);
      ws[k] = f16_at(block + k * Format::kBytes);
    }
    partials.add4(ws, x.d + b, isum);
  }
  for (; b < nblocks; ++b) {
    const std::byte* block = row + b * Format::kBytes;
    const int32_t isum = Format::finish(int_lanes::total(Format::sums(block, x.q + b * 32)), x, b);
    partials.add(b, f16_at(block), x.d[b], isum);
  }
  return partials.total();
}

template <class Format>
void rows_dot(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols,
              const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  for (std::size_t r = row_begin; r < row_end; ++r)
    out[r] = row_dot<Format>(w + r * row_bytes, x, cols / 32);
}

}  // namespace

bool has_int_dot(DType type) {
  return type == DType::Q8_0 || type == DType::Q4_0;
}

void int_matvec(float* out, DType type, const std::byte* w, std::size_t row_bytes, std::size_t cols,
                const QuantizedActivations& x, std::size_t row_begin, std::size_t row_end) {
  switch (type) {
    case DType::Q8_0:
      return rows_dot<Q8_0>(out, w, row_bytes, cols, x, row_begin, row_end);
    case DType::Q4_0:
      return rows_dot<Q4_0>(out, w, row_bytes, cols, x, row_begin, row_end);
    default:
      return;  // has_int_dot(type) is false
  }
}

}  // namespace glassbox::kernels
