// How far an attention variant's rows are from exact attention's, head by head, on the same q and k: the exact
// session's own (Session::attention_detail recomputes them from its residual trace, bit for bit). A variant's
// row at query p is what it weighs the keys by:
//   window, global-window   the softmax over the keys its mask leaves (model/visible_keys.hpp)
//   linear, performer       the implied weights phi(q)·phi(k_j) / sum_j phi(q)·phi(k_j), j <= p
//   low-rank                the head's exact matrix truncated to rank R, future weights set to 0
#include <algorithm>
#include <cmath>

#include "glassbox/attention_lab.hpp"
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

// One head's exact matrix and the variant's over the positions `exact` has run (projection: Performer's).
Result<HeadAttentionPair> head_pair(const Session& exact, const AttentionVariant& variant, int layer,
                                    int head, const std::vector<float>& projection) {
  const ModelConfig& c = exact.model().config;
  const int n = exact.position();
  const auto size = static_cast<std::size_t>(n);
  VisibleKeys visible{c, layer, 0, size};
  visible.restrict_to(variant);
  HeadAttentionPair pair{n, std::vector<float>(size * size, 0.0f), std::vector<double>(size * size, 0.0), -1};
  std::vector<float> scores(size);
  std::vector<double> variant_row(size);
  for (int p = 0; p < n; ++p) {
    GLASSBOX_ASSIGN(const AttentionDetail d, exact.attention_detail(layer, head, p));
    const auto row = static_cast<std::size_t>(p) * size;
    std::copy(d.probabilities.begin(), d.probabilities.end(),
              pair.exact.begin() + static_cast<std::ptrdiff_t>(row));
    std::fill(variant_row.begin(), variant_row.end(), 0.0);
    const bool variant_here = variant.applies_to(layer);
    if (variant_here && variant.uses_features()) {
      feature_row(variant, d, projection, variant_row);
    } else if (!variant_here ||
               variant.kind != AttentionKind::LowRank) {  // exact and the masks: the forward pass's softmax
      const KeyRange range = visible.of(static_cast<std::size_t>(p));
      std::copy(d.dots.begin(), d.dots.end(), scores.begin());
      probabilities_from_scores(scores.data(), range.begin, range.end, static_cast<std::size_t>(c.head_dim),
                                score_bias(c, static_cast<std::size_t>(head), static_cast<std::size_t>(p)),
                                visible.hidden(static_cast<std::size_t>(p)));
      for (std::size_t j = 0; j < range.end; ++j)
        variant_row[j] = scores[j];
    }
    std::copy(variant_row.begin(), variant_row.end(),
              pair.variant.begin() + static_cast<std::ptrdiff_t>(row));
  }
  if (variant.applies_to(layer) && variant.kind == AttentionKind::LowRank) {
    const LowRankApproximation a = best_rank_approximation(pair.exact, n, n, variant.rank);
    pair.energy_kept = a.energy_kept;
    for (std::size_t i = 0; i < size; ++i) {
      const KeyRange range = visible.of(i);
      for (std::size_t j = range.begin; j < range.end; ++j)
        pair.variant[i * size + j] = a.matrix[i * size + j];
    }
  }
  return pair;
}

Result<void> check_pair_request(const Session& exact, const AttentionVariant& variant) {
  if (!exact.attention().is_exact())
    return error(ErrorCode::BadArgument,
                 "attention row errors are measured against a session running exact attention");
  return check_attention_variant(variant);
}

std::vector<float> projection_of(const Session& exact, const AttentionVariant& variant) {
  if (variant.kind != AttentionKind::Performer) return {};
  return performer_projection(variant.features, exact.model().config.head_dim, variant.seed);
}

}  // namespace

Result<HeadAttentionPair> head_attention_pair(const Session& exact, const AttentionVariant& variant,
                                              int layer, int head) {
  GLASSBOX_TRY(check_pair_request(exact, variant));
  const ModelConfig& c = exact.model().config;
  if (layer < 0 || layer >= c.n_layers || head < 0 || head >= c.n_heads)
    return error(ErrorCode::BadArgument, "layer ", layer, " head ", head, " is outside the model's ",
                 c.n_layers, " layers of ", c.n_heads, " heads");
  return head_pair(exact, variant, layer, head, projection_of(exact, variant));
}

Result<std::vector<AttentionRowError>> attention_row_errors(const Session& exact,
                                                            const AttentionVariant& variant) {
  GLASSBOX_TRY(check_pair_request(exact, variant));
  const ModelConfig& c = exact.model().config;
  const std::vector<float> projection = projection_of(exact, variant);
  std::vector<AttentionRowError> errors;
  for (int layer = 0; layer < c.n_layers; ++layer) {
    for (int head = 0; head < c.n_heads; ++head) {
      GLASSBOX_ASSIGN(const HeadAttentionPair pair, head_pair(exact, variant, layer, head, projection));
      const auto size = static_cast<std::size_t>(pair.n);
      AttentionRowError e{layer, head, 0, 0, pair.energy_kept};
      std::size_t count = 0;
      for (std::size_t i = 0; i < size; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
          const double diff =
              std::abs(static_cast<double>(pair.exact[i * size + j]) - pair.variant[i * size + j]);
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
