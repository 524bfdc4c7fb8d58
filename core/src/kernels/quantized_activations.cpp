// The rounding rule is in the header. Vectorized with xsimd, with every step exact or a single IEEE operation
// (the max of magnitudes, one division, one multiplication per value, then rounding by exact steps), so every
// instruction set gives the same integers.
#include "kernels/quantized_activations.hpp"

#include "kernels/quantized.hpp"
#include "kernels/simd.hpp"

namespace glassbox::kernels {
namespace {

static_assert(kActivationBlock % kWidth == 0);
constexpr std::size_t kBatches = kActivationBlock / kWidth;

// round(v), halves away from zero, exactly (for |v| < 2^23): t = trunc(v) and v - t are exact, so the
// comparison with 1/2 decides. (xsimd's round may compute floor(|v| + 0.5), which is wrong just below halves.)
Batch round_half_away(Batch v) {
  const Batch t = xsimd::trunc(v);
  return xsimd::select(xsimd::abs(v - t) >= Batch(0.5f), t + xsimd::copysign(Batch(1.0f), v), t);
}

// kWidth whole numbers in [-127, 127] to bytes.
void store_bytes(Batch v, int8_t* out) {
#if GLASSBOX_AVX512_DQ_VL  // Batch is AVX2's 8 floats here (simd.hpp), with AVX-512VL's narrowing store
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm256_cvtepi32_epi8(_mm256_cvttps_epi32(v)));
#else
  alignas(64) float lanes[kWidth];
  v.store_aligned(lanes);
  for (std::size_t j = 0; j < kWidth; ++j)
    out[j] = static_cast<int8_t>(lanes[j]);
#endif
}

}  // namespace

void quantize_activations(const float* x, std::size_t n, int8_t* q, float* d, int32_t* sums16,
                          int32_t* sums32) {
  for (std::size_t b = 0; b < n / kActivationBlock; ++b, x += kActivationBlock, q += kActivationBlock) {
    Batch v[kBatches];
    Batch amax(0.0f);
    for (std::size_t i = 0; i < kBatches; ++i) {
      v[i] = Batch::load_unaligned(x + i * kWidth);
      v[i] = xsimd::select(v[i] == v[i], v[i], Batch(0.0f));  // NaN counts as 0 (and rounds to 0)
      amax = xsimd::max(amax, xsimd::abs(v[i]));
    }
    alignas(64) float lanes[kWidth];
    amax.store_aligned(lanes);
    float largest = 0.0f;
    for (float m : lanes)
      largest = m > largest ? m : largest;
    const float scale = largest / 127.0f;
    const float inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
    int32_t sums[2] = {0, 0};
    for (std::size_t i = 0; i < kBatches; ++i) {
      const Batch r = round_half_away(v[i] * Batch(inverse));
      // Clamped, and NaN (an infinite value times 0) to 0.
      const Batch clamped =
          xsimd::select(r == r, xsimd::min(xsimd::max(r, Batch(-127.0f)), Batch(127.0f)), Batch(0.0f));
      store_bytes(clamped, q + i * kWidth);
      sums[i * kWidth / 16] += static_cast<int32_t>(xsimd::hadd(clamped));  // whole numbers: an exact sum
    }
    d[b] = half_to_float(float_to_half(scale));
    sums16[2 * b] = sums[0];
    sums16[2 * b + 1] = sums[1];
    sums32[b] = sums[0] + sums[1];
  }
}

}  // namespace glassbox::kernels
