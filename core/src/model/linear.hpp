// Weight-type dispatch for the forward pass: matrix-vector products and embedding lookups over any DType.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "glassbox/tensor.hpp"
#include "kernels/matmul.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/quantized_int_matmul.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {

// Scratch for the matrix products, sized once with the session (from the widest matrix row), so a product
// never allocates: per-worker rows for decoding 16-bit and quantized weights, and for the integer kernels
// (kernels/quantized_int_dot.hpp) the quantized activations of up to max_tokens() tokens, their token-major
// columns, and per-worker integer rows (kernels/quantized_int_matmul.hpp). A session sizes it for its whole
// prefill chunk, so that a batched product decodes every weight row once.
class DecodeScratch {
 public:
  // max_tokens >= 1: the most tokens a batched product quantizes at once (the session's prefill chunk).
  DecodeScratch(int workers, std::size_t max_cols, std::size_t max_tokens);
  // The bytes such a scratch holds, for the session's memory estimate (run_state_bytes).
  static int64_t bytes(int workers, std::size_t max_cols, std::size_t max_tokens);
  // The worker's decoded (or copied) rows: kernels::matmul_tile_rows() of them, kernels::matmul_row_stride(cols)
  // floats apart for rows of cols <= max_cols values (a matrix-vector product uses the first).
  float* row(int worker) {
    return rows_.data() + static_cast<std::size_t>(worker) * tile_rows_ * row_stride_;
  }
  // Room for the float batched product's tokens, packed (kernels::pack_token_tiles: up to max_tokens() of
  // max_cols values), and each worker's scratch for it (kernels::matmul_rows).
  float* packed_tokens() { return packed_tokens_.data(); }
  float* matmul_scratch(int worker) {
    return matmul_scratch_.data() + static_cast<std::size_t>(worker) * matmul_scratch_stride_;
  }
  std::size_t max_cols() const { return stride_; }
  std::size_t max_tokens() const { return slots_.size(); }

  // Quantizes x (cols values, a multiple of 32, at most max_cols) into token slot `slot` (< max_tokens()).
  // Threads may quantize distinct slots at once; the products read them only after all are done.
  kernels::QuantizedActivations quantize(std::size_t slot, const float* x, std::size_t cols);
  // The first `tokens` slots as columns (kernels::fill_activation_columns), laid out by the pool's threads
  // (on one thread, 2-5% of a quantized prompt that the second thread waited for).
  kernels::ActivationColumns columns(std::size_t tokens, std::size_t cols, DType type, ThreadPool& pool);
  kernels::IntMatmulScratch int_rows(int worker);

 private:
  std::size_t stride_, row_stride_, tile_rows_, matmul_scratch_stride_;
  std::vector<float> rows_, packed_tokens_, matmul_scratch_;
  std::vector<int8_t> q_;
  std::vector<float> d_;
  std::vector<int32_t> sums16_, sums32_;
  std::vector<kernels::QuantizedActivations> slots_;
  std::vector<float> column_q_, column_d_, column_xsum_;
  std::vector<uint8_t> column_bytes_;
  std::vector<float> int_w_, int_scales_;
  std::vector<int8_t> int_bytes_;
  std::vector<int16_t> int_groups_;
  std::vector<int32_t> int_sums_;
  std::vector<int8_t> int_high_;
  std::vector<int16_t> int_wide_;
};

// Whether a product with w takes the integer kernels: its type has them and its rows are whole activation
// blocks (every such type's blocks are).
bool uses_int_dot(const Tensor& w);

// One matrix product of the forward pass: out = w x (+ bias, where present). Several of them that read the
// same x (the query, key and value projections; the gate and the up projection) go in together.
struct Projection {
  float* out;
  const Tensor& w;
  const Tensor& bias;
};

// out[rows] = w[rows][cols] * x[cols] (+ bias), rows split across the pool's threads.
void linear(float* out, const Tensor& w, const Tensor& bias, const float* x, ThreadPool& pool,
            DecodeScratch& scratch);
// The same for each projection, all of the same x (every w has x's cols): x is quantized once for all those
// the integer kernels take, and the rows of all of them are split across the threads in one go (one wake-up
// instead of one per matrix). Each output has the bits linear() gives it alone.
void linear(std::span<const Projection> projections, const float* x, ThreadPool& pool,
            DecodeScratch& scratch);

// out[cols] = row `row` of w, decoded to float.
void embedding_row(float* out, const Tensor& w, int64_t row);

}  // namespace glassbox
