// The hyper-parameters and architectural choices of a transformer. One forward pass reads this config; the
// Llama family, the GPT-2 family, the textbook variants and the BERT-family encoders differ only in these
// fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "glassbox/result.hpp"

namespace glassbox {

enum class NormKind { RMSNorm, LayerNorm };

// Pre-LN (GPT-2, Llama): x + f(norm(x)), with a final norm before the classifier.
// Post-LN (the original Transformer): norm(x + f(x)), no final norm.
// Sandwich (Gemma 2 and 3): x + norm'(f(norm(x))), each sub-block's output normalized again (its own weights)
// before it joins the residual stream; a final norm before the classifier.
enum class NormPlacement { PreNorm, PostNorm, Sandwich };

enum class PositionKind {
  RoPE,        // rotary embedding of queries and keys (Llama, Qwen2)
  Learned,     // a learned table added to the token embedding (GPT-2)
  Sinusoidal,  // the fixed sin/cos table of "Attention Is All You Need", added to the token embedding
  None,
  ALiBi,  // no code added anywhere: each head's scores get -slope * distance (BLOOM, MPT; glassbox/positions.hpp)
};

// How RoPE pairs up a head's values: (2i, 2i+1) or (i, i + rotary_dim/2). See kernels/rope.cpp.
enum class RopePairing { Adjacent, HalfSplit };

// GELU is the tanh approximation (GPT-2, Gemma); GELUExact is 0.5 x (1 + erf(x / sqrt 2)) (BERT).
enum class Activation { SiLU, GELU, ReLU, GELUExact };

// How an encoder turns its tokens' final states into one embedding of the text: none (the file does not
// say), the mean over the text's tokens, or the state of its first token ([CLS]).
enum class Pooling { None, Mean, Cls };

struct ModelConfig {
  std::string architecture = "llama";  // informational: where the config came from

  int dim = 0;         // width of the residual stream
  int hidden_dim = 0;  // width of the feed-forward layer
  int n_layers = 0;
  int n_heads = 0;     // query heads
  int n_kv_heads = 0;  // key/value heads; n_heads / n_kv_heads query heads share each (GQA; 1 = MQA)
  int head_dim = 0;    // usually dim / n_heads
  int vocab_size = 0;
  int max_seq_len = 0;  // the longest context the model supports

  NormKind norm = NormKind::RMSNorm;
  NormPlacement norm_placement = NormPlacement::PreNorm;
  float norm_eps = 1e-5f;

  PositionKind position = PositionKind::RoPE;
  RopePairing rope_pairing = RopePairing::Adjacent;
  float rope_theta = 10000.0f;
  int rope_dim = 0;  // values of each head that rotate; 0 (what every reader gives) means all of head_dim
  // RoPE scaling: pair i turns by position * theta^(-2i / rotary_dim) / rope_freq_factors[i] (rotary_dim / 2
  // divisors; empty: none). Llama 3.1's scaling (GGUF's rope_freqs.weight, or computed from a Hugging Face
  // rope_scaling by llama3_rope_factors in glassbox/positions.hpp) and linear scaling (every divisor the
  // same factor: positions squeezed by it) are both this.
  std::vector<float> rope_freq_factors;
  // YaRN: every rotation also scales q and k by this (so q·k by its square); 1 otherwise.
  float rope_magnitude = 1.0f;
  // ALiBi: the largest slope's exponent (the slopes are 2^(-alibi_max_bias * i / n) for a power of two n;
  // glassbox/positions.hpp's alibi_slope). 8 in the paper, BLOOM and MPT.
  float alibi_max_bias = 8.0f;

  // Each head's queries and keys are RMS-normalized over head_dim, with weights of their own (one set for
  // queries, one for keys), before RoPE: Qwen3, Gemma 3.
  bool qk_norm = false;

  // Sliding-window attention (Gemma 3): on a sliding layer the query at position p sees only the keys at
  // p - sliding_window + 1 .. p, and its RoPE turns with rope_theta_sliding and no frequency factors (as
  // llama.cpp's freq_base_swa and freq_scale_swa = 1); the other ("global") layers see the whole context.
  int sliding_window = 0;            // keys a sliding layer sees; 0: no layer slides
  std::vector<bool> sliding_layers;  // n_layers flags (empty: none slides)
  float rope_theta_sliding = 0.0f;   // 0: rope_theta

  // Gemma: the token embedding is multiplied by sqrt(dim) before the first layer.
  bool scaled_embeddings = false;
  // Gemma 2 (and Gemma 3 where a file asks): logits = cap * tanh(logits / cap). 0: none.
  float final_logit_softcap = 0.0f;

  Activation activation = Activation::SiLU;
  bool gated_ffn = true;  // true: down(act(gate x) * up x) (SwiGLU); false: down(act(up x)) (GPT-2)

  bool tied_embeddings = true;  // the classifier reuses the token embedding matrix

  // Encoders (BERT): attention sees every token of the text, before and after (bidirectional), instead of
  // only the tokens up to the query (causal, a decoder). An encoder reads a whole text in one pass and gives
  // a state per token, not a next token.
  bool causal = true;
  // Token-type (segment) embeddings: n_token_types rows, row 0 added to every token (one-segment texts).
  int n_token_types = 0;
  // LayerNorm (with its own weight and bias) of the summed embeddings before the first layer (BERT).
  bool embedding_norm = false;
  Pooling pooling = Pooling::None;   // what the file asks for; the caller may choose another
  bool normalize_embedding = false;  // the file asks for L2-normalized embeddings (sentence-transformers)

  bool operator==(const ModelConfig&) const = default;

  int kv_dim() const { return n_kv_heads * head_dim; }
  int q_dim() const { return n_heads * head_dim; }
  int rotary_dim() const { return rope_dim > 0 ? rope_dim : head_dim; }
  bool pre_norm() const { return norm_placement != NormPlacement::PostNorm; }  // norm before each sub-block
  bool slides(int layer) const {
    return sliding_window > 0 && layer >= 0 && static_cast<std::size_t>(layer) < sliding_layers.size() &&
           sliding_layers[static_cast<std::size_t>(layer)];
  }
  // The oldest key the query at `position` of `layer` attends to: 0, or where a sliding window begins.
  // Keys before it are masked like future ones. The one statement of the sliding-window rule.
  int first_visible_key(int layer, int position) const {
    return slides(layer) && position >= sliding_window ? position - sliding_window + 1 : 0;
  }
};

// Checks that the numbers describe a model this engine can run: every dimension positive and within sane
// bounds, heads dividing dim, kv heads dividing heads, rotary_dim even and <= head_dim. `source` (a file
// name) starts each message.
Result<void> validate(const ModelConfig& config, const std::string& source);

// The one spelling of each choice ("rmsnorm", "pre", "rope", "half", "silu"): also how GGUF files of our own
// `glassbox` architecture store it.
const char* to_string(NormKind kind);
const char* to_string(NormPlacement placement);
const char* to_string(PositionKind kind);
const char* to_string(RopePairing pairing);
const char* to_string(Activation activation);
const char* to_string(Pooling pooling);

}  // namespace glassbox
