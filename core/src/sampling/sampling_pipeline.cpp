// The sampling pipeline view: the sampler's own steps, with the intermediate distributions kept.
#include "glassbox/sampling_pipeline.hpp"

#include <algorithm>
#include <numeric>

#include "sampling/sampling_steps.hpp"

namespace glassbox {
namespace {

// The top_n ids by logit, highest first; equal logits in id order.
std::vector<int> highest_logits(std::span<const float> logits, int top_n) {
  std::vector<int> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  const auto keep = static_cast<std::size_t>(std::clamp(top_n, 0, static_cast<int>(order.size())));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](int a, int b) { return logits[a] != logits[b] ? logits[a] > logits[b] : a < b; });
  order.resize(keep);
  return order;
}

}  // namespace

SamplingPipeline sampling_pipeline(std::span<const float> logits, const SamplerSettings& settings,
                                   int top_n) {
  SamplingPipeline out;
  out.vocab_size = static_cast<int>(logits.size());
  if (logits.empty()) return out;
  const std::vector<int> shown = highest_logits(logits, top_n);
  const std::vector<float> at_one = sampling::tempered_probabilities(logits, 1.0f);
  for (int id : shown)
    out.tokens.push_back({.id = id, .logit = logits[id], .p_temperature_1 = at_one[id]});

  if (settings.temperature == 0.0f) {
    const int best = argmax(logits);
    out.top_k_kept = out.top_p_kept = 1;
    for (PipelineToken& t : out.tokens) {
      const bool kept = t.id == best;
      t.kept_by_top_k = t.kept_by_top_p = kept;
      t.p_temperature = t.p_top_k = t.p_top_p = kept ? 1.0f : 0.0f;
    }
    return out;
  }

  const std::vector<float> tempered = sampling::tempered_probabilities(logits, settings.temperature);
  const sampling::Cut cut = sampling::cut_tail(tempered, settings.top_k, settings.top_p);
  // Where each id stands in the cut's order (-1: not there), to tell what each cut kept.
  std::vector<int> rank(logits.size(), -1);
  for (std::size_t i = 0; i < cut.order.size(); ++i)
    rank[static_cast<std::size_t>(cut.order[i])] = static_cast<int>(i);
  const std::span<const int> candidates(cut.order.data(), cut.top_p_kept);
  const double top_k_mass = cut.top_k_applied ? sampling::mass(tempered, cut.order) : 1.0;
  const double candidate_mass = sampling::mass(tempered, candidates);

  out.top_k_kept = cut.top_k_applied ? static_cast<int>(cut.order.size()) : out.vocab_size;
  out.top_p_kept = static_cast<int>(cut.top_p_kept);
  for (PipelineToken& t : out.tokens) {
    const float p = tempered[static_cast<std::size_t>(t.id)];
    const int r = rank[static_cast<std::size_t>(t.id)];
    t.p_temperature = p;
    t.kept_by_top_k = !cut.top_k_applied || r >= 0;
    t.kept_by_top_p = r >= 0 && static_cast<std::size_t>(r) < cut.top_p_kept;
    if (t.kept_by_top_k) t.p_top_k = cut.top_k_applied ? sampling::renormalized(p, top_k_mass) : p;
    if (t.kept_by_top_p)
      t.p_top_p = sampling::renormalized(p, candidate_mass);  // Sampler::candidates()' value
  }
  return out;
}

}  // namespace glassbox
