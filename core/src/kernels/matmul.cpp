// The batched matrix product (the idea: matmul.hpp). What makes it fast is reuse: in the inner loop one load
// of kGroups vectors of tokens meets kRows broadcast weights, kRows * kGroups products from kRows + kGroups
// loads, where dot() makes one product per load. The 8 partial sums of each (row, token) are made one partial
// at a time (for partial j, the products of values j, j + 8, ... in that order, exactly dot()'s terms and
// order), stored, and then added up by dot()'s tree: partial[j] += partial[j + h] for h = 4, 2, 1, with SIMD
// lanes over tokens.
//
// Why dot()'s bits: every partial sum gets the same products (each a single rounded multiply) added in the
// same order, and the tree adds them the same way. Values past n are packed as zeros on both sides: a
// partial sum starts at +0 and so can never be -0, and adding a product of zeros (+0) leaves it unchanged,
// exactly as dot()'s zero-padded tail.
//
// The tile: kRows rows by kGroups registers of tokens, so the accumulators and the loads fit the register
// file (AVX2: 6 x 2 accumulators, 2 token loads, a broadcast and a product of 16 ymm; AVX-512: 8 x 2 of
// 32 zmm; SSE and WebAssembly SIMD128: 4 x 2, as V8 keeps some of x86's 16 xmm for itself: under Node the
// 110M shape's prompt ran 84-88 tokens/s with 4 rows, 69 with 6). The packed tokens of one tile (kGroups
// registers wide) lie together, so the inner loop reads them in order.
#include "kernels/matmul.hpp"

#include <algorithm>
#include <vector>

#include "dot_rows.hpp"

