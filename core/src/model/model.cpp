// A loaded model's tensors by name, and its sizes (for display and the benchmark's bytes-per-token figures).
#include "glassbox/model.hpp"

#include "glassbox/error.hpp"
#include "model/dtype.hpp"

namespace glassbox {
namespace {

// Every tensor slot with its name, present or not: the one list that for_each_weight, parameter_count and
// weight_bytes share.
template <class Visit>
void for_each_slot(const ModelWeights& w, Visit visit) {
  visit("token_embedding", w.token_embedding);
  visit("position_embedding", w.position_embedding);
  visit("token_type_embedding", w.token_type_embedding);
  visit("embedding_norm", w.embedding_norm);
  visit("embedding_norm_bias", w.embedding_norm_bias);
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    const LayerWeights& l = w.layers[i];
    const std::pair<const char*, const Tensor*> slots[] = {{"attn_norm", &l.attn_norm},
                                                           {"attn_norm_bias", &l.attn_norm_bias},
                                                           {"wq", &l.wq},
                                                           {"wk", &l.wk},
                                                           {"wv", &l.wv},
                                                           {"bq", &l.bq},
                                                           {"bk", &l.bk},
                                                           {"bv", &l.bv},
                                                           {"q_norm", &l.q_norm},
                                                           {"k_norm", &l.k_norm},
                                                           {"wo", &l.wo},
                                                           {"bo", &l.bo},
                                                           {"attn_post_norm", &l.attn_post_norm},
                                                           {"ffn_norm", &l.ffn_norm},
                                                           {"ffn_norm_bias", &l.ffn_norm_bias},
                                                           {"ffn_gate", &l.ffn_gate},
                                                           {"ffn_up", &l.ffn_up},
                                                           {"ffn_down", &l.ffn_down},
                                                           {"ffn_gate_bias", &l.ffn_gate_bias},
                                                           {"ffn_up_bias", &l.ffn_up_bias},
                                                           {"ffn_down_bias", &l.ffn_down_bias},
                                                           {"ffn_post_norm", &l.ffn_post_norm}};
    for (const auto& [name, tensor] : slots)
      visit(cat("layers.", i, ".", name), *tensor);
  }
  visit("final_norm", w.final_norm);
  visit("final_norm_bias", w.final_norm_bias);
  if (w.output.data != w.token_embedding.data) visit("output", w.output);  // a tied classifier counts once
  visit("masked_lm.dense", w.masked_lm.dense);
  visit("masked_lm.dense_bias", w.masked_lm.dense_bias);
  visit("masked_lm.norm", w.masked_lm.norm);
  visit("masked_lm.norm_bias", w.masked_lm.norm_bias);
  visit("masked_lm.output_bias", w.masked_lm.output_bias);
}

}  // namespace

void for_each_weight(const ModelWeights& weights,
                     const std::function<void(const std::string& name, const Tensor& tensor)>& visit) {
  for_each_slot(weights, [&](const std::string& name, const Tensor& t) {
    if (t.present()) visit(name, t);
  });
}

int64_t Model::parameter_count() const {
  int64_t n = 0;
  for_each_weight(weights, [&](const std::string&, const Tensor& t) { n += t.elements(); });
  return n;
}

int64_t Model::weight_bytes() const {
  int64_t n = 0;
  for_each_weight(weights,
                  [&](const std::string&, const Tensor& t) { n += tensor_bytes(t.type, t.rows, t.cols); });
  return n;
}

}  // namespace glassbox
