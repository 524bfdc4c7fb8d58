// The forward pass: a chunk of consecutive tokens in (one token while generating, up to RunState::batch of a
// prompt), the logits for the token after the last one out. One function for every supported architecture;
// the config decides norm kind and placement, how positions enter, the feed-forward shape, and which optional
// biases exist.
//
//   x[t] = embed(token[t]) (x sqrt(dim) in Gemma) (+ position embedding)    for each token t of the chunk
//   for each layer:
//     x = x + attention(norm(x))          Pre-LN  |  x = norm(x + attention(x))     Post-LN
//     x = x + feed_forward(norm(x))               |  x = norm(x + feed_forward(x))
//     (Sandwich, Gemma: x = x + norm'(attention(norm(x))), the same around the feed-forward)
//   logits = classifier(norm(x[last]))    (the final norm only in Pre-LN and Sandwich models)
//   (soft-capped where the model says: cap * tanh(logits / cap))
// ALiBi adds nothing to the embeddings: each head biases its scores by distance (attend()).
// A sliding-window layer's queries see only the last sliding_window keys (ModelConfig::first_visible_key).
// A run may swap the attention for one of the seeds' approximations (glassbox/attention_variant.hpp, attend()
// below), computed from the same q, k and v; the default, exact, is the model's own.
// Activation patching (model/activation_patch.hpp) may put another run's values in place of the stream entering
// a layer and of one head's output, or resume a run at a later layer from a record; off, as everywhere but in
// inspect/activation_patching.cpp, it changes nothing.
// An encoder (BERT) differs only in knobs: token-type embeddings and a LayerNorm of the embeddings, Post-LN,
// attention over the whole text instead of the tokens so far (model/visible_keys.hpp, which also holds the
// padding mask of a batch of texts), and no classifier: its output is x, a state per token. nomic-bert is
// the same encoder with the decoders' RoPE (positions restarting at 0 in each text of a batch) and SwiGLU.
//
// x is [T][dim], one row per token. Norms, RoPE and attention go token by token; the matrix products take
// all T rows at once (linear_batch), which reads each weight once per chunk instead of once per token. Every
// value is computed by the same kernels in the same order whatever T is, so a prompt read in chunks gives
// the bits that reading it one token at a time gives.
#include "model/forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "glassbox/effective_rank.hpp"
#include "glassbox/positions.hpp"
#include "kernels/feature_attention.hpp"
#include "kernels/kernels.hpp"
#include "model/attention_schedule.hpp"
#include "model/feature_maps.hpp"
#include "model/head_ablation.hpp"
#include "model/layer_steps.hpp"
#include "model/linear.hpp"
#include "model/linear_batch.hpp"

