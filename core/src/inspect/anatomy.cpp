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
  if (w.token_type_embedding.present()) a.token_types = weight(w.token_type_embedding, c.n_token_types, d);
  add(a.norms, optional_vector(w.embedding_norm, d));
  add(a.biases, optional_vector(w.embedding_norm_bias, d));
  const MaskedLmHead& mlm = w.masked_lm;
  if (mlm.present()) {
    add(a.masked_lm_head, weight(mlm.dense, d, d));
    for (const auto& [t, n] :
         {std::pair{&mlm.dense_bias, d}, {&mlm.norm, d}, {&mlm.norm_bias, d}, {&mlm.output_bias, V}})
      add(a.masked_lm_head, optional_vector(*t, n));
  }

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
  // The final norm where the file has one, as the forward pass applies it (Post-LN models usually have none).
  add(a.norms, optional_vector(w.final_norm, d));
  add(a.biases, optional_vector(w.final_norm_bias, d));

  for (const ComponentSize& part :
       {a.token_embedding, a.position_embedding, a.token_types, a.output, a.masked_lm_head, a.attention_q,
        a.attention_k, a.attention_v, a.attention_o, a.feed_forward, a.norms, a.biases})
    add(a.total, part);

  // Everything but the embedding tables and the heads is read whole for each token; of the tables, one row
  // each. A decoder reads its classifier for every token; an encoder reads none (its states are the output:
  // the MLM head runs only at a [MASK]).
  const ComponentSize classifier = !c.causal           ? ComponentSize{}
                                   : c.tied_embeddings ? a.token_embedding
                                                       : a.output;
  const auto row = [&](const Tensor& t) { return t.present() ? tensor_bytes(t.type, 1, d) : 0; };
  a.bytes_read_per_token = a.total.bytes - a.token_embedding.bytes - a.position_embedding.bytes -
                           a.token_types.bytes - a.output.bytes - a.masked_lm_head.bytes + classifier.bytes +
                           row(w.token_embedding) + row(w.position_embedding) + row(w.token_type_embedding);
  return a;
}

TokenFlops flops_per_token(const ModelConfig& c, int sequence_length) {
  const int64_t d = c.dim, h = c.hidden_dim, V = c.vocab_size, q = c.q_dim(), kv = c.kv_dim(), L = c.n_layers;
  const int64_t n = sequence_length;
  TokenFlops f;
  f.attention_projections = L * 2 * (q * d + 2 * kv * d + d * q);
  // Each layer scores the keys its query at position n - 1 sees: all n, or a sliding layer's window
  // (config.first_visible_key, the one statement of that rule).
  for (int layer = 0; layer < c.n_layers; ++layer) {
    const int64_t keys = n - c.first_visible_key(layer, sequence_length - 1);
    f.attention_scores += 2 * keys * q * 2;
  }
  f.feed_forward = L * 2 * (c.gated_ffn ? 3 : 2) * h * d;
  f.output = c.causal ? 2 * V * d : 0;  // an encoder's states are its output: no unembedding per token
  f.total = f.attention_projections + f.attention_scores + f.feed_forward + f.output;
  return f;
}

}  // namespace glassbox
