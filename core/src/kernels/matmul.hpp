// Matrix-matrix product for a batch of tokens: every output is the canonical dot product (kernels.hpp) of
// one weight row with one token's vector, so a batch gives bit for bit what dot() / matvec() give token by
// token, whatever the batch size, the SIMD width or the thread that computes it.
//
// How (matmul.cpp): the canonical dot keeps 8 partial sums, partial j adding the products of the values
// j, j + 8, j + 16, ... in that order. The batched kernel computes the same partial sums with SIMD lanes
// holding tokens instead of values, so that one load of the tokens' values feeds several rows and one
// broadcast weight several tokens. For that the tokens are packed once per batch (pack_tokens), value
// j + 8 k of each token at [j][k], tokens side by side; the rows are read where they are.
#pragma once

#include <cstddef>

namespace glassbox::kernels {

// Rows matmul_rows takes at once (at most kMaxMatmulTileRows, whatever the instruction set).
std::size_t matmul_tile_rows();
inline constexpr std::size_t kMaxMatmulTileRows = 8;

// A batch of tokens packed for matmul_rows (built by pack_tokens into a buffer of packed_tokens_floats).
struct PackedTokens {
  const float* data;
  std::size_t tokens, n;
};
std::size_t packed_tokens_floats(std::size_t n_tokens, std::size_t n);
PackedTokens pack_tokens(const float* x, std::size_t n_tokens, std::size_t n, float* packed);
// The same, a part at a time: the tokens lie in token_tiles(n_tokens) tiles of matmul_tile_tokens(), each
// packed on its own, so threads can share the packing (tiles [tile_begin, tile_end) here). Token t's values
// start at x + t * x_stride (x_stride >= n: one head's queries among all heads').
std::size_t matmul_tile_tokens();
std::size_t token_tiles(std::size_t n_tokens);
void pack_token_tiles(const float* x, std::size_t x_stride, std::size_t n_tokens, std::size_t n,
                      float* packed, std::size_t tile_begin, std::size_t tile_end);
// Tile `tile` of packed tokens on its own: x's tokens from tile * matmul_tile_tokens() on.
PackedTokens token_tile(const PackedTokens& x, std::size_t tile);

// Where matmul_rows finds its rows best. It reads them one partial sum at a time, every 8th value, so the
// tile's rows come back 8 times: they must stay in L1. With the earlier order (32 partial sums, every 32nd
// value) it touched every other 64-byte line of a row, and rows an even number of lines apart (in place,
// n * 4 bytes) put those lines in only half of L1's sets: on a Zen 3, 110M's down projection (768 rows of
// n = 2048, 32 to 256 tokens) ran 13-14 GMAC/s in place, 17-21 copied to matmul_row_stride(n) floats apart,
// an odd number of lines. The 8-partial order touches every line, which weakens that reason; on the AVX-512
// machine copying and not copying measured the same (110M, 256-token prompts: 408-426 against 419-420
// tokens/s), and on AVX2 it was not re-measured, so the copy stays for long rows (n >= 1024).
std::size_t matmul_row_stride(std::size_t n);
bool matmul_copies_rows(std::size_t n);

// The floats of scratch matmul_rows needs (per thread): the partial sums of one tile.
std::size_t matmul_scratch_floats();

// out[t * out_stride + r] = dot(rows[r], token t, n) for r < count (at most matmul_tile_rows()) and every token
// of x. Only those outputs are written, so threads can split the rows.
void matmul_rows(float* out, std::size_t out_stride, const float* const* rows, std::size_t count,
                 const PackedTokens& x, float* scratch);

// out[t * out_stride + r] = dot(w + r * n, x + t * n, n) for r < n_rows, t < n_tokens. w is row-major
// [n_rows][n], x is [n_tokens][n]. The same as packing x and calling matmul_rows on every tile of rows, with
// buffers of its own (allocated here: the forward pass keeps them in its scratch instead).
void matmul(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
            std::size_t n_tokens, std::size_t n);

namespace reference {
// The textbook triple loop (one running sum per output): agrees with matmul to rounding, not bit for bit.
void matmul(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
            std::size_t n_tokens, std::size_t n);
}  // namespace reference

}  // namespace glassbox::kernels
