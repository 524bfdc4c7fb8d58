// Small random models of every architecture the forward pass can express: one config per combination of
// choices (norm kind and placement, how positions enter, feed-forward shape, biases), each with random
// float32 weights. Shared by the tests that must hold for every architecture (GGUF round trip, attention
// recomputation).
#pragma once

#include <memory>
#include <ostream>
#include <random>
#include <vector>

#include "glassbox/model.hpp"

namespace glassbox::test {

// Which optional tensors the random model has (the config does not say; the tensors do).
struct Biases {
  bool norm = false;  // attn_norm, ffn_norm and output_norm biases
  bool qkv = false;
  bool out = false;
  bool ffn = false;
};

struct Case {
  const char* label;
  const char* architecture;  // what the writer must choose
  ModelConfig config;
  Biases biases;
};

// For GoogleTest's messages: the case's label rather than its bytes.
inline void PrintTo(const Case& c, std::ostream* out) {
  *out << c.label;
}

inline ModelConfig base_config() {
  ModelConfig c;
  c.dim = 16;
  c.hidden_dim = 24;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.head_dim = 4;
  c.vocab_size = 11;
  c.max_seq_len = 12;
  c.norm_eps = 1e-6f;
  c.rope_theta = 500.0f;
  return c;
}

// Changes to base_config(), as a lambda, so each case says only what it varies.
template <class F>
ModelConfig config(F change) {
  ModelConfig c = base_config();
  change(c);
  return c;
}

// No RoPE: the RoPE fields keep their defaults (the file has no keys for them).
inline void no_rope(ModelConfig& c, PositionKind position) {
  c.position = position;
  c.rope_pairing = ModelConfig{}.rope_pairing;
  c.rope_theta = ModelConfig{}.rope_theta;
  c.rope_dim = 0;
}

inline std::vector<Case> architecture_cases() {
  return {
      {"llama", "llama", base_config(), {}},
      {"llama-untied-biases",
       "llama",
       config([](ModelConfig& c) { c.tied_embeddings = false; }),
       {.qkv = true, .out = true, .ffn = true}},
      {"qwen2",
       "qwen2",
       config([](ModelConfig& c) {
         c.rope_pairing = RopePairing::HalfSplit;
         c.tied_embeddings = false;
       }),
       {.qkv = true}},
      {"gpt2",
       "gpt2",
       config([](ModelConfig& c) {
         c.n_kv_heads = c.n_heads;
         c.norm = NormKind::LayerNorm;
         c.activation = Activation::GELU;
         c.gated_ffn = false;
         no_rope(c, PositionKind::Learned);
       }),
       {.norm = true, .qkv = true, .out = true, .ffn = true}},
      // Our own architecture: everything llama.cpp's cannot say.
      {"postln-layernorm-sinusoidal-relu",
       "glassbox",
       config([](ModelConfig& c) {
         c.norm = NormKind::LayerNorm;
         c.norm_placement = NormPlacement::PostNorm;
         c.activation = Activation::ReLU;
         c.gated_ffn = false;
         no_rope(c, PositionKind::Sinusoidal);
       }),
       {.norm = true, .qkv = true, .out = true, .ffn = true}},
      {"postln-rmsnorm-mqa-geglu-untied",
       "glassbox",
       config([](ModelConfig& c) {
         c.n_kv_heads = 1;
         c.norm_placement = NormPlacement::PostNorm;
         c.activation = Activation::GELU;
         c.tied_embeddings = false;
       }),
       {}},
      {"half-split-partial-rope",
       "glassbox",
       config([](ModelConfig& c) {
         c.rope_pairing = RopePairing::HalfSplit;
         c.rope_dim = 2;  // qwen2 files rotate whole heads
       }),
       {.qkv = true}},
      {"adjacent-partial-rope",
       "glassbox",
       config([](ModelConfig& c) {
         c.rope_dim = 2;  // llama.cpp refuses a llama file that rotates part of each head
       }),
       {}},
      {"no-positions-reglu",
       "glassbox",
       config([](ModelConfig& c) {
         c.activation = Activation::ReLU;
         c.tied_embeddings = false;
         no_rope(c, PositionKind::None);
       }),
       {.ffn = true}},
      {"layernorm-learned-swiglu",
       "glassbox",
       config([](ModelConfig& c) {
         c.norm = NormKind::LayerNorm;
         no_rope(c, PositionKind::Learned);
       }),
       {.norm = true, .out = true}},
      {"layernorm-rope-gelu-plain",
       "glassbox",
       config([](ModelConfig& c) {
         c.norm = NormKind::LayerNorm;
         c.rope_pairing = RopePairing::HalfSplit;
         c.activation = Activation::GELU;
         c.gated_ffn = false;
       }),
       {.norm = true, .qkv = true}},
      {"gpt2-but-post-norm",
       "glassbox",
       config([](ModelConfig& c) {
         c.n_kv_heads = c.n_heads;
         c.norm = NormKind::LayerNorm;
         c.norm_placement = NormPlacement::PostNorm;
         c.activation = Activation::GELU;
         c.gated_ffn = false;
         no_rope(c, PositionKind::Learned);
       }),
       {.norm = true, .qkv = true, .out = true, .ffn = true}},
      // Gemma 3: sandwich norms, q/k norm, GeGLU, scaled embeddings, sliding-window layers with their own
      // RoPE base beside global ones with linearly scaled RoPE.
      {"gemma3",
       "gemma3",
       config([](ModelConfig& c) {
         c.norm_placement = NormPlacement::Sandwich;
         c.rope_pairing = RopePairing::HalfSplit;
         c.activation = Activation::GELU;
         c.qk_norm = true;
         c.scaled_embeddings = true;
         c.sliding_window = 3;
         c.sliding_layers = {true, false};
         c.rope_theta_sliding = 50.0f;
         c.rope_freq_factors = {4.0f, 4.0f};
       }),
       {}},
      // BLOOM: gpt2's blocks with ALiBi and a LayerNorm of the embeddings.
      {"bloom",
       "bloom",
       config([](ModelConfig& c) {
         c.n_kv_heads = c.n_heads;
         c.norm = NormKind::LayerNorm;
         c.activation = Activation::GELU;
         c.gated_ffn = false;
         c.embedding_norm = true;
         no_rope(c, PositionKind::ALiBi);
       }),
       {.norm = true, .qkv = true, .out = true, .ffn = true}},
      // MPT: no biases at all (MPT-7B's no_bias), ALiBi with a max bias of its own, the file says it.
      {"mpt",
       "mpt",
       config([](ModelConfig& c) {
         c.n_kv_heads = c.n_heads;
         c.norm = NormKind::LayerNorm;
         c.activation = Activation::GELU;
         c.gated_ffn = false;
         c.alibi_max_bias = 6.0f;
         no_rope(c, PositionKind::ALiBi);
       }),
       {}},
      // ALiBi with a head count that is not a power of two (the slopes' extension), GQA and a max bias that
      // is not the usual 8: only our own architecture says it.
      {"alibi-6-heads-gqa",
       "glassbox",
       config([](ModelConfig& c) {
         c.dim = 24;
         c.n_heads = 6;
         c.alibi_max_bias = 4.0f;
         no_rope(c, PositionKind::ALiBi);
       }),
       {.qkv = true}},
      // A window and a soft-cap on a Llama otherwise: only our own architecture says both.
      {"llama-sliding-softcap",
       "glassbox",
       config([](ModelConfig& c) {
         c.sliding_window = 2;
         c.sliding_layers = {false, true};
         c.final_logit_softcap = 2.0f;
       }),
       {}},
  };
}

// A model with random float32 weights of the config's shapes.
class RandomModel {
 public:
  RandomModel(const ModelConfig& c, const Biases& b, uint32_t seed) : rng_(seed) {
    model_.config = c;
    ModelWeights& w = model_.weights;
    const int64_t dim = c.dim, hidden = c.hidden_dim, q = c.q_dim(), kv = c.kv_dim();
    w.token_embedding = matrix(c.vocab_size, dim);
    if (c.position == PositionKind::Learned) w.position_embedding = matrix(c.max_seq_len, dim);
    for (int l = 0; l < c.n_layers; ++l) {
      LayerWeights L;
      L.attn_norm = vector(dim, true);
      L.attn_norm_bias = vector(dim, b.norm);
      L.wq = matrix(q, dim);
      L.wk = matrix(kv, dim);
      L.wv = matrix(kv, dim);
      L.bq = vector(q, b.qkv);
      L.bk = vector(kv, b.qkv);
      L.bv = vector(kv, b.qkv);
      if (c.qk_norm) {
        L.q_norm = vector(c.head_dim, true);
        L.k_norm = vector(c.head_dim, true);
      }
      L.wo = matrix(dim, q);
      L.bo = vector(dim, b.out);
      L.attn_post_norm = vector(dim, c.norm_placement == NormPlacement::Sandwich);
      L.ffn_norm = vector(dim, true);
      L.ffn_norm_bias = vector(dim, b.norm);
      if (c.gated_ffn) {
        L.ffn_gate = matrix(hidden, dim);
        L.ffn_gate_bias = vector(hidden, b.ffn);
      }
      L.ffn_up = matrix(hidden, dim);
      L.ffn_up_bias = vector(hidden, b.ffn);
      L.ffn_down = matrix(dim, hidden);
      L.ffn_down_bias = vector(dim, b.ffn);
      L.ffn_post_norm = vector(dim, c.norm_placement == NormPlacement::Sandwich);
      w.layers.push_back(L);
    }
    const bool pre_norm = c.pre_norm();  // Post-LN has no final norm
    w.final_norm = vector(dim, pre_norm);
    w.final_norm_bias = vector(dim, pre_norm && b.norm);
    w.output = c.tied_embeddings ? w.token_embedding : matrix(c.vocab_size, dim);
    // An encoder's token types and embedding LayerNorm (drawn last: the decoders' weights stay as they were).
    if (c.n_token_types > 0) w.token_type_embedding = matrix(c.n_token_types, dim);
    w.embedding_norm = vector(dim, c.embedding_norm);
    w.embedding_norm_bias = vector(dim, c.embedding_norm && b.norm);
  }

  const Model& model() const { return model_; }

 private:
  Tensor matrix(int64_t rows, int64_t cols) {
    auto values = std::make_shared<std::vector<float>>(static_cast<std::size_t>(rows * cols));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& v : *values)
      v = normal(rng_);
    model_.storage.push_back(values);
    return Tensor{DType::F32, reinterpret_cast<const std::byte*>(values->data()), rows, cols};
  }
  Tensor vector(int64_t n, bool present) { return present ? matrix(1, n) : Tensor{}; }

  Model model_;
  std::mt19937 rng_;
};

}  // namespace glassbox::test
