// Rotary position embedding: each pair of a head's values is rotated by the angle pos * freq_i, so the dot
// product of a rotated query and key depends only on their distance. The caller passes this position's
// cos/sin tables (rotary_dim / 2 entries).
#include "simd.hpp"

namespace glassbox::kernels {
namespace {

struct SwapPairs {  // lane order 1,0,3,2,...: puts x[2i+1] beside x[2i]
  static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};
struct AlternatingSign {  // -1,+1,-1,+1,...
  static constexpr bool get(unsigned i, unsigned) { return (i & 1u) == 0; }
};

// Each cos/sin entry, repeated for both values of its pair: c0 c0 c1 c1 ... (a scalar loop: xsimd 8.1's
// zip_lo interleaves within 128-bit halves on AVX, which is not this).
Batch repeat_pairwise(const float* table, std::size_t pairs) {
  alignas(64) float lanes[kWidth] = {};
  for (std::size_t i = 0; i < pairs; ++i)
    lanes[2 * i] = lanes[2 * i + 1] = table[i];
  return Batch::load_aligned(lanes);
}

// (x[2i], x[2i+1]) -> (x[2i] cos - x[2i+1] sin, x[2i+1] cos + x[2i] sin)
Batch rotate_adjacent(Batch x, Batch c, Batch s) {
  const auto negate_even = xsimd::make_batch_bool_constant<Batch, AlternatingSign>();
  const Batch signed_s = xsimd::select(negate_even, -s, s);
  const Batch swapped = xsimd::swizzle(x, xsimd::make_batch_constant<UintBatch, SwapPairs>());
  return x * c + swapped * signed_s;
}

void rope_adjacent(float* x, const float* cos_table, const float* sin_table, std::size_t rotary_dim) {
  const std::size_t pairs = rotary_dim / 2;
  constexpr std::size_t kPairsPerBatch = kWidth / 2;
  for (std::size_t p = 0; p < pairs; p += kPairsPerBatch) {
    const std::size_t pairs_here = std::min(kPairsPerBatch, pairs - p);
    const Batch c = repeat_pairwise(cos_table + p, pairs_here);
    const Batch s = repeat_pairwise(sin_table + p, pairs_here);
    float* at = x + 2 * p;
    if (pairs_here == kPairsPerBatch) {
      rotate_adjacent(Batch::load_unaligned(at), c, s).store_unaligned(at);
    } else {
      store_partial(at, rotate_adjacent(load_partial(at, 2 * pairs_here), c, s), 2 * pairs_here);
    }
  }
}

// (x[i], x[i+h]) -> (x[i] cos - x[i+h] sin, x[i+h] cos + x[i] sin), h = rotary_dim / 2
void rope_half_split(float* x, const float* cos_table, const float* sin_table, std::size_t rotary_dim) {
  const std::size_t half = rotary_dim / 2;
  float* lo = x;
  float* hi = x + half;
  for (std::size_t i = 0; i < half; i += kWidth) {
    const std::size_t n = std::min(kWidth, half - i);
    const Batch c = load_partial(cos_table + i, n), s = load_partial(sin_table + i, n);
    const Batch a = load_partial(lo + i, n), b = load_partial(hi + i, n);
    store_partial(lo + i, a * c - b * s, n);
    store_partial(hi + i, b * c + a * s, n);
  }
}

}  // namespace

void rope(float* x, const float* cos_table, const float* sin_table, std::size_t rotary_dim,
          RopePairing pairing) {
  if (pairing == RopePairing::Adjacent) {
    rope_adjacent(x, cos_table, sin_table, rotary_dim);
  } else {
    rope_half_split(x, cos_table, sin_table, rotary_dim);
  }
}

}  // namespace glassbox::kernels
