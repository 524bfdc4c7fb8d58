#include "model/linear.hpp"

#include <cstring>

#include "kernels/kernels.hpp"

namespace glassbox {
namespace {

// Rows per task: enough work per thread wake-up to be worth it.
constexpr std::size_t kMinRowsPerChunk = 16;

}  // namespace

bool readable(DType type) {
  return type == DType::F32;
}

void linear(float* out, const Tensor& w, const Tensor& bias, const float* x, ThreadPool& pool) {
  const auto rows = static_cast<std::size_t>(w.rows), cols = static_cast<std::size_t>(w.cols);
  const float* weights = w.f32();
  auto run = [&](std::size_t begin, std::size_t end) { kernels::matvec(out, weights, x, cols, begin, end); };
  if (pool.size() == 1 || rows < kMinRowsPerChunk * 2) {
    run(0, rows);
  } else {
    pool.parallel_for(rows, run);
  }
  if (bias.present()) kernels::add_in_place(out, bias.f32(), rows);
}

void embedding_row(float* out, const Tensor& w, int64_t row) {
  const auto cols = static_cast<std::size_t>(w.cols);
  std::memcpy(out, w.f32() + static_cast<std::size_t>(row) * cols, cols * sizeof(float));
}

}  // namespace glassbox
