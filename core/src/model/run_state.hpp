// The scratch memory of a session: activations of the positions being computed (up to `batch` consecutive
// positions per forward pass, one row each), the KV cache, the per-position tables (RoPE angles) and each
// worker's row for decoding quantized weights. Allocated once when the session starts; the forward pass
// allocates nothing (tests/forward_allocation_test.cpp counts).
#pragma once

#include <vector>

#include "glassbox/attention_variant.hpp"
#include "glassbox/model.hpp"
#include "model/activation_patch.hpp"
#include "model/linear.hpp"

namespace glassbox {

struct RunState {
  RunState(const ModelConfig& config, int context_length, int workers, int batch = 1);

  int context_length;
  int batch;            // the most tokens one forward pass takes
  std::size_t workers;  // threads that may work on it at once
  // Activations of the chunk, one row per token (names as in forward.cpp's equations):
  std::vector<float> residual;      // the residual stream x [batch][dim]
  std::vector<float> normed_input;  // norm(x), what a sub-block reads [batch][dim]; also a token's position
                                    // code while embedding, and the final norm of the last token
  std::vector<float> block_output;  // what a sub-block adds to x (wo of the heads, the down projection)
  std::vector<float> q;             // queries of all heads [batch][q_dim]
  std::vector<float> head_outputs;  // every head's attention output side by side, before wo [batch][q_dim]
  std::vector<float> scores;  // a query's attention scores, then probabilities [n_heads][context_length]
  // The feed-forward's hidden layer, what the down projection reads [batch][hidden_dim]: in a gated one the
  // gate projection, then act(gate) * up.
  std::vector<float> ffn_hidden;
  std::vector<float> ffn_up;       // a gated feed-forward's up projection [batch][hidden_dim]
  std::vector<float> logits;       // of the pass's last token [vocab_size]
  std::vector<float> key_cache;    // [n_layers][context_length][kv_dim]
  std::vector<float> value_cache;  // [n_layers][context_length][kv_dim]
  std::vector<float> rope_cos;     // [1 or 2 tables: global, sliding][context_length][rotary_dim / 2]
  std::vector<float> rope_sin;
  std::size_t rope_half = 0;  // rotary_dim / 2
  DecodeScratch decode;       // [workers][widest matrix row]
  // A prompt's attention, per worker (empty where batch is 1): one head's queries of the chunk, packed
  // (kernels::pack_token_tiles), and the scores of a tile of them [matmul_tile_tokens()][context_length].
  std::vector<float> packed_queries, query_tile_scores;
  float* packed_queries_of(int worker) {
    return packed_queries.data() + static_cast<std::size_t>(worker) * (packed_queries.size() / workers);
  }
  float* query_tile_scores_of(int worker) {
    return query_tile_scores.data() + static_cast<std::size_t>(worker) * (query_tile_scores.size() / workers);
  }
  // Head ablation: [n_layers][n_heads] factors on each head's output before the output projection; empty
  // when every head runs as trained (Session::set_head_scales).
  std::vector<float> head_scales;
  // Mean ablation: [n_layers][q_dim] added to the heads' outputs after their scales (model/head_ablation.hpp);
  // empty when none is set (Session::set_head_offsets).
  std::vector<float> head_offsets;
  // Activation patching (model/activation_patch.hpp): off unless an analysis sets it for its own runs.
  ActivationPatch patch;

  // The attention this run computes (glassbox/attention_variant.hpp; exact unless use_attention chose
  // another) and what the variants need beyond the KV cache:
  AttentionVariant attention;
  // Linear and Performer: each layer's and kv head's running sums (kernels/feature_attention.hpp),
  // sum phi(k_s) v_s^T [n_layers][n_kv_heads][features][head_dim] and sum phi(k_s) [n_layers][n_kv_heads]
  // [features], over the positions before the next forward pass's chunk.
  std::size_t features = 0;  // phi's width: head_dim (linear) or M (performer)
  std::vector<float> feature_kv_sums, feature_key_sums;
  // Performer: the sums are kept divided by e^c, c the largest log factor its keys' features were divided by
  // (model/feature_maps.hpp) [n_layers][n_kv_heads]; linear's keys have none (c = 0).
  std::vector<float> feature_log_scales;
  std::vector<float>
      feature_projection;              // Performer's random features [M][head_dim] (model/feature_maps.hpp)
  std::vector<float> feature_scratch;  // each worker's phi(k) and phi(q) [workers][2][features]
  // Low-rank: each head's whole attention matrix over the chunk [n_heads][batch][batch].
  std::vector<float> head_matrices;
  // Chooses the run's attention and allocates its state (the variant is checked by the caller).
  void use_attention(const ModelConfig& config, const AttentionVariant& variant);

  // The cos and sin of every pair's angle at `position` in a layer (sliding or not), rope_half each.
  const float* rope_cos_row(bool sliding, std::size_t position) const {
    return rope_cos.data() + ((sliding ? context_length : 0) + position) * rope_half;
  }
  const float* rope_sin_row(bool sliding, std::size_t position) const {
    return rope_sin.data() + ((sliding ? context_length : 0) + position) * rope_half;
  }

  // Row of the cache for (layer, position); rows of one layer are consecutive, kv_dim floats each.
  float* keys(std::size_t layer, std::size_t position, std::size_t kv_dim) {
    return key_cache.data() + (layer * static_cast<std::size_t>(context_length) + position) * kv_dim;
  }
  float* values(std::size_t layer, std::size_t position, std::size_t kv_dim) {
    return value_cache.data() + (layer * static_cast<std::size_t>(context_length) + position) * kv_dim;
  }
};

// Bytes a session with this context would allocate (checked before allocating, so a huge context is an
// error message, not an out-of-memory abort).
int64_t run_state_bytes(const ModelConfig& config, int context_length, int workers, int batch = 1,
                        const AttentionVariant& attention = {});

// Whether some layer of the model attends through a sliding window (ModelConfig::slides).
bool any_sliding_layer(const ModelConfig& config);

}  // namespace glassbox
