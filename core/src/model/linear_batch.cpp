// Weight-type dispatch for a batch: float32 weights go straight to the blocked matmul (long rows copied first,
// so that they spread over L1: kernels::matmul_copies_rows); the types with integer
// kernels quantize each token's vector as linear() does (so every token gets linear()'s bits) and multiply
// them a chunk of tokens at a time, each weight row read once per chunk; other 16-bit and quantized
// weights are decoded one row at a time into the worker's scratch row, which then meets every token's vector
// while it is in L1. Decoding once per batch instead of once per token is most of the gain for them.
#include "model/linear_batch.hpp"

#include <algorithm>

#include "kernels/kernels.hpp"
#include "kernels/matmul.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_int_matmul.hpp"
#include "model/dtype.hpp"

namespace glassbox {
namespace {

void int_dot_batch(float* out, const Tensor& w, const float* x, std::size_t tokens, ThreadPool& pool,
                   DecodeScratch& scratch) {
  const auto rows = static_cast<std::size_t>(w.rows), cols = static_cast<std::size_t>(w.cols);
  const auto row_bytes = static_cast<std::size_t>(tensor_bytes(w.type, 1, w.cols));
  for (std::size_t t0 = 0; t0 < tokens; t0 += scratch.max_tokens()) {
    const std::size_t n = std::min(tokens - t0, scratch.max_tokens());
    for (std::size_t t = 0; t < n; ++t)
      scratch.quantize(t, x + (t0 + t) * cols, cols);
    const kernels::ActivationColumns columns = scratch.columns(n, cols, w.type);
    auto run = [&](std::size_t begin, std::size_t end, int worker) {
      kernels::int_matmul(out + t0 * rows, rows, w.type, w.data, row_bytes, cols, columns, begin, end,
                          scratch.int_rows(worker));
    };
    if (pool.size() == 1 || rows < static_cast<std::size_t>(pool.size())) {
      run(0, rows, 0);
    } else {
      pool.parallel_for(rows, run);
    }
  }
}

void float_batch(float* out, const Tensor& w, const float* x, std::size_t tokens, ThreadPool& pool,
                 DecodeScratch& scratch) {
  const auto rows = static_cast<std::size_t>(w.rows), cols = static_cast<std::size_t>(w.cols);
  const auto row_bytes = static_cast<std::size_t>(tensor_bytes(w.type, 1, w.cols));
  const std::size_t tile = kernels::matmul_tile_rows();
  for (std::size_t t0 = 0; t0 < tokens; t0 += scratch.max_tokens()) {
    const std::size_t n = std::min(tokens - t0, scratch.max_tokens());
    const kernels::PackedTokens packed = scratch.pack_tokens(x + t0 * cols, n, cols);
    // Float rows are read in place unless they are long and fall into half of L1's sets (matmul.hpp);
    // decoded rows are written where the kernel reads them best.
    const bool in_place = w.type == DType::F32 && !kernels::matmul_copies_rows(cols);
    const std::size_t stride = kernels::matmul_row_stride(cols);
    auto run = [&](std::size_t begin, std::size_t end, int worker) {
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
        kernels::matmul_rows(out + t0 * rows + r, rows, tile_rows, count, packed,
                             scratch.matmul_scratch(worker));
      }
    };
    // A batch is enough work per thread wake-up for any matrix with a few rows per thread.
    if (pool.size() == 1 || rows < static_cast<std::size_t>(pool.size())) {
      run(0, rows, 0);
    } else {
      pool.parallel_for(rows, run);
    }
  }
}

}  // namespace

void linear_batch(float* out, const Tensor& w, const Tensor& bias, const float* x, std::size_t tokens,
                  ThreadPool& pool, DecodeScratch& scratch) {
  if (tokens == 1) return linear(out, w, bias, x, pool, scratch);
  if (uses_int_dot(w)) {
    int_dot_batch(out, w, x, tokens, pool, scratch);
  } else {
    float_batch(out, w, x, tokens, pool, scratch);
  }
  const auto rows = static_cast<std::size_t>(w.rows);
  if (bias.present())
    for (std::size_t t = 0; t < tokens; ++t)
      kernels::add_in_place(out + t * rows, bias.f32(), rows);
}

}  // namespace glassbox