namespace glassbox {
namespace {

// fn(t) for each token t of a chunk of n: the work between the matrix products that goes token by token
// (norms, RoPE, activations), split across the threads where the chunk is long enough to pay for waking
// them. Serial, it was what the second thread of a 256-token prompt waited on most.
constexpr std::size_t kMinTokensToSplit = 8;
template <class F>
void each_token(std::size_t n, ThreadPool& pool, const F& fn) {
  auto run = [&](std::size_t begin, std::size_t end, int /*worker*/) {
    for (std::size_t t = begin; t < end; ++t)
      fn(t);
  };
  pool.parallel_for(n, run, kMinTokensToSplit);
}

// norm() of each of the n rows of x (dim values each) into out.
void normalize_rows(const ModelConfig& c, float* out, const float* x, std::size_t n, const Tensor& weight,
                    const Tensor& bias, ThreadPool& pool) {
  const auto dim = static_cast<std::size_t>(c.dim);
  each_token(n, pool, [&](std::size_t t) { normalize(c, out + t * dim, x + t * dim, weight, bias); });
}

// The residual trace's copy of the chunk's n rows of x, as they enter layer `layer` (n_layers: as they leave
// the last one).
void record_residuals(ResidualTrace* residuals, int first_position, int layer, const float* x, std::size_t n,
                      std::size_t dim) {
  if (!residuals) return;
  for (std::size_t t = 0; t < n; ++t)
    if (float* row = residuals->slot(first_position + static_cast<int>(t), layer))
      std::copy(x + t * dim, x + (t + 1) * dim, row);
}

// The scores of head h's query t (row[j] = q·k_j over the keys it sees) become its probabilities: scaled,
// with ALiBi's bias where the model has it, a global-window variant's gap hidden, softmax. Returns the keys.
KeyRange row_probabilities(const ModelConfig& c, const VisibleKeys& visible, std::size_t h, std::size_t t,
                           float* row) {
  const KeyRange keys = visible.of(t);
  probabilities_from_scores(row, keys.begin, keys.end, static_cast<std::size_t>(c.head_dim),
                            score_bias(c, h, visible.query_row(t)), visible.hidden(t));
  return keys;
}

// Multi-head self-attention of the chunk's n queries. For head h and the chunk's query t, over the keys j it
// sees (visible.of(t): a decoder's keys up to its position, an encoder's whole text, narrowed by a window
// variant; the chunk's own keys are in the cache already):
//   probability_j = softmax_j(q·k_j / sqrt(head_dim) [- slope_h |i - j|]),    out_h = sum_j probability_j v_j
// (the bracket with ALiBi: model/layer_steps.hpp's ScoreBias).
// Query head h reads kv head h / (n_heads / n_kv_heads): grouped-query attention (MHA and MQA are the two
// ends of it). score_queries computes the q·k (model/attention_schedule.hpp: threads, tiles of a prompt).
void attend_softmax(const ModelConfig& c, RunState& s, const VisibleKeys& visible, AttentionTrace* trace,
                    ThreadPool& pool) {
  const int layer = visible.layer;
  const auto head_dim = static_cast<std::size_t>(c.head_dim), kv_dim = static_cast<std::size_t>(c.kv_dim());
  const auto q_dim = static_cast<std::size_t>(c.q_dim());
  const auto heads_per_kv = static_cast<std::size_t>(c.n_heads / c.n_kv_heads);
  const float* values = s.values(layer, 0, kv_dim);

  score_queries(c, s, visible, pool, [&](std::size_t h, std::size_t t, float* row) {
    const auto [first_key, n_keys] = row_probabilities(c, visible, h, t, row);
    // Recorded at the chunk's cache row (a decoder's position; a batch's row, text by text), over the keys
    // from its text's first token on: each text of a batch reads as if it ran alone.
    if (trace)
      std::copy(row + visible.text_start(t), row + n_keys,
                trace->slot(visible.first_position + static_cast<int>(t), layer, static_cast<int>(h)));
    float* out = s.head_outputs.data() + t * q_dim + h * head_dim;
    const std::size_t kv_offset = (h / heads_per_kv) * head_dim;
    attention_output(out, row, values + kv_offset, kv_dim, first_key, n_keys, head_dim);
    ablate_head_output(c, s.head_scales, s.head_offsets, layer, h, out);
  });
}

// phi of one head's query or key for the run's feature attention (model/feature_maps.hpp), and the log of
// the factor it was divided by (0 for linear attention's elu + 1, which needs none).
float feature_map(const RunState& s, float* out, const float* x, std::size_t head_dim, bool query) {
  if (s.attention.kind == AttentionKind::Linear) {
    elu_plus_one(out, x, head_dim);
    return 0.0f;
  }
  return performer_features(out, x, s.feature_projection.data(), s.features, head_dim, query);
}

// Linear and Performer attention (glassbox/attention_variant.hpp): kv head g's running sums take the chunk's
// keys in order, and each query reads them right after its own key went in, so query t sees the keys
// 0..t. The sums are the run state's, carried from one forward pass to the next (and started afresh at
// position 0): a prompt read as one chunk and the same tokens stepped one at a time add the same numbers in
// the same order, and give the same bits. Each kv head is one thread's, whatever the thread count.
void attend_by_features(const ModelConfig& c, RunState& s, int layer, int first_position, std::size_t n,
                        ThreadPool& pool) {
  const auto head_dim = static_cast<std::size_t>(c.head_dim), kv_dim = static_cast<std::size_t>(c.kv_dim());
  const auto q_dim = static_cast<std::size_t>(c.q_dim());
  const auto n_kv_heads = static_cast<std::size_t>(c.n_kv_heads);
  const auto heads_per_kv = static_cast<std::size_t>(c.n_heads / c.n_kv_heads);
  const std::size_t features = s.features;
  float* kv_sums =
      s.feature_kv_sums.data() + static_cast<std::size_t>(layer) * n_kv_heads * features * head_dim;
  float* key_sums = s.feature_key_sums.data() + static_cast<std::size_t>(layer) * n_kv_heads * features;
  float* log_scales = s.feature_log_scales.data() + static_cast<std::size_t>(layer) * n_kv_heads;
  if (first_position == 0) {  // a new text: nothing summed yet
    std::fill(kv_sums, kv_sums + n_kv_heads * features * head_dim, 0.0f);
    std::fill(key_sums, key_sums + n_kv_heads * features, 0.0f);
    std::fill(log_scales, log_scales + n_kv_heads, -std::numeric_limits<float>::infinity());
  }
  auto kv_heads = [&](std::size_t g_begin, std::size_t g_end, int worker) {
    float* phi_k = s.feature_scratch.data() + static_cast<std::size_t>(worker) * 2 * features;
    float* phi_q = phi_k + features;
    for (std::size_t g = g_begin; g < g_end; ++g) {
      float* head_kv_sums = kv_sums + g * features * head_dim;
      float* head_key_sums = key_sums + g * features;
      for (std::size_t t = 0; t < n; ++t) {
        const std::size_t position = static_cast<std::size_t>(first_position) + t;
        const float* k = s.keys(static_cast<std::size_t>(layer), position, kv_dim) + g * head_dim;
        const float* v = s.values(static_cast<std::size_t>(layer), position, kv_dim) + g * head_dim;
        const float m = feature_map(s, phi_k, k, head_dim, false);
        kernels::add_feature_key(head_kv_sums, head_key_sums, &log_scales[g], phi_k, m, v, features,
                                 head_dim);
        for (std::size_t h = g * heads_per_kv; h < (g + 1) * heads_per_kv; ++h) {
          feature_map(s, phi_q, s.q.data() + t * q_dim + h * head_dim, head_dim, true);
          float* out = s.head_outputs.data() + t * q_dim + h * head_dim;
          kernels::read_feature_sums(out, head_kv_sums, head_key_sums, phi_q, features, head_dim);
          ablate_head_output(c, s.head_scales, s.head_offsets, layer, h, out);
        }
      }
    }
  };
  pool.parallel_for(n_kv_heads, kv_heads, n * features >= 64 ? 2 : n_kv_heads + 1);
}

// Low-rank attention, a view of Linformer's premise: each head's attention matrix over the chunk (the whole
// text from position 0: Session::prefill makes sure) truncated to its best rank R (SVD:
// glassbox/effective_rank.hpp), its weights on keys the query does not see (the future, into which the
// truncation smears some) set back to 0, then out_t = sum_j A_R[t][j] v_j.
void attend_low_rank(const ModelConfig& c, RunState& s, const VisibleKeys& visible, ThreadPool& pool) {
  const int layer = visible.layer;
  const std::size_t n = visible.n;
  const auto head_dim = static_cast<std::size_t>(c.head_dim), kv_dim = static_cast<std::size_t>(c.kv_dim());
  const auto q_dim = static_cast<std::size_t>(c.q_dim());
  const auto heads_per_kv = static_cast<std::size_t>(c.n_heads / c.n_kv_heads);
  const float* values = s.values(layer, 0, kv_dim);
  score_queries(c, s, visible, pool, [&](std::size_t h, std::size_t t, float* row) {
    const std::size_t n_keys = row_probabilities(c, visible, h, t, row).end;
    float* matrix_row = s.head_matrices.data() + (h * n + t) * n;
    std::copy(row, row + n_keys, matrix_row);
    std::fill(matrix_row + n_keys, matrix_row + n, 0.0f);
  });
  auto heads = [&](std::size_t head_begin, std::size_t head_end, int /*worker*/) {
    for (std::size_t h = head_begin; h < head_end; ++h) {
      const std::span<const float> matrix(s.head_matrices.data() + h * n * n, n * n);
      std::vector<float> truncated =
          best_rank_approximation(matrix, static_cast<int>(n), static_cast<int>(n), s.attention.rank).matrix;
      for (std::size_t t = 0; t < n; ++t) {
        const auto [first_key, n_keys] = visible.of(t);
        float* row = truncated.data() + t * n;
        std::fill(row, row + first_key, 0.0f);
        std::fill(row + n_keys, row + n, 0.0f);
        const KeyRange hidden = visible.hidden(t);
        std::fill(row + hidden.begin, row + hidden.end, 0.0f);
        float* out = s.head_outputs.data() + t * q_dim + h * head_dim;
        attention_output(out, row, values + (h / heads_per_kv) * head_dim, kv_dim, first_key, n_keys,
                         head_dim);
        ablate_head_output(c, s.head_scales, s.head_offsets, layer, h, out);
      }
    }
  };
  pool.parallel_for(static_cast<std::size_t>(c.n_heads), heads, 2);
}

// The run's attention (glassbox/attention_variant.hpp), computed from the q, k, v the layer just placed.
void attend(const ModelConfig& c, RunState& s, const VisibleKeys& visible, AttentionTrace* trace,
            ThreadPool& pool) {
  const bool variant_here = s.attention.applies_to(visible.layer);  // else exact attention in this layer
  if (variant_here && s.attention.uses_features()) {
    attend_by_features(c, s, visible.layer, visible.first_position, visible.n, pool);
  } else if (variant_here && s.attention.kind == AttentionKind::LowRank) {
    attend_low_rank(c, s, visible, pool);
  } else {
    attend_softmax(c, s, visible, trace, pool);  // exact, and the masks of window and global-window
  }
}

}  // namespace

void forward(const Model& model, RunState& s, std::span<const int> tokens, int first_position,
             AttentionTrace* trace, ResidualTrace* residuals, ThreadPool& pool, const TextBatch* texts) {
  const ModelConfig& c = model.config;
  const ModelWeights& w = model.weights;
  const std::size_t n = tokens.size();
  const auto dim = static_cast<std::size_t>(c.dim), hidden_dim = static_cast<std::size_t>(c.hidden_dim);
  const auto q_dim = static_cast<std::size_t>(c.q_dim()), kv_dim = static_cast<std::size_t>(c.kv_dim());
  const bool pre_norm = c.pre_norm(), post_norm = c.norm_placement == NormPlacement::PostNorm;
  const bool sandwich = c.norm_placement == NormPlacement::Sandwich;
  float* x = s.residual.data();              // [n][dim], the x of the equations above
  float* normed = s.normed_input.data();     // norm(x), what a sub-block reads
  float* block_out = s.block_output.data();  // what a sub-block adds to x
  float* hidden = s.ffn_hidden.data();       // [n][hidden_dim], what the down projection reads
  float* up = s.ffn_up.data();               // a gated feed-forward's up projection

  const auto visible_keys = [&](int layer) {
    return VisibleKeys{c, layer, first_position, n, texts}.restrict_to(s.attention);
  };

  // --- embedding ---
  for (std::size_t t = 0; t < n; ++t) {
    float* row = x + t * dim;
    const int position = visible_keys(0).position(t);
    embedding_row(row, w.token_embedding, tokens[t]);
    if (c.scaled_embeddings) {
      const float scale = std::sqrt(static_cast<float>(c.dim));
      for (std::size_t i = 0; i < dim; ++i)
        row[i] *= scale;
    }
    float* position_code = normed;  // free until the first norm
    if (c.position == PositionKind::Learned) {
      embedding_row(position_code, w.position_embedding, position);
      kernels::add_in_place(row, position_code, dim);
    } else if (c.position == PositionKind::Sinusoidal) {
      sinusoidal_code(position, std::span<float>(position_code, dim));
      kernels::add_in_place(row, position_code, dim);
    }
    if (w.token_type_embedding.present()) {  // every token is of type 0 (a one-segment text)
      embedding_row(position_code, w.token_type_embedding, 0);
      kernels::add_in_place(row, position_code, dim);
    }
  }
  if (c.embedding_norm) normalize_rows(c, x, x, n, w.embedding_norm, w.embedding_norm_bias, pool);

  const Tensor none;
  for (int l = resume_stream(c, s.patch, first_position, x, n); l < c.n_layers; ++l) {
    const LayerWeights& layer = w.layers[static_cast<std::size_t>(l)];
    patch_stream(c, s.patch, l, first_position, x, n);
    record_residuals(residuals, first_position, l, x, n, dim);

    // --- attention sub-block ---
    const float* attn_in = x;
    if (pre_norm) {
      normalize_rows(c, normed, x, n, layer.attn_norm, layer.attn_norm_bias, pool);
      attn_in = normed;
    }
    // Projections: the chunk's keys and values go straight to their rows of the cache (consecutive positions).
    float* k = s.keys(l, first_position, kv_dim);
    float* v = s.values(l, first_position, kv_dim);
    const Projection qkv[] = {
        {s.q.data(), layer.wq, layer.bq}, {k, layer.wk, layer.bk}, {v, layer.wv, layer.bv}};
    linear_batch(qkv, attn_in, n, pool, s.decode);
    // Positions: q and k normalized per head where the model says, and turned by RoPE.
    each_token(n, pool, [&](std::size_t t) {
      const int position = visible_keys(l).position(t);
      place_heads(c, s, s.q.data() + t * q_dim, c.n_heads, layer.q_norm, l, position);
      place_heads(c, s, k + t * kv_dim, c.n_kv_heads, layer.k_norm, l, position);
    });
    attend(c, s, visible_keys(l), trace, pool);
    patch_head_outputs(c, s.patch, l, first_position, s.head_outputs.data(), n);
    // Output projection mixes the heads, and the residual connection adds the result to x.
    linear_batch(block_out, layer.wo, layer.bo, s.head_outputs.data(), n, pool, s.decode);
    if (sandwich) normalize_rows(c, block_out, block_out, n, layer.attn_post_norm, none, pool);
    kernels::add_in_place(x, block_out, n * dim);
    if (post_norm) normalize_rows(c, x, x, n, layer.attn_norm, layer.attn_norm_bias, pool);

    // --- feed-forward sub-block ---
    const float* ffn_in = x;
    if (pre_norm) {
      normalize_rows(c, normed, x, n, layer.ffn_norm, layer.ffn_norm_bias, pool);
      ffn_in = normed;
    }
    if (c.gated_ffn) {  // hidden = act(gate(x)) * up(x)
      const Projection gate_up[] = {{hidden, layer.ffn_gate, layer.ffn_gate_bias},
                                    {up, layer.ffn_up, layer.ffn_up_bias}};
      linear_batch(gate_up, ffn_in, n, pool, s.decode);
    } else {  // hidden = act(up(x))
      linear_batch(hidden, layer.ffn_up, layer.ffn_up_bias, ffn_in, n, pool, s.decode);
    }
    record_ffn(c, s.patch, l, first_position, hidden, s.patch.record_ffn_pre, n);
    if (c.gated_ffn) record_ffn(c, s.patch, l, first_position, up, s.patch.record_ffn_up, n);
    each_token(n, pool,
               [&](std::size_t t) { feed_forward_hidden(c, hidden + t * hidden_dim, up + t * hidden_dim); });
    record_ffn(c, s.patch, l, first_position, hidden, s.patch.record_ffn_hidden, n);
    linear_batch(block_out, layer.ffn_down, layer.ffn_down_bias, hidden, n, pool, s.decode);
    if (sandwich) normalize_rows(c, block_out, block_out, n, layer.ffn_post_norm, none, pool);
    kernels::add_in_place(x, block_out, n * dim);
    if (post_norm) normalize_rows(c, x, x, n, layer.ffn_norm, layer.ffn_norm_bias, pool);
  }

  patch_stream(c, s.patch, c.n_layers, first_position, x, n);
  record_residuals(residuals, first_position, c.n_layers, x, n, dim);

  // --- output ---
  // An encoder's output is x itself (a state per token; its heads read it: model/encoder.cpp).
  if (!c.causal) return;
  // Only the last token's next-token logits are wanted: the classifier, often the largest matrix, runs once.
  const float* last = x + (n - 1) * dim;
  if (w.final_norm.present()) {
    normalize(c, normed, last, w.final_norm, w.final_norm_bias);
    last = normed;
  }
  linear(s.logits.data(), w.output, none, last, pool, s.decode);
  softcap_logits(c, s.logits.data(), s.logits.size());
}

}  // namespace glassbox
