// Where a model's parameters, memory traffic and arithmetic go, from its shapes: the page's "anatomy" panel.
//
// Parameters (d = dim, h = hidden_dim, V = vocab_size, q = n_heads * head_dim, kv = n_kv_heads * head_dim,
// L = n_layers, T = max_seq_len):
//   token embedding  V d                    output        V d, or 0 when tied to the token embedding
//   position table   T d (learned positions only; RoPE and sinusoidal tables are computed, not stored)
//   attention        L (q d + kv d + kv d + d q)          for W_q, W_k, W_v, W_o
//   feed-forward     L (3 h d) gated (SwiGLU: gate, up, down), L (2 h d) plain (up, down)
//   norms            L 2 d, plus d for the final norm (Pre-LN only): the scales
//   biases           whatever bias vectors the model has (the config does not say; its tensors do): q, kv,
//                    kv, d for attention; h (, h), d for the feed-forward; d per LayerNorm with a bias
// Bytes are the same tensors in their stored element types (block-quantized types include their scales).
//
// Bytes read per token (decoding one token at a time): every layer's weights, the final norm, the whole
// output matrix (the token embedding when tied), and one row of the token embedding and of the position
// table; batching a prompt (Session::prefill) shares each read among the batch.
//
// FLOPs per token, for the token at position n - 1 (attending to n keys), counting a multiply-add as 2:
//   attention projections  L 2 (q d + 2 kv d + d q)
//   attention scores        L 2 n q for Q K^T and L 2 n q for the weighted sum of values: grows with n
//   feed-forward            L 2 (3 h d) gated, L 2 (2 h d) plain
//   output                  2 V d
// Norms, softmax, RoPE, activations and biases are O(L d + L n n_heads) and left out.
#pragma once

#include <cstdint>

#include "glassbox/model.hpp"

namespace glassbox {

struct ComponentSize {
  int64_t parameters = 0;
  int64_t bytes = 0;
};

struct ModelAnatomy {
  ComponentSize token_embedding;
  ComponentSize position_embedding;
  ComponentSize token_types;     // an encoder's token-type (segment) table; 0 for decoders
  ComponentSize output;          // 0 when tied
  ComponentSize masked_lm_head;  // an encoder's MLM head before the tied decoder: transform and biases
  ComponentSize attention_q, attention_k, attention_v, attention_o;
  ComponentSize feed_forward;
  ComponentSize norms;
  ComponentSize biases;
  ComponentSize total;  // Model::parameter_count() and Model::weight_bytes()
  int64_t bytes_read_per_token = 0;
};

// Shapes from model.config; element types, and which biases exist, from model.weights.
ModelAnatomy model_anatomy(const Model& model);

struct TokenFlops {
  int64_t attention_projections = 0;
  int64_t attention_scores = 0;  // Q K^T and the value sum: the part that grows with the sequence
  int64_t feed_forward = 0;
  int64_t output = 0;
  int64_t total = 0;
};

// FLOPs of the forward pass for one token at position sequence_length - 1 (see above).
TokenFlops flops_per_token(const ModelConfig& config, int sequence_length);

}  // namespace glassbox
