#include "glassbox/encoder.hpp"

#include <cmath>

#include "glassbox/ablation.hpp"
#include "glassbox/error.hpp"
#include "glassbox/token_ids.hpp"
#include "kernels/kernels.hpp"
#include "model/forward.hpp"
#include "model/layer_steps.hpp"
#include "model/linear.hpp"
#include "model/run_state.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {
constexpr int64_t kMaxBatchBytes = int64_t{3} << 30;  // as a session's limit: what the WASM heap could hold
}  // namespace

Result<Encoder> Encoder::create(std::shared_ptr<const Model> model, EncoderOptions options) {
  if (!model) return error(ErrorCode::InvalidState, "encoder: no model");
  if (model->config.causal)
    return error(ErrorCode::BadArgument, "this model is a decoder (its attention is causal): it continues ",
                 "text, so generate with it; embeddings and fill-mask need an encoder such as BERT");
  if (options.threads < 1)
    return error(ErrorCode::BadArgument, "encoder: threads must be >= 1, found ", options.threads);
  Encoder encoder;
  encoder.model_ = std::move(model);
  encoder.pool_ = std::make_unique<ThreadPool>(options.threads);
  return encoder;
}

Encoder::Encoder(Encoder&&) noexcept = default;
Encoder& Encoder::operator=(Encoder&&) noexcept = default;
Encoder::~Encoder() = default;

Result<EncodedTexts> Encoder::encode(std::span<const std::vector<int>> texts) {
  return run(texts, nullptr);
}

Result<EncodedTexts> Encoder::encode(std::span<const std::vector<int>> texts, AttentionTrace& attention) {
  return run(texts, &attention);
}

Result<EncodedTexts> Encoder::run(std::span<const std::vector<int>> texts, AttentionTrace* attention) {
  const ModelConfig& c = model_->config;
  if (texts.empty()) return error(ErrorCode::BadArgument, "encode: no texts");
  EncodedTexts out;
  out.dim = c.dim;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::vector<int>& text = texts[i];
    if (text.empty()) return error(ErrorCode::BadArgument, "text ", i + 1, " has no tokens");
    if (static_cast<int64_t>(text.size()) > c.max_seq_len)
      return error(ErrorCode::BadArgument, "text ", i + 1, " has ", text.size(),
                   " tokens, more than the model's ", c.max_seq_len,
                   " positions; glassbox refuses it rather than truncate it: shorten the text");
    if (auto checked = check_token_ids(text, c.vocab_size); !checked)
      return error(checked.error().code, "text ", i + 1, ": ", checked.error().message);
    out.lengths.push_back(static_cast<int>(text.size()));
    out.stride = std::max(out.stride, static_cast<int>(text.size()));
  }
  const auto stride = static_cast<std::size_t>(out.stride);
  const int rows = out.stride * out.texts();
  if (!state_ || state_->batch < rows) {
    const int64_t bytes = run_state_bytes(c, rows, pool_->size(), rows);
    if (bytes > kMaxBatchBytes)
      return error(ErrorCode::OutOfMemory, "encode: ", out.texts(), " texts of up to ", out.stride,
                   " tokens need ", bytes >> 20, " MiB of scratch; encode fewer texts at once");
    state_.reset();
    state_ = std::make_unique<RunState>(c, rows, pool_->size(), rows);
  }
  // The texts side by side, each padded to the longest with token 0 (any id would do: padding is never a key).
  std::vector<int> tokens(static_cast<std::size_t>(rows), 0);
  for (std::size_t i = 0; i < texts.size(); ++i)
    std::copy(texts[i].begin(), texts[i].end(), tokens.begin() + static_cast<std::ptrdiff_t>(i * stride));
  const TextBatch batch{stride, out.lengths};
  if (attention) {  // sized here, so that the forward pass allocates nothing: every row sees its whole text
    *attention = AttentionTrace(c.n_layers, c.n_heads);
    for (int row = 0; row < rows; ++row)  // padding rows too: their queries are computed, then thrown away
      attention->begin_position(row, out.lengths[static_cast<std::size_t>(row / out.stride)]);
  }
  state_->head_scales = head_scales_;
  forward(*model_, *state_, tokens, 0, attention, nullptr, *pool_, &batch);
  const float* states = state_->residual.data();
  out.states.assign(states, states + static_cast<std::size_t>(rows) * static_cast<std::size_t>(c.dim));
  return out;
}

