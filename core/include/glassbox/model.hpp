// A loaded model: its config and views of its weights, plus whatever keeps the viewed bytes alive.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glassbox/config.hpp"
#include "glassbox/tensor.hpp"

namespace glassbox {

// One transformer block. Absent optional tensors (biases, the gate of a non-gated FFN) have data == null.
struct LayerWeights {
  Tensor attn_norm, attn_norm_bias;                  // [dim]
  Tensor wq, wk, wv;                                 // [q_dim][dim], [kv_dim][dim], [kv_dim][dim]
  Tensor bq, bk, bv;                                 // optional biases
  Tensor q_norm, k_norm;                             // [head_dim], with ModelConfig::qk_norm
  Tensor wo, bo;                                     // [dim][q_dim], optional [dim]
  Tensor attn_post_norm;                             // [dim], NormPlacement::Sandwich: on attention's output
  Tensor ffn_norm, ffn_norm_bias;                    // [dim]
  Tensor ffn_gate, ffn_up, ffn_down;                 // [hidden][dim], [hidden][dim], [dim][hidden]
  Tensor ffn_gate_bias, ffn_up_bias, ffn_down_bias;  // optional
  Tensor ffn_post_norm;                              // [dim], NormPlacement::Sandwich: on the FFN's output
};

// A masked-language-model head (BERT's): the logits at a position of the encoder's final states x are
//   h = LayerNorm(gelu(dense x + dense_bias)),   logits = token_embedding h + output_bias
// (the decoder tied to the token embedding). Absent (dense.data == null) in a model saved without it.
struct MaskedLmHead {
  Tensor dense, dense_bias;  // [dim][dim], [dim]
  Tensor norm, norm_bias;    // [dim]
  Tensor output_bias;        // [vocab]
  bool present() const { return dense.present(); }
};

struct ModelWeights {
  Tensor token_embedding;                      // [vocab][dim]
  Tensor position_embedding;                   // [max_seq_len][dim], only for PositionKind::Learned
  Tensor token_type_embedding;                 // [n_token_types][dim], where ModelConfig::n_token_types > 0
  Tensor embedding_norm, embedding_norm_bias;  // [dim], with ModelConfig::embedding_norm
  std::vector<LayerWeights> layers;
  Tensor final_norm, final_norm_bias;  // [dim]; absent for Post-LN models
  Tensor output;                       // [vocab][dim]; the token embedding when tied
  MaskedLmHead masked_lm;              // encoders saved with their MLM head
};

struct Model {
  ModelConfig config;
  ModelWeights weights;
  // Owners of the bytes the tensors view (a memory-mapped file, a heap buffer, converted tensors).
  std::vector<std::shared_ptr<const void>> storage;

  // Number of weights, counting a tied classifier once.
  int64_t parameter_count() const;
  // Bytes of weight data, counting a tied classifier once.
  int64_t weight_bytes() const;
};

// Calls visit(name, tensor) for every present tensor, in the order of the structs above, with the names the
// engine gives them whatever the file called them: "token_embedding", "layers.3.wq", "final_norm", "output"
// (a tied classifier is visited once, as "token_embedding").
void for_each_weight(const ModelWeights& weights,
                     const std::function<void(const std::string& name, const Tensor& tensor)>& visit);

}  // namespace glassbox
