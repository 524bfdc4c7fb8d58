// The numeric kernels of the forward pass. Each optimized kernel (namespace glassbox::kernels) has a plain
// scalar twin in glassbox::kernels::reference, written as the textbook formula; tests compare the two on
// random inputs. All pointers may be unaligned; lengths may be any value >= 0.
//
// Determinism: the optimized kernels give bit-identical results whatever the SIMD width (SSE4.1/WASM
// SIMD128 with 4 lanes, AVX2 with 8, AVX-512 machines with 8, or 16 where lanes are tokens), so the same
// model and seed produce the same tokens natively and in the browser. Two rules make that so:
//   1. Reductions (dot products, sums) always accumulate into kReductionLanes = 8 partial sums, partial j
//      holding the terms whose index is j modulo 8 in increasing order, and finish with the same fixed
//      pairwise tree (partial[j] += partial[j + h] for h = 4, 2, 1). Eight, because that is what the
//      hardware holds naturally: one AVX2 register per row (AVX-512 machines use its 256-bit half), two for
//      SSE and WebAssembly SIMD128, so a decode matvec keeps several rows' sums in registers and a
//      register-blocked prompt product (matmul.cpp) has few partial sums to finish per (row, token).
//   2. No fused multiply-add (the build passes -ffp-contract=off) and no library transcendental functions:
//      exp is our own polynomial (exp_approx.hpp), evaluated lane by lane with the same operations.
#pragma once

#include <cstddef>

#include "glassbox/config.hpp"  // RopePairing

namespace glassbox::kernels {

inline constexpr std::size_t kReductionLanes = 8;

// Name of the instruction set the kernels were compiled for ("avx2", "sse4.1", "wasm-simd128", ...).
const char* simd_instruction_set();

// --- reductions ------------------------------------------------------------------------------------------
float dot(const float* x, const float* y, std::size_t n);
float sum(const float* x, std::size_t n);

// --- matrix-vector product: out[r] = sum_c w[r*cols + c] * x[c], for rows [row_begin, row_end) -------------
// w is row-major [rows][cols] float32. Only rows in the range are written, so threads can split the rows.
void matvec(float* out, const float* w, const float* x, std::size_t cols, std::size_t row_begin,
            std::size_t row_end);

// --- attention over cached rows (keys and values of one head, row_stride floats apart) -------------------
// out[t] = dot(rows + t * row_stride, x, n) for t < n_rows: a query against every cached key.
void dot_strided(float* out, const float* rows, std::size_t row_stride, std::size_t n_rows, const float* x,
                 std::size_t n);
// out[0, n) = sum_t weights[t] * (rows + t * row_stride)[0, n): the attention-weighted sum of values, summed
// in order of t.
void weighted_row_sum(float* out, const float* weights, const float* rows, std::size_t row_stride,
                      std::size_t n_rows, std::size_t n);

// --- element-wise ------------------------------------------------------------------------------------------
void add_in_place(float* x, const float* y, std::size_t n);   // x += y
void scale_in_place(float* x, float s, std::size_t n);        // x *= s
void axpy(float* y, float a, const float* x, std::size_t n);  // y += a * x

// --- normalization -----------------------------------------------------------------------------------------
// out = x / sqrt(mean(x^2) + eps) * weight
void rmsnorm(float* out, const float* x, const float* weight, std::size_t n, float eps);
// out = (x - mean) / sqrt(var + eps) * weight + bias   (bias may be null)
void layernorm(float* out, const float* x, const float* weight, const float* bias, std::size_t n, float eps);

// --- softmax over x[0, limit), in place; x[limit, n) is set to 0 (the causal mask: a query at position p
// sees keys 0..p, so limit = p + 1). limit must be <= n; limit == 0 zeroes everything. ----------------------
void softmax(float* x, std::size_t n, std::size_t limit);
inline void softmax(float* x, std::size_t n) {
  softmax(x, n, n);
}

// --- activations, in place
// -----------------------------------------------------------------------------------
void silu(float* x, std::size_t n);                        // x * sigmoid(x)
void swiglu(float* gate, const float* up, std::size_t n);  // gate = silu(gate) * up
void gelu_tanh(float* x, std::size_t n);                   // GPT-2's tanh approximation
void gelu_erf(float* x, std::size_t n);                    // exact, 0.5 x (1 + erf(x / sqrt 2)) (BERT)
void relu(float* x, std::size_t n);

// --- rotary position embedding
// -------------------------------------------------------------------------------- Rotates pairs of x (one
// head, head_dim values) by angles pos * freq[i], given as cos/sin tables of rotary_dim/2 entries. Adjacent
// pairing rotates (x[2i], x[2i+1]) (llama2.c, GGUF "normal"); half-split pairing rotates (x[i], x[i +
// rotary_dim/2]) (GPT-NeoX, Hugging Face Llama, Qwen2). Values past rotary_dim are left alone (partial rotary
// embedding).
void rope(float* x, const float* cos_table, const float* sin_table, std::size_t rotary_dim,
          RopePairing pairing);

namespace reference {
float dot(const float* x, const float* y, std::size_t n);
float sum(const float* x, std::size_t n);
void matvec(float* out, const float* w, const float* x, std::size_t rows, std::size_t cols);
void dot_strided(float* out, const float* rows, std::size_t row_stride, std::size_t n_rows, const float* x,
                 std::size_t n);
void weighted_row_sum(float* out, const float* weights, const float* rows, std::size_t row_stride,
                      std::size_t n_rows, std::size_t n);
void rmsnorm(float* out, const float* x, const float* weight, std::size_t n, float eps);
void layernorm(float* out, const float* x, const float* weight, const float* bias, std::size_t n, float eps);
void softmax(float* x, std::size_t n, std::size_t limit);
void silu(float* x, std::size_t n);
void swiglu(float* gate, const float* up, std::size_t n);
void gelu_tanh(float* x, std::size_t n);
void gelu_erf(float* x, std::size_t n);
void relu(float* x, std::size_t n);
void rope(float* x, const float* cos_table, const float* sin_table, std::size_t rotary_dim,
          RopePairing pairing);
}  // namespace reference

}  // namespace glassbox::kernels