Result<void> Encoder::set_head_scales(std::span<const float> table) {
  GLASSBOX_ASSIGN(head_scales_, head_scales_in_force(model_->config, table));
  return {};
}

Result<std::vector<float>> Encoder::masked_lm_logits(std::span<const float> state) {
  const ModelConfig& c = model_->config;
  const MaskedLmHead& head = model_->weights.masked_lm;
  if (!head.present())
    return error(ErrorCode::BadArgument,
                 "this model has no masked-language-model head (it was saved for embeddings), so it cannot "
                 "fill in [MASK]; use a BertForMaskedLM model");
  if (state.size() != static_cast<std::size_t>(c.dim))
    return error(ErrorCode::BadArgument, "masked_lm_logits: a state has ", c.dim, " values, found ",
                 state.size());
  if (!state_) state_ = std::make_unique<RunState>(c, 1, pool_->size(), 1);
  const auto dim = static_cast<std::size_t>(c.dim);
  std::vector<float> h(dim), normed(dim), logits(static_cast<std::size_t>(c.vocab_size));
  // h = LayerNorm(gelu(dense x + b)), then the decoder tied to the token embedding, plus its bias.
  linear(h.data(), head.dense, head.dense_bias, state.data(), *pool_, state_->decode);
  kernels::gelu_erf(h.data(), dim);
  normalize(c, normed.data(), h.data(), head.norm, head.norm_bias);
  linear(logits.data(), model_->weights.token_embedding, head.output_bias, normed.data(), *pool_,
         state_->decode);
  return logits;
}

Result<std::vector<std::vector<float>>> pool_states(const EncodedTexts& encoded, Pooling pooling,
                                                    bool normalize) {
  if (pooling == Pooling::None)
    return error(ErrorCode::BadArgument, "pooling: choose mean or cls (the model file names none)");
  const auto dim = static_cast<std::size_t>(encoded.dim);
  std::vector<std::vector<float>> embeddings;
  for (int text = 0; text < encoded.texts(); ++text) {
    std::vector<float> e(dim, 0.0f);
    const int length = encoded.lengths[static_cast<std::size_t>(text)];
    if (pooling == Pooling::Cls) {
      const auto first = encoded.state(text, 0);
      e.assign(first.begin(), first.end());
    } else {
      // Summed in double, token by token, then divided: the mean of the text's own tokens, padding left out.
      std::vector<double> sum(dim, 0.0);
      for (int t = 0; t < length; ++t) {
        const auto row = encoded.state(text, t);
        for (std::size_t i = 0; i < dim; ++i)
          sum[i] += row[i];
      }
      for (std::size_t i = 0; i < dim; ++i)
        e[i] = static_cast<float>(sum[i] / length);
    }
    if (normalize) {
      double norm = 0.0;
      for (float v : e)
        norm += static_cast<double>(v) * v;
      norm = std::sqrt(norm);
      if (norm > 0.0)
        for (float& v : e)
          v = static_cast<float>(v / norm);
    }
    embeddings.push_back(std::move(e));
  }
  return embeddings;
}

std::vector<std::vector<float>> cosine_similarities(const std::vector<std::vector<float>>& embeddings) {
  const std::size_t n = embeddings.size();
  std::vector<double> norms(n, 0.0);
  for (std::size_t a = 0; a < n; ++a)
    for (float v : embeddings[a])
      norms[a] += static_cast<double>(v) * v;
  std::vector<std::vector<float>> out(n, std::vector<float>(n, 0.0f));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      double dot = 0.0;
      for (std::size_t i = 0; i < embeddings[a].size() && i < embeddings[b].size(); ++i)
        dot += static_cast<double>(embeddings[a][i]) * embeddings[b][i];
      const double denominator = std::sqrt(norms[a] * norms[b]);
      out[a][b] = denominator > 0.0 ? static_cast<float>(dot / denominator) : 0.0f;
    }
  return out;
}

}  // namespace glassbox
