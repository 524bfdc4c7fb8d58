// How far an attention variant's rows are from exact attention's, head by head, on the same q and k: the exact
// session's own (Session::attention_detail recomputes them from its residual trace, bit for bit). A variant's
// row at query p is what it weighs the keys by:
//   window, global-window   the softmax over the keys its mask leaves (model/visible_keys.hpp)
//   linear, performer       the implied weights phi(q)·phi(k_j) / sum_j phi(q)·phi(k_j), j <= p
//   low-rank                the head's exact matrix truncated to rank R, future weights set to 0
#include <algorithm>
#include <cmath>

#include "glassbox/effective_rank.hpp"
#include "glassbox/error.hpp"
#include "glassbox/score.hpp"
#include "glassbox/session.hpp"
#include "model/feature_maps.hpp"
#include "model/layer_steps.hpp"
#include "model/visible_keys.hpp"

namespace glassbox {
namespace {

// The implied weights of a feature attention over keys first..p of one query: phi(q)·phi(k_j), normalized,
// in double (a Performer key's features come divided by e^m_j: multiplied back relative to the largest m).
void feature_row(const AttentionVariant& v, const AttentionDetail& d, const std::vector<float>& projection,
                 std::vector<double>& row) {
  const auto hd = static_cast<std::size_t>(d.head_dim);
  const std::size_t features = v.kind == AttentionKind::Linear ? hd : static_cast<std::size_t>(v.features);
  std::vector<float> phi_q(features), phi_k(features);
  std::vector<double> logs(static_cast<std::size_t>(d.keys), 0.0);
  if (v.kind == AttentionKind::Linear) {
    elu_plus_one(phi_q.data(), d.q.data(), hd);
  } else {
    performer_features(phi_q.data(), d.q.data(), projection.data(), features, hd, true);
  }
  double largest = -HUGE_VAL;
  for (int j = d.first_visible_key; j < d.keys; ++j) {
    const float* k = d.key_rows.data() + static_cast<std::size_t>(j) * hd;
    float m = 0;
    if (v.kind == AttentionKind::Linear) {
      elu_plus_one(phi_k.data(), k, hd);
    } else {
      m = performer_features(phi_k.data(), k, projection.data(), features, hd, false);
    }
    double dot = 0;
    for (std::size_t f = 0; f < features; ++f)
      dot += static_cast<double>(phi_q[f]) * phi_k[f];
    row[static_cast<std::size_t>(j)] = dot;
    logs[static_cast<std::size_t>(j)] = m;
    largest = std::max(largest, static_cast<double>(m));
  }
  double total = 0;
  for (int j = d.first_visible_key; j < d.keys; ++j) {
    auto& w = row[static_cast<std::size_t>(j)];
    w *= std::exp(logs[static_cast<std::size_t>(j)] - largest);
    total += w;
  }
  for (int j = d.first_visible_key; j < d.keys; ++j)
    row[static_cast<std::size_t>(j)] /= total;
}

}  // namespace

Result<std::vector<AttentionRowError>> attention_row_errors(const Session& exact,
                                                            const AttentionVariant& variant) {
  if (!exact.attention().is_exact())
    return error(ErrorCode::BadArgument,
                 "attention row errors are measured against a session running exact attention");
  GLASSBOX_TRY(check_attention_variant(variant));
  const ModelConfig& c = exact.model().config;
  const int n = exact.position();
  const auto size = static_cast<std::size_t>(n);
  std::vector<float> projection;
  if (variant.kind == AttentionKind::Performer)
    projection = performer_projection(variant.features, c.head_dim, variant.seed);
  std::vector<AttentionRowError> errors;
  std::vector<float> exact_matrix(size * size), scores(size);
  std::vector<double> variant_matrix(size * size);
  for (int layer = 0; layer < c.n_layers; ++layer) {
    VisibleKeys visible{c, layer, 0, size};
    visible.restrict_to(variant);
    for (int head = 0; head < c.n_heads; ++head) {
      std::fill(exact_matrix.begin(), exact_matrix.end(), 0.0f);
      std::fill(variant_matrix.begin(), variant_matrix.end(), 0.0);
      for (int p = 0; p < n; ++p) {
        GLASSBOX_ASSIGN(const AttentionDetail d, exact.attention_detail(layer, head, p));
        const auto row = static_cast<std::size_t>(p) * size;
        std::copy(d.probabilities.begin(), d.probabilities.end(),
                  exact_matrix.begin() + static_cast<std::ptrdiff_t>(row));
        std::vector<double> variant_row(size, 0.0);
        if (variant.uses_features()) {
          feature_row(variant, d, projection, variant_row);
        } else if (variant.kind !=
                   AttentionKind::LowRank) {  // exact and the masks: the forward pass's softmax
          const KeyRange range = visible.of(static_cast<std::size_t>(p));
          std::copy(d.dots.begin(), d.dots.end(), scores.begin());
          probabilities_from_scores(
              scores.data(), range.begin, range.end, static_cast<std::size_t>(c.head_dim),
              score_bias(c, static_cast<std::size_t>(head), static_cast<std::size_t>(p)),
              visible.hidden(static_cast<std::size_t>(p)));
          for (std::size_t j = 0; j < range.end; ++j)
            variant_row[j] = scores[j];
        }
        std::copy(variant_row.begin(), variant_row.end(),
                  variant_matrix.begin() + static_cast<std::ptrdiff_t>(row));
      }
      double energy_kept = -1;
      if (variant.kind == AttentionKind::LowRank) {
        const LowRankApproximation a = best_rank_approximation(exact_matrix, n, n, variant.rank);
        energy_kept = a.energy_kept;
        for (std::size_t i = 0; i < size; ++i) {
          const KeyRange range = visible.of(i);
          for (std::size_t j = range.begin; j < range.end; ++j)
            variant_matrix[i * size + j] = a.matrix[i * size + j];
        }
      }
      AttentionRowError e{layer, head, 0, 0, energy_kept};
      std::size_t count = 0;
      for (std::size_t i = 0; i < size; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
          const double diff =
              std::abs(static_cast<double>(exact_matrix[i * size + j]) - variant_matrix[i * size + j]);
          e.max_abs = std::max(e.max_abs, diff);
          e.mean_abs += diff;
          ++count;
        }
      e.mean_abs /= static_cast<double>(std::max<std::size_t>(count, 1));
      errors.push_back(e);
    }
  }
  return errors;
}

}  // namespace glassbox
