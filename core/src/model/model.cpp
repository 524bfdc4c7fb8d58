// Sizes of a loaded model, for display and for the benchmark's bytes-per-token figures.
#include "glassbox/model.hpp"

#include "model/dtype.hpp"

namespace glassbox {
namespace {

template <class Visit>
void for_each_tensor(const ModelWeights& w, Visit visit) {
  visit(w.token_embedding);
  visit(w.position_embedding);
  for (const LayerWeights& l : w.layers) {
    for (const Tensor* t : {&l.attn_norm, &l.attn_norm_bias, &l.wq, &l.wk, &l.wv, &l.bq, &l.bk, &l.bv, &l.wo,
                            &l.bo, &l.ffn_norm, &l.ffn_norm_bias, &l.ffn_gate, &l.ffn_up, &l.ffn_down,
                            &l.ffn_gate_bias, &l.ffn_up_bias, &l.ffn_down_bias})
      visit(*t);
  }
  visit(w.final_norm);
  visit(w.final_norm_bias);
  if (w.output.data != w.token_embedding.data) visit(w.output);  // a tied classifier counts once
}

}  // namespace

int64_t Model::parameter_count() const {
  int64_t n = 0;
  for_each_tensor(weights, [&](const Tensor& t) { n += t.present() ? t.elements() : 0; });
  return n;
}

int64_t Model::weight_bytes() const {
  int64_t n = 0;
  for_each_tensor(weights,
                  [&](const Tensor& t) { n += t.present() ? tensor_bytes(t.type, t.rows, t.cols) : 0; });
  return n;
}

}  // namespace glassbox
