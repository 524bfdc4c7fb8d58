// Causal attention through a feature map, kept as running sums (linear attention, Katharopoulos et al. 2020;
// Performer, Choromanski et al. 2021). With a map phi of queries and keys into F non-negative features,
//     out_t = sum_{s<=t} (phi(q_t)·phi(k_s)) v_s / sum_{s<=t} phi(q_t)·phi(k_s)
//           = phi(q_t)^T S_t / phi(q_t)·z_t,   S_t = sum_{s<=t} phi(k_s) v_s^T  [F][d],  z_t = sum_{s<=t} phi(k_s)  [F]
// so each new token adds its key to S and z (O(F d)) and reads them (O(F d)): the cost of a step does not grow
// with the text, which is the point of these attentions, and S and z are all the state a run keeps (no
// cache of keys is read). Each kernel has its textbook twin in namespace reference
// (tests/feature_attention_test.cpp compares them).
#pragma once

#include <cstddef>

namespace glassbox::kernels {

// A key enters the sums: kv_sums[f][0..d) += phi_k[f] * v[0..d) and key_sums[f] += phi_k[f], f < features.
// Where a feature map divides its features by e^m to keep exp in range (Performer: model/feature_maps.hpp;
// m = 0 for linear attention), the sums are kept divided by e^c, c = *log_scale, the largest m so far
// (-inf before the first key): a larger m rescales the sums first, a smaller one scales phi_k (in place)
// down to c. The attention output is a ratio of the sums, so the common factor never shows: the online
// softmax's trick.
void add_feature_key(float* kv_sums, float* key_sums, float* log_scale, float* phi_k, float m, const float* v,
                     std::size_t features, std::size_t head_dim);
// A query reads them: out[0..d) = sum_f phi_q[f] kv_sums[f][0..d) / sum_f phi_q[f] key_sums[f].
void read_feature_sums(float* out, const float* kv_sums, const float* key_sums, const float* phi_q,
                       std::size_t features, std::size_t head_dim);

namespace reference {
void add_feature_key(float* kv_sums, float* key_sums, float* log_scale, float* phi_k, float m, const float* v,
                     std::size_t features, std::size_t head_dim);
void read_feature_sums(float* out, const float* kv_sums, const float* key_sums, const float* phi_q,
                       std::size_t features, std::size_t head_dim);
}  // namespace reference

}  // namespace glassbox::kernels
