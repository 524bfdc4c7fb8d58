// One-sided Jacobi SVD (Hestenes, 1958). Rotating two rows (a_i, a_j) in their plane by the angle that makes
// them orthogonal leaves A's singular values unchanged (it multiplies A by an orthogonal matrix on the left);
// once all rows are mutually orthogonal, A = D Q with Q orthonormal and the singular values are the rows'
// norms. Rows rather than columns because the matrix is row-major: each rotation walks contiguous memory.
#include "glassbox/effective_rank.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace glassbox {
namespace {

// Pairs count as orthogonal when |a_i . a_j| <= this * |a_i| |a_j|. The singular values are then accurate to
// far better than the effective rank's 1% threshold can notice; tighter costs another sweep or two.
constexpr double kOrthogonalTolerance = 1e-10;
// Jacobi converges quadratically once the rotations get small; attention matrices need 5 to 10 sweeps. The
// cap only bounds the time on a pathological input.
constexpr int kMaxSweeps = 60;
// A row whose norm is below this fraction of the largest row's is left alone: rotating it against another row
// moves that row's norm by no more than its own, far below anything the effective rank can see, while
// orthogonalizing such noise-sized rows to full precision would take most of the sweeps.
constexpr double kNegligibleRelative = 1e-13;

// Four partial sums in a fixed order: faster than one running sum (the compiler keeps them in vector lanes)
// and the same bits on every platform.
double dot(const double* a, const double* b, std::size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (; k < n; ++k)
    s0 += a[k] * b[k];
  return (s0 + s1) + (s2 + s3);
}

// Rotates rows a and b by (c, s): a <- c a - s b, b <- s a + c b.
void rotate(double* a, double* b, std::size_t n, double c, double s) {
  for (std::size_t k = 0; k < n; ++k) {
    const double x = a[k], y = b[k];
    a[k] = c * x - s * y;
    b[k] = s * x + c * y;
  }
}

// Rotates the `count` rows of v (`length` values each) until every pair is orthogonal (see the top). With
// `rotations` (count x count, the identity on entry), the same rotations turn it into J with v_out = J v_in.
void orthogonalize_rows(std::vector<double>& v, std::size_t count, std::size_t length,
                        std::vector<double>* rotations = nullptr) {
  auto vec = [&](std::size_t i) { return v.data() + i * length; };
  std::vector<double> norm2(count);
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    // Fresh squared norms each sweep, so the cheap updates below never drift far.
    double largest = 0;
    for (std::size_t i = 0; i < count; ++i) {
      norm2[i] = dot(vec(i), vec(i), length);
      largest = std::max(largest, norm2[i]);
    }
    const double negligible = kNegligibleRelative * kNegligibleRelative * largest;
    bool rotated = false;
    // Pairs in order of decreasing norm (de Rijk, 1989): the large rows settle first, which here halves the
    // number of sweeps that ill-conditioned attention matrices need.
    std::vector<std::size_t> by_norm(count);
    for (std::size_t i = 0; i < count; ++i)
      by_norm[i] = i;
    std::stable_sort(by_norm.begin(), by_norm.end(),
                     [&](std::size_t a, std::size_t b) { return norm2[a] > norm2[b]; });
    for (std::size_t ii = 0; ii + 1 < count; ++ii) {
      for (std::size_t jj = ii + 1; jj < count; ++jj) {
        const std::size_t i = by_norm[ii], j = by_norm[jj];
        const double alpha = norm2[i], beta = norm2[j];
        if (alpha <= negligible || beta <= negligible) continue;
        const double gamma = dot(vec(i), vec(j), length);
        if (std::abs(gamma) <= kOrthogonalTolerance * std::sqrt(alpha * beta)) continue;
        rotated = true;
        // The rotation that zeroes the pair's inner product (Golub and Van Loan, the symmetric Schur step),
        // taking the smaller of the two angles that do.
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        rotate(vec(i), vec(j), length, c, s);
        if (rotations) rotate(rotations->data() + i * count, rotations->data() + j * count, count, c, s);
        norm2[i] = alpha - t * gamma;
        norm2[j] = beta + t * gamma;
      }
    }
    if (!rotated) break;
  }
}

}  // namespace

