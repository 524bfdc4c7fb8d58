// Weight-type dispatch: float32 weights go straight to the SIMD matvec; the block types with integer kernels
// (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS: kernels/quantized_int_dot.hpp) meet x quantized to 8 bits, as in ggml; other 16-bit and
// block-quantized weights take the fused decode-and-dot kernels (kernels/quantized_dot.hpp), which decode in registers and give
// the same bits as decoding each row into a buffer and taking the canonical dot product. So every weight
// type shares one reduction order (and the decoding is exactly ggml's). The decode-then-dot path remains for
// a type without a fused kernel (none today: every decodable type has one).
#include "model/linear.hpp"

#include <algorithm>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/quantized.hpp"
#include "kernels/quantized_dot.hpp"
#include "kernels/quantized_int_dot.hpp"
#include "model/dtype.hpp"

namespace glassbox {
namespace {

// Rows per task: enough work per thread wake-up to be worth it.
constexpr std::size_t kMinRowsPerChunk = 16;

void decoded_matvec(float* out, const Tensor& w, const float* x, std::size_t begin, std::size_t end,
                    float* row) {
  const auto cols = static_cast<std::size_t>(w.cols);
  const auto row_bytes = static_cast<std::size_t>(tensor_bytes(w.type, 1, w.cols));
  for (std::size_t r = begin; r < end; ++r) {
    kernels::dequantize_row(w.type, w.data + r * row_bytes, row, cols);
    out[r] = kernels::dot(row, x, cols);
  }
}

}  // namespace

DecodeScratch::DecodeScratch(int workers, std::size_t max_cols, std::size_t max_tokens)
    : stride_(max_cols),
      row_stride_(kernels::matmul_row_stride(max_cols)),
      tile_rows_(kernels::matmul_tile_rows()),
      matmul_scratch_stride_(kernels::matmul_scratch_floats()),
      rows_(workers * tile_rows_ * row_stride_),
      packed_tokens_(kernels::packed_tokens_floats(max_tokens, max_cols)),
      matmul_scratch_(workers * matmul_scratch_stride_),
      q_(max_tokens * max_cols),
      d_(max_tokens * max_cols / kernels::kActivationBlock),
      sums16_(max_tokens * max_cols / 16),
      sums32_(max_tokens * max_cols / kernels::kActivationBlock),
      slots_(max_tokens),
      column_q_(kernels::activation_lanes(max_tokens) * max_cols),
      column_d_(kernels::activation_lanes(max_tokens) * max_cols / kernels::kActivationBlock),
      column_xsum_(column_d_.size()),
      column_bytes_(column_q_.size()),
      int_w_(workers * kernels::kIntMatmulRows * max_cols),
      int_scales_(2 * workers * kernels::kIntMatmulRows * max_cols / kernels::kActivationBlock),
      int_bytes_(int_w_.size()),
      int_groups_(int_w_.size() / 16),
      int_sums_(int_w_.size() / 16),
      int_high_(int_w_.size()),
      int_wide_(int_w_.size()) {}

int64_t DecodeScratch::bytes(int workers, std::size_t max_cols, std::size_t max_tokens) {
  const auto cols = static_cast<int64_t>(max_cols), rows = static_cast<int64_t>(kernels::kIntMatmulRows);
  const int64_t blocks = cols / kernels::kActivationBlock, groups = cols / 16;
  // Per worker: the decoded float rows and the float product's scratch; the integer rows (floats, bytes
  // twice, 16-bit weights, group scales and sums, scales). Then the float product's packed tokens.
  const int64_t per_worker =
      4 * static_cast<int64_t>(kernels::matmul_tile_rows() * kernels::matmul_row_stride(max_cols)) +
      4 * static_cast<int64_t>(kernels::matmul_scratch_floats()) +
      rows * (8 * cols + 6 * groups + 8 * blocks);
  // Per token: its quantized values, scales and sums; per column lane: the floats, bytes, scales and sums.
  const int64_t per_token = cols + 8 * blocks + 4 * groups, per_lane = 5 * cols + 8 * blocks;
  return workers * per_worker +
         4 * static_cast<int64_t>(kernels::packed_tokens_floats(max_tokens, max_cols)) +
         static_cast<int64_t>(max_tokens) * per_token +
         static_cast<int64_t>(kernels::activation_lanes(max_tokens)) * per_lane;
}

kernels::QuantizedActivations DecodeScratch::quantize(std::size_t slot, const float* x, std::size_t cols) {
  int8_t* q = q_.data() + slot * stride_;
  float* d = d_.data() + slot * (stride_ / kernels::kActivationBlock);
  int32_t* sums16 = sums16_.data() + slot * (stride_ / 16);
  int32_t* sums32 = sums32_.data() + slot * (stride_ / kernels::kActivationBlock);
  kernels::quantize_activations(x, cols, q, d, sums16, sums32);
  return slots_[slot] = {q, d, sums16, sums32};
}

kernels::ActivationColumns DecodeScratch::columns(std::size_t tokens, std::size_t cols, DType type,
                                                  ThreadPool& pool) {
  // Whole groups of 16 lanes per thread, so that no two threads write the same cache line of a column.
  constexpr std::size_t kGroup = 16;
  const std::size_t groups = (kernels::activation_lanes(tokens) + kGroup - 1) / kGroup;
  pool.parallel_for(groups, [&](std::size_t begin, std::size_t end, int) {
    kernels::fill_activation_columns(slots_.data(), tokens, cols, type, column_q_.data(), column_d_.data(),
                                     column_xsum_.data(), column_bytes_.data(), begin * kGroup, end * kGroup);
  });
  return kernels::fill_activation_columns(slots_.data(), tokens, cols, type, column_q_.data(),
                                          column_d_.data(), column_xsum_.data(), column_bytes_.data(), 0, 0);
}

kernels::IntMatmulScratch DecodeScratch::int_rows(int worker) {
  const std::size_t rows = kernels::kIntMatmulRows, scales = rows * stride_ / kernels::kActivationBlock;
  float* s = int_scales_.data() + 2 * static_cast<std::size_t>(worker) * scales;
  const auto at = static_cast<std::size_t>(worker);
  return {int_w_.data() + at * rows * stride_,
          s,
          s + scales,
          int_bytes_.data() + at * rows * stride_,
          int_groups_.data() + at * rows * stride_ / 16,
          int_sums_.data() + at * rows * stride_ / 16,
          int_high_.data() + at * rows * stride_,
          int_wide_.data() + at * rows * stride_};
}

bool uses_int_dot(const Tensor& w) {
  return kernels::has_int_dot(w.type) && w.cols % static_cast<int64_t>(kernels::kActivationBlock) == 0;
}

void linear(float* out, const Tensor& w, const Tensor& bias, const float* x, ThreadPool& pool,
            DecodeScratch& scratch) {
  const Projection projection{out, w, bias};
  linear(std::span(&projection, 1), x, pool, scratch);
}

void linear(std::span<const Projection> projections, const float* x, ThreadPool& pool,
            DecodeScratch& scratch) {
  const auto cols = static_cast<std::size_t>(projections.front().w.cols);
  std::size_t total_rows = 0;
  bool int_dot = false;
  for (const Projection& p : projections) {
    total_rows += static_cast<std::size_t>(p.w.rows);
    int_dot = int_dot || uses_int_dot(p.w);
  }
  kernels::QuantizedActivations xq{};
  if (int_dot) xq = scratch.quantize(0, x, cols);  // once, before the workers share it

  // Rows [begin, end) of one matrix.
  auto rows_of = [&](const Projection& p, std::size_t begin, std::size_t end, int worker) {
    const Tensor& w = p.w;
    const auto row_bytes = static_cast<std::size_t>(tensor_bytes(w.type, 1, w.cols));
    if (uses_int_dot(w)) {
      kernels::int_matvec(p.out, w.type, w.data, row_bytes, cols, xq, begin, end);
    } else if (w.type == DType::F32) {
      kernels::matvec(p.out, w.f32(), x, cols, begin, end);
    } else if (kernels::has_fused_dot(w.type)) {
      kernels::fused_matvec(p.out, w.type, w.data, row_bytes, cols, x, begin, end);
    } else {
      decoded_matvec(p.out, w, x, begin, end, scratch.row(worker));
    }
  };
  // Rows [begin, end) of the matrices one after another.
  auto run = [&](std::size_t begin, std::size_t end, int worker) {
    std::size_t first = 0;
    for (const Projection& p : projections) {
      const auto rows = static_cast<std::size_t>(p.w.rows);
      const std::size_t from = std::max(begin, first), to = std::min(end, first + rows);
      if (from < to) rows_of(p, from - first, to - first, worker);
      first += rows;
    }
  };
  pool.parallel_for(total_rows, run, kMinRowsPerChunk * 2);
  for (const Projection& p : projections)
    if (p.bias.present()) kernels::add_in_place(p.out, p.bias.f32(), static_cast<std::size_t>(p.w.rows));
}

void embedding_row(float* out, const Tensor& w, int64_t row) {
  const auto row_bytes = tensor_bytes(w.type, 1, w.cols);
  kernels::dequantize_row(w.type, w.data + row * row_bytes, out, static_cast<std::size_t>(w.cols));
}

}  // namespace glassbox
