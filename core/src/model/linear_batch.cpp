// Weight-type dispatch for a batch: float32 weights go straight to the blocked matmul (long rows copied first,
// so that they spread over L1: kernels::matmul_copies_rows); the types with integer kernels quantize each
// token's vector as linear() does (so every token gets linear()'s bits) and multiply them a chunk of tokens
// at a time, each weight row read once per chunk; other 16-bit and quantized weights are decoded one row at a
// time into the worker's scratch row, which then meets every token's vector while it is in L1. Decoding once
// per batch instead of once per token is most of the gain for them.
//
// The projections of one input share its preparation (quantizing, packing), and the threads share that too:
// on one thread it is a few percent of a prompt, on two it was what the second thread waited for.
#include "model/linear_batch.hpp"

#include <algorithm>
#include <optional>

#include "kernels/kernels.hpp"
#include "kernels/matmul.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_int_matmul.hpp"
#include "model/dtype.hpp"

namespace glassbox {
namespace {

// How many of a product's `rows` make one piece for ThreadPool::parallel_pieces: about eight pieces per
// thread, so a thread slowed by other work on its core hands its share to the others, each a whole number of
// `multiple` rows (the kernel's tile). Decoding keeps parallel_for's equal split: there a piece's exchange
// between the cores costs more than it saves (3% on 15M Q4_0 generation, measured).
std::size_t rows_per_piece(std::size_t rows, std::size_t multiple, const ThreadPool& pool) {
  constexpr std::size_t kPiecesPerThread = 8;
  const std::size_t pieces = kPiecesPerThread * static_cast<std::size_t>(pool.active());
  const std::size_t tiles = (rows + multiple - 1) / multiple;
  return std::max<std::size_t>(1, (tiles + pieces - 1) / pieces) * multiple;
}

// out[t][rows] for the chunk's tokens, from their columns (laid out for w's type).
void int_rows(float* out, const Tensor& w, const kernels::ActivationColumns& columns, ThreadPool& pool,
              DecodeScratch& scratch) {
  const auto rows = static_cast<std::size_t>(w.rows), cols = static_cast<std::size_t>(w.cols);
  const auto row_bytes = static_cast<std::size_t>(tensor_bytes(w.type, 1, w.cols));
  const std::size_t piece = rows_per_piece(rows, kernels::kIntMatmulRows, pool);
  pool.parallel_pieces(rows, piece, [&](std::size_t begin, std::size_t end, int worker) {
    kernels::int_matmul(out, rows, w.type, w.data, row_bytes, cols, columns, begin, end,
                        scratch.int_rows(worker));
  });
}

// out[t][rows] for the chunk's tokens, packed.
void float_rows(float* out, const Tensor& w, const kernels::PackedTokens& packed, ThreadPool& pool,
                DecodeScratch& scratch) {
  const auto rows = static_cast<std::size_t>(w.rows), cols = static_cast<std::size_t>(w.cols);
  const auto row_bytes = static_cast<std::size_t>(tensor_bytes(w.type, 1, w.cols));
  const std::size_t tile = kernels::matmul_tile_rows();
  // Float rows are read in place unless they are long and fall into half of L1's sets (matmul.hpp);
  // decoded rows are written where the kernel reads them best.
  const bool in_place = w.type == DType::F32 && !kernels::matmul_copies_rows(cols);
  const std::size_t stride = kernels::matmul_row_stride(cols);
  const std::size_t piece = rows_per_piece(rows, tile, pool);
  pool.parallel_pieces(rows, piece, [&](std::size_t begin, std::size_t end, int worker) {
    float* scratch_rows = scratch.row(worker);
    for (std::size_t r = begin; r < end; r += tile) {
      const std::size_t count = std::min(tile, end - r);
      const float* tile_rows[kernels::kMaxMatmulTileRows];
      for (std::size_t i = 0; i < count; ++i) {
        if (in_place) {
          tile_rows[i] = w.f32() + (r + i) * cols;
          continue;
        }
        float* to = scratch_rows + i * stride;
        if (w.type == DType::F32) {
          std::copy_n(w.f32() + (r + i) * cols, cols, to);
        } else {
          kernels::dequantize_row(w.type, w.data + (r + i) * row_bytes, to, cols);
        }
        tile_rows[i] = to;
      }
      kernels::matmul_rows(out + r, rows, tile_rows, count, packed, scratch.matmul_scratch(worker));
    }
  });
}

}  // namespace

void linear_batch(std::span<const Projection> projections, const float* x, std::size_t tokens,
                  ThreadPool& pool, DecodeScratch& scratch) {
  if (tokens == 1) return linear(projections, x, pool, scratch);
  const auto cols = static_cast<std::size_t>(projections.front().w.cols);
  bool any_int = false, any_float = false;
  for (const Projection& p : projections)
    (uses_int_dot(p.w) ? any_int : any_float) = true;

  for (std::size_t t0 = 0; t0 < tokens; t0 += scratch.max_tokens()) {
    const std::size_t n = std::min(tokens - t0, scratch.max_tokens());
    const float* chunk = x + t0 * cols;
    // The chunk's input, prepared once for every projection: each token quantized, the tokens packed.
    if (any_int)
      pool.parallel_for(n, [&](std::size_t begin, std::size_t end, int) {
        for (std::size_t t = begin; t < end; ++t)
          scratch.quantize(t, chunk + t * cols, cols);
      });
    const kernels::PackedTokens packed{scratch.packed_tokens(), n, cols};
    if (any_float)
      pool.parallel_for(kernels::token_tiles(n), [&](std::size_t begin, std::size_t end, int) {
        kernels::pack_token_tiles(chunk, cols, n, cols, scratch.packed_tokens(), begin, end);
      });
    // The columns' layout depends on the weight type: laid out again only where the type changes.
    std::optional<DType> laid_out;
    kernels::ActivationColumns columns{};
    for (const Projection& p : projections) {
      float* out = p.out + t0 * static_cast<std::size_t>(p.w.rows);
      if (uses_int_dot(p.w)) {
        if (laid_out != p.w.type) columns = scratch.columns(n, cols, p.w.type, pool);
        laid_out = p.w.type;
        int_rows(out, p.w, columns, pool, scratch);
      } else {
        float_rows(out, p.w, packed, pool, scratch);
      }
    }
  }
  for (const Projection& p : projections) {
    const auto rows = static_cast<std::size_t>(p.w.rows);
    if (p.bias.present())
      for (std::size_t t = 0; t < tokens; ++t)
        kernels::add_in_place(p.out + t * rows, p.bias.f32(), rows);
  }
}

void linear_batch(float* out, const Tensor& w, const Tensor& bias, const float* x, std::size_t tokens,
                  ThreadPool& pool, DecodeScratch& scratch) {
  const Projection projection{out, w, bias};
  linear_batch(std::span(&projection, 1), x, tokens, pool, scratch);
}

}  // namespace glassbox
