// Effective rank of an attention matrix, as seed 002 §3.2 defines it: with the singular values
// s_1 >= s_2 >= ... >= s_r (those <= kNegligibleSingularValue dropped), the smallest k for which
//     (s_1 + ... + s_k) / (s_1 + ... + s_r) >= kEffectiveRankThreshold (0.99),
// i.e. numpy's searchsorted(cumsum(s) / sum(s), 0.99) + 1. It says how many independent directions the head's
// mixing really uses: 1 when every query reads the same blend of keys, n when each reads its own key.
//
// The threshold is on a sum, so a matrix with n equal singular values has effective rank ceil(0.99 n): the
// n x n identity has rank n for n < 100 but n - 1 for 100 <= n <= 199, n - 2 up to 299, and so on.
#pragma once

#include <span>
#include <vector>

namespace glassbox {

inline constexpr double kEffectiveRankThreshold = 0.99;    // the seed's choice
inline constexpr double kNegligibleSingularValue = 1e-10;  // the seed drops these before summing

// The singular values of a rows x cols row-major matrix, largest first, computed in double by one-sided
// (Hestenes) Jacobi: plane rotations orthogonalize the rows until every pair is orthogonal to 1e-10 of their
// norms, and the singular values are then the rows' norms (values below 1e-13 of the largest are noise).
// Written here rather than taken from a library: Debian has no small C++ SVD we want to depend on (LAPACK or
// Eigen for one routine), and Jacobi is short, accurate for small singular values and deterministic (a fixed
// pair order and fixed-order sums, so every platform gets the same bits).
// Cost: each sweep visits min(rows, cols)^2 / 2 pairs at about 8 max(rows, cols) flops each (2 for a pair
// already orthogonal, which only needs its inner product); peaked attention matrices take 10 to 15 sweeps:
// about 1 ms for n = 64, 8 ms for n = 128 and 75 ms for n = 256 on one core of this project's x86 build
// machine (an exp(N(0, 3)) random causal matrix, -O3). Empty input gives no values.
std::vector<double> singular_values(std::span<const float> matrix, int rows, int cols);

// A matrix's best rank-R approximation in the Frobenius norm (Eckart-Young: its SVD truncated to the R
// largest singular values), by the same Jacobi rotations, kept as they go (J): the rotated rows are the
// singular values times the right singular vectors, and the approximation is J^T times the R largest of
// them (for rows <= cols, as an attention matrix, which is square). energy_kept is the share of the
// squared singular values they hold (sum_{i<=R} s_i^2 / sum s_i^2), 1 for a zero matrix. Empty on bad sizes.
struct LowRankApproximation {
  std::vector<float> matrix;  // rows x cols, row-major
  double energy_kept = 0;
};
LowRankApproximation best_rank_approximation(std::span<const float> matrix, int rows, int cols, int rank);

// The effective rank from singular values sorted largest first; 0 when none is above
// kNegligibleSingularValue.
int effective_rank(std::span<const double> singular_values_descending,
                   double threshold = kEffectiveRankThreshold);

// The effective rank of an n x n row-major matrix (an attention matrix: row q holds query q's probabilities
// over keys 0..q and zeros after).
int effective_rank(std::span<const float> matrix, int n);

}  // namespace glassbox