namespace glassbox::kernels {
namespace {

// The tile's lanes are tokens, so it takes the widest registers (AVX-512's 16 floats where Batch has 8).
using Lanes = WideBatch;
constexpr std::size_t kLanes = kWideWidth;
constexpr std::size_t kPartials = kReductionLanes;
constexpr std::size_t kGroups = 2;
constexpr std::size_t kRows = kLanes >= 16 ? 8 : kLanes == 8 ? 6 : 4;
constexpr std::size_t kTileTokens = kGroups * kLanes;
static_assert(kRows <= kMaxMatmulTileRows);

// Products per partial sum: the values j, j + 8, ... below n, the last ones padded with zeros.
std::size_t steps(std::size_t n) {
  return (n + kPartials - 1) / kPartials;
}
std::size_t tiles(std::size_t n_tokens) {
  return (n_tokens + kTileTokens - 1) / kTileTokens;
}

// The partial sums of kRows rows and the tile's tokens (packed: kTileTokens floats per value), partial j
// into partials[j]: kRows * kGroups vectors, row-major. Partial j takes the values j + 8 k below n: the
// tokens' values past n are packed zeros, but the rows' are past their ends.
GLASSBOX_INLINE void partial_sums(const float* const* rows, const float* tokens, std::size_t n,
                                  std::size_t k_steps, float* partials) {
  for (std::size_t j = 0; j < kPartials; ++j) {
    Lanes acc[kRows][kGroups];
    unrolled<kRows>([&](auto r) __attribute__((always_inline)) {
      unrolled<kGroups>([&](auto g) __attribute__((always_inline)) { acc[r][g] = Lanes(0.0f); });
    });
    const float* x = tokens + j * k_steps * kTileTokens;
    for (std::size_t i = j; i < n; i += kPartials, x += kTileTokens) {
      Lanes xv[kGroups];
      unrolled<kGroups>([&](auto g) __attribute__((always_inline)) {
        xv[g] = Lanes::load_unaligned(x + g * kLanes);
      });
      unrolled<kRows>([&](auto r) __attribute__((always_inline)) {
        const Lanes wv(rows[r][i]);
        unrolled<kGroups>([&](auto g) __attribute__((always_inline)) { acc[r][g] = acc[r][g] + wv * xv[g]; });
      });
    }
    float* out = partials + j * kRows * kTileTokens;
    unrolled<kRows>([&](auto r) __attribute__((always_inline)) {
      unrolled<kGroups>([&](auto g) __attribute__((always_inline)) {
        acc[r][g].store_unaligned(out + (r * kGroups + g) * kLanes);
      });
    });
  }
}

// dot()'s tree over the 8 partial sums of every (row, token) of the tile, left in partials[0].
void partial_tree(float* partials) {
  constexpr std::size_t kSlab = kRows * kTileTokens;
  for (std::size_t half = kPartials / 2; half > 0; half /= 2)
    for (std::size_t j = 0; j < half; ++j) {
      float* to = partials + j * kSlab;
      const float* from = partials + (j + half) * kSlab;
      for (std::size_t i = 0; i < kSlab; i += kLanes)
        (Lanes::load_unaligned(to + i) + Lanes::load_unaligned(from + i)).store_unaligned(to + i);
    }
}

}  // namespace

std::size_t matmul_tile_rows() {
  return kRows;
}

std::size_t packed_tokens_floats(std::size_t n_tokens, std::size_t n) {
  return tiles(n_tokens) * kPartials * steps(n) * kTileTokens;
}

std::size_t matmul_tile_tokens() {
  return kTileTokens;
}

std::size_t token_tiles(std::size_t n_tokens) {
  return tiles(n_tokens);
}

PackedTokens pack_tokens(const float* x, std::size_t n_tokens, std::size_t n, float* packed) {
  pack_token_tiles(x, n, n_tokens, n, packed, 0, tiles(n_tokens));
  return {packed, n_tokens, n};
}

PackedTokens token_tile(const PackedTokens& x, std::size_t tile) {
  const std::size_t first = tile * kTileTokens;
  return {x.data + tile * kPartials * steps(x.n) * kTileTokens, std::min(kTileTokens, x.tokens - first), x.n};
}

void pack_token_tiles(const float* x, std::size_t x_stride, std::size_t n_tokens, std::size_t n,
                      float* packed, std::size_t tile_begin, std::size_t tile_end) {
  const std::size_t k_steps = steps(n);
  for (std::size_t q = tile_begin; q < tile_end; ++q) {
    float* tile = packed + q * kPartials * k_steps * kTileTokens;
    if ((q + 1) * kTileTokens > n_tokens || n % kPartials != 0)
      for (std::size_t i = 0; i < kPartials * k_steps * kTileTokens; ++i)
        tile[i] = 0.0f;
    for (std::size_t c = 0; c < kTileTokens && q * kTileTokens + c < n_tokens; ++c) {
      const float* token = x + (q * kTileTokens + c) * x_stride;
      for (std::size_t i = 0; i < n; ++i)
        tile[((i % kPartials) * k_steps + i / kPartials) * kTileTokens + c] = token[i];
    }
  }
}

std::size_t matmul_row_stride(std::size_t n) {
  constexpr std::size_t kLineFloats = 64 / sizeof(float);
  const std::size_t lines = (n + kLineFloats - 1) / kLineFloats;
  return (lines % 2 == 1 ? lines : lines + 1) * kLineFloats;
}

bool matmul_copies_rows(std::size_t n) {
  return n >= 1024 && n % (2 * 64 / sizeof(float)) == 0;
}

std::size_t matmul_scratch_floats() {
  return kPartials * kRows * kTileTokens;
}

void matmul_rows(float* out, std::size_t out_stride, const float* const* rows, std::size_t count,
                 const PackedTokens& x, float* partials) {
  const std::size_t k_steps = steps(x.n);
  // Rows past count repeat the first (their outputs are not written), so the tile reads only real rows.
  const float* tile_rows[kRows];
  for (std::size_t r = 0; r < kRows; ++r)
    tile_rows[r] = rows[r < count ? r : 0];
  for (std::size_t q = 0; q < tiles(x.tokens); ++q) {
    partial_sums(tile_rows, x.data + q * kPartials * k_steps * kTileTokens, x.n, k_steps, partials);
    partial_tree(partials);
    const std::size_t tokens = std::min(kTileTokens, x.tokens - q * kTileTokens);
    // Token by token, so that each token's outputs are written side by side.
    for (std::size_t c = 0; c < tokens; ++c)
      for (std::size_t r = 0; r < count; ++r)
        out[(q * kTileTokens + c) * out_stride + r] =
            partials[(r * kGroups + c / kLanes) * kLanes + c % kLanes];
  }
}

void matmul(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
            std::size_t n_tokens, std::size_t n) {
  std::vector<float> packed(packed_tokens_floats(n_tokens, n)), scratch(matmul_scratch_floats());
  const PackedTokens tokens = pack_tokens(x, n_tokens, n, packed.data());
  for (std::size_t r = 0; r < n_rows; r += kRows) {
    const float* rows[kRows];
    const std::size_t count = std::min(kRows, n_rows - r);
    for (std::size_t i = 0; i < count; ++i)
      rows[i] = w + (r + i) * n;
    matmul_rows(out + r, out_stride, rows, count, tokens, scratch.data());
  }
}

}  // namespace glassbox::kernels
