// Weight-type dispatch: float32 weights go straight to the SIMD matvec; 16-bit and block-quantized weights
// are decoded one row at a time into a small buffer and then take the same canonical dot product, so every
// weight type shares one reduction order (and the decoding is exactly ggml's).
#include "model/linear.hpp"

#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/quantized.hpp"
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

void linear(float* out, const Tensor& w, const Tensor& bias, const float* x, ThreadPool& pool,
            DecodeScratch& scratch) {
  const auto rows = static_cast<std::size_t>(w.rows), cols = static_cast<std::size_t>(w.cols);
  auto run = [&](std::size_t begin, std::size_t end, int worker) {
    if (w.type == DType::F32) {
      kernels::matvec(out, w.f32(), x, cols, begin, end);
    } else {
      decoded_matvec(out, w, x, begin, end, scratch.row(worker));
    }
  };
  if (pool.size() == 1 || rows < kMinRowsPerChunk * 2) {
    run(0, rows, 0);
  } else {
    pool.parallel_for(rows, run);
  }
  if (bias.present()) kernels::add_in_place(out, bias.f32(), rows);
}

void embedding_row(float* out, const Tensor& w, int64_t row) {
  const auto row_bytes = tensor_bytes(w.type, 1, w.cols);
  kernels::dequantize_row(w.type, w.data + row * row_bytes, out, static_cast<std::size_t>(w.cols));
}

}  // namespace glassbox
