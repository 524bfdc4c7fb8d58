// The anatomy's formulas (glassbox/anatomy.hpp), written from the config's shapes; only element types and
// the presence of biases come from the tensors.
#include "glassbox/anatomy.hpp"

#include <utility>

#include "model/dtype.hpp"

namespace glassbox {
namespace {

// A rows x cols weight of the type the model stores it in (absent or not: the shape comes from the config).
ComponentSize weight(const Tensor& t, int64_t rows, int64_t cols) {
  return {rows * cols, tensor_bytes(t.type, rows, cols)};
}

// An optional vector: counted only when the model has it.
ComponentSize optional_vector(const Tensor& t, int64_t n) {
  return t.present() ? weight(t, 1, n) : ComponentSize{};
}

void add(ComponentSize& to, ComponentSize what) {
  to.parameters += what.parameters;
  to.bytes += what.bytes;
}

}  // namespace

ModelAnatomy model_anatomy(const Model& model) {
  const ModelConfig& c = model.config;
  const ModelWeights& w = model.weights;
  const int64_t d = c.dim, h = c.hidden_dim, V = c.vocab_size, q = c.q_dim(), kv = c.kv_dim();
  ModelAnatomy a;
  a.token_embedding = weight(w.token_embedding, V, d);
  if (c.position == PositionKind::Learned)
    a.position_embedding = weight(w.position_embedding, c.max_seq_len, d);
  if (!c.tied_embeddings) a.output = weight(w.output, V, d);

  for (const LayerWeights& l : w.layers) {
    add(a.attention_q, weight(l.wq, q, d));
    add(a.attention_k, weight(l.wk, kv, d));
    add(a.attention_v, weight(l.wv, kv, d));
    add(a.attention_o, weight(l.wo, d, q));
    if (c.gated_ffn) add(a.feed_forward, weight(l.ffn_gate, h, d));
    add(a.feed_forward, weight(l.ffn_up, h, d));
    add(a.feed_forward, weight(l.ffn_down, d, h));
    add(a.norms, weight(l.attn_norm, 1, d));
    add(a.norms, weight(l.ffn_norm, 1, d));
    if (c.norm_placement == NormPlacement::Sandwich) {
      add(a.norms, weight(l.attn_post_norm, 1, d));
      add(a.norms, weight(l.ffn_post_norm, 1, d));
    }
    if (c.qk_norm) {
      add(a.norms, weight(l.q_norm, 1, c.head_dim));
      add(a.norms, weight(l.k_norm, 1, c.head_dim));
    }
    const std::pair<const Tensor*, int64_t> bias_vectors[] = {{&l.bq, q},
                                                              {&l.bk, kv},
                                                              {&l.bv, kv},
                                                              {&l.bo, d},
                                                              {&l.ffn_gate_bias, h},
                                                              {&l.ffn_up_bias, h},
                                                              {&l.ffn_down_bias, d},
                                                              {&l.attn_norm_bias, d},
                                                              {&l.ffn_norm_bias, d}};
    for (const auto& [t, n] : bias_vectors)
      add(a.biases, optional_vector(*t, n));
  }
  if (c.pre_norm()) add(a.norms, weight(w.final_norm, 1, d));
  if (c.embedding_norm) {  // BLOOM's (and an encoder's) LayerNorm of the embeddings
    add(a.norms, weight(w.embedding_norm, 1, d));
    add(a.biases, optional_vector(w.embedding_norm_bias, d));
  }
  add(a.biases, optional_vector(w.final_norm_bias, d));

  for (const ComponentSize& part :
       {a.token_embedding, a.position_embedding, a.output, a.attention_q, a.attention_k, a.attention_v,
        a.attention_o, a.feed_forward, a.norms, a.biases})
    add(a.total, part);

  // Everything but the embedding tables is read whole for each token; of those, one row each.
  const ComponentSize classifier = c.tied_embeddings ? a.token_embedding : a.output;
  a.bytes_read_per_token =
      a.total.bytes - a.token_embedding.bytes - a.position_embedding.bytes - a.output.bytes +
      classifier.bytes + tensor_bytes(w.token_embedding.type, 1, d) +
      (c.position == PositionKind::Learned ? tensor_bytes(w.position_embedding.type, 1, d) : 0);
  return a;
}

TokenFlops flops_per_token(const ModelConfig& c, int sequence_length) {
  const int64_t d = c.dim, h = c.hidden_dim, V = c.vocab_size, q = c.q_dim(), kv = c.kv_dim(), L = c.n_layers;
  const int64_t n = sequence_length;
  TokenFlops f;
  f.attention_projections = L * 2 * (q * d + 2 * kv * d + d * q);
  f.attention_scores = L * 2 * n * q * 2;
  f.feed_forward = L * 2 * (c.gated_ffn ? 3 : 2) * h * d;
  f.output = 2 * V * d;
  f.total = f.attention_projections + f.attention_scores + f.feed_forward + f.output;
  return f;
}

}  // namespace glassbox