std::vector<double> singular_values(std::span<const float> matrix, int rows, int cols) {
  if (rows <= 0 || cols <= 0 ||
      matrix.size() < static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    return {};
  // Orthogonalize the shorter side: there are only min(rows, cols) singular values, and the work grows as the
  // square of the number of vectors but only linearly in their length.
  const bool transpose = rows > cols;
  const auto count = static_cast<std::size_t>(transpose ? cols : rows);
  const auto length = static_cast<std::size_t>(transpose ? rows : cols);
  std::vector<double> v(count * length);
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
    for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c) {
      const double x = matrix[r * static_cast<std::size_t>(cols) + c];
      if (transpose)
        v[c * length + r] = x;
      else
        v[r * length + c] = x;
    }
  orthogonalize_rows(v, count, length);

  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = std::sqrt(dot(v.data() + i * length, v.data() + i * length, length));
  std::sort(values.begin(), values.end(), std::greater<>());
  return values;
}

LowRankApproximation best_rank_approximation(std::span<const float> matrix, int rows, int cols, int rank) {
  LowRankApproximation out;
  if (rows <= 0 || cols <= 0 || rank < 0 ||
      matrix.size() < static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    return out;
  const auto n_rows = static_cast<std::size_t>(rows), n_cols = static_cast<std::size_t>(cols);
  // Rotations make A's rows orthogonal: B = J A with J orthogonal, and each nonzero row of B is b_i = s_i q_i,
  // s_i a singular value and q_i its right singular vector (A = J^T B is A's SVD with U = J^T). A's best
  // rank-R approximation (Eckart-Young) keeps the R rows of B of largest norm: A_R = J^T B_R.
  std::vector<double> b(matrix.begin(), matrix.begin() + static_cast<std::ptrdiff_t>(n_rows * n_cols));
  std::vector<double> j(n_rows * n_rows, 0.0);
  for (std::size_t i = 0; i < n_rows; ++i)
    j[i * n_rows + i] = 1.0;
  orthogonalize_rows(b, n_rows, n_cols, &j);
  std::vector<double> norm2(n_rows);
  double total = 0;
  for (std::size_t i = 0; i < n_rows; ++i) {
    norm2[i] = dot(b.data() + i * n_cols, b.data() + i * n_cols, n_cols);
    total += norm2[i];
  }
  std::vector<std::size_t> by_norm(n_rows);
  for (std::size_t i = 0; i < n_rows; ++i)
    by_norm[i] = i;
  std::stable_sort(by_norm.begin(), by_norm.end(),
                   [&](std::size_t a, std::size_t c) { return norm2[a] > norm2[c]; });
  const std::size_t keep = std::min(static_cast<std::size_t>(rank), n_rows);
  std::vector<double> projected(n_rows * n_cols, 0.0);
  double kept = 0;
  for (std::size_t k = 0; k < keep; ++k) {
    const std::size_t i = by_norm[k];
    kept += norm2[i];
    const double* row = b.data() + i * n_cols;
    for (std::size_t r = 0; r < n_rows; ++r) {
      const double weight = j[i * n_rows + r];  // (J^T)[r][i]
      for (std::size_t c = 0; c < n_cols; ++c)
        projected[r * n_cols + c] += weight * row[c];
    }
  }
  out.matrix.assign(projected.begin(), projected.end());
  out.energy_kept = total > 0 ? kept / total : 1.0;
  return out;
}

int effective_rank(std::span<const double> singular_values_descending, double threshold) {
  double total = 0;
  std::size_t kept = 0;
  for (double s : singular_values_descending) {
    if (s <= kNegligibleSingularValue) break;  // sorted: the rest are smaller still
    total += s;
    ++kept;
  }
  if (kept == 0) return 0;
  double sum = 0;
  for (std::size_t k = 0; k < kept; ++k) {
    sum += singular_values_descending[k];
    if (sum / total >= threshold) return static_cast<int>(k + 1);
  }
  return static_cast<int>(kept);  // rounding left the last partial sum a hair under the threshold
}

int effective_rank(std::span<const float> matrix, int n) {
  const std::vector<double> s = singular_values(matrix, n, n);
  return effective_rank(s);
}

}  // namespace glassbox
