#include "glassbox/neurons.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "glassbox/error.hpp"
#include "glassbox/token_ids.hpp"
#include "model/forward.hpp"
#include "model/run_state.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {
constexpr int kChunk = 64;  // tokens per forward pass: the run state's scratch stays small for long texts
}  // namespace

int64_t top_neurons_bytes(const ModelConfig& c, int n) {
  const int64_t kv = int64_t{2} * c.n_layers * c.kv_dim();
  return int64_t{n} * (3 * int64_t{c.hidden_dim} + kv) * static_cast<int64_t>(sizeof(float));
}

Result<NeuronReport> top_neurons(std::shared_ptr<const Model> model, std::span<const int> ids, int layer,
                                 int position, int k, int per_neuron, int threads) {
  if (!model) return error(ErrorCode::InvalidState, "neurons: no model");
  const ModelConfig& c = model->config;
  const int n = static_cast<int>(ids.size());
  if (!c.causal)
    return error(ErrorCode::BadArgument, "neurons: this model is an encoder (", c.architecture,
                 "); the neuron view reads a decoder's text");
  if (n == 0) return error(ErrorCode::BadArgument, "neurons: there are no tokens to read");
  if (n > c.max_seq_len)
    return error(ErrorCode::PromptTooLong, "neurons: the text has ", n,
                 " tokens, more than the model's context of ", c.max_seq_len);
  GLASSBOX_TRY(check_token_ids(ids, c.vocab_size));
  if (layer < 0 || layer >= c.n_layers)
    return error(ErrorCode::BadArgument, "neurons: layer ", layer, " is outside the model's layers 0 to ",
                 c.n_layers - 1);
  if (position < 0 || position >= n)
    return error(ErrorCode::BadArgument, "neurons: position ", position, " is outside the text's 0 to ",
                 n - 1);
  if (k < 1 || per_neuron < 1)
    return error(ErrorCode::BadArgument, "neurons: k and per_neuron must be at least 1, found ", k, " and ",
                 per_neuron);
  if (threads < 1) return error(ErrorCode::BadArgument, "neurons: threads must be >= 1, found ", threads);

  // One forward pass over the whole text with the layer's feed-forward recorded (model/activation_patch.hpp).
  const auto hidden_dim = static_cast<std::size_t>(c.hidden_dim);
  std::vector<float> pre(static_cast<std::size_t>(n) * hidden_dim), up(pre.size()), hidden(pre.size());
  ThreadPool pool(threads);
  RunState state(c, n, pool.size(), std::min(n, kChunk));
  state.use_attention(c, {});
  state.patch.record_ffn_layer = layer;
  state.patch.record_ffn_pre = pre.data();
  state.patch.record_ffn_up = up.data();
  state.patch.record_ffn_hidden = hidden.data();
  for (int first = 0; first < n; first += kChunk)
    forward(
        *model, state,
        ids.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(std::min(kChunk, n - first))),
        first, nullptr, nullptr, pool);

  NeuronReport report;
  report.layer = layer;
  report.position = position;
  report.gated = c.gated_ffn;
  const float* at = hidden.data() + static_cast<std::size_t>(position) * hidden_dim;
  std::vector<int> order(hidden_dim);
  std::iota(order.begin(), order.end(), 0);
  const auto count = std::min(static_cast<std::size_t>(k), hidden_dim);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](int a, int b) {
                      const float x = std::abs(at[a]), y = std::abs(at[b]);
                      return x > y || (x == y && a < b);
                    });
  std::vector<int> positions(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < count; ++i) {
    const auto neuron = static_cast<std::size_t>(order[i]);
    const std::size_t cell = static_cast<std::size_t>(position) * hidden_dim + neuron;
    report.top.push_back({order[i], hidden[cell], pre[cell], c.gated_ffn ? up[cell] : 0.0f});
    std::iota(positions.begin(), positions.end(), 0);
    const auto value = [&](int p) { return hidden[static_cast<std::size_t>(p) * hidden_dim + neuron]; };
    const auto peaks = std::min(static_cast<std::size_t>(per_neuron), positions.size());
    std::partial_sort(positions.begin(), positions.begin() + static_cast<std::ptrdiff_t>(peaks),
                      positions.end(),
                      [&](int a, int b) { return value(a) > value(b) || (value(a) == value(b) && a < b); });
    std::vector<NeuronReport::Peak> list;
    for (std::size_t j = 0; j < peaks; ++j)
      list.push_back({positions[j], value(positions[j])});
    report.peaks.push_back(std::move(list));
  }
  return report;
}

}  // namespace glassbox
