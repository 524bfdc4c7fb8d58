// Running an encoder (BERT and its family): texts in, a state per token out, in one padded batch; and the
// heads that read those states: pooled sentence embeddings and the masked-language-model head's predictions.
// The forward pass is the decoders' own (model/forward.cpp), with attention over the whole text.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/ablation.hpp"
#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
#include "glassbox/tokenizer.hpp"
#include "glassbox/top_tokens.hpp"
#include "glassbox/trace.hpp"

namespace glassbox {

class ThreadPool;
struct RunState;

struct EncoderOptions {
  int threads = 1;  // worker threads for the matrix products (1: run on the caller's thread)
};

// The final states of a batch of texts, computed in one pass with the texts padded to the longest.
struct EncodedTexts {
  int dim = 0;
  int stride = 0;             // rows per text: the longest text's token count
  std::vector<int> lengths;   // each text's token count
  std::vector<float> states;  // [texts][stride][dim]; the rows past a text's length are padding

  int texts() const { return static_cast<int>(lengths.size()); }
  // The state of `token` (< lengths[text]) of `text`.
  std::span<const float> state(int text, int token) const {
    return std::span<const float>(states).subspan(
        (static_cast<std::size_t>(text) * static_cast<std::size_t>(stride) +
         static_cast<std::size_t>(token)) *
            static_cast<std::size_t>(dim),
        static_cast<std::size_t>(dim));
  }
};

class Encoder {
 public:
  // Fails with bad-argument on a decoder (it continues text: a Session and a Generator run it).
  static Result<Encoder> create(std::shared_ptr<const Model> model, EncoderOptions options = {});
  Encoder(Encoder&&) noexcept;
  Encoder& operator=(Encoder&&) noexcept;
  ~Encoder();

  // Each text's final states. The texts (token ids, [CLS] and [SEP] included) go through one forward pass,
  // padded to the longest; each text's states are the bits it gets alone. Fails (bad-argument, naming the
  // text) on no texts, an empty text, an id outside the vocabulary, or a text longer than the model's
  // positions: texts are refused, not truncated, so that no result silently describes less than was asked.
  Result<EncodedTexts> encode(std::span<const std::vector<int>> texts);
  // The same, recording into `attention` every head's full attention rows, what the views draw: text i's
  // query q is row i * stride + q, over the lengths[i] tokens of its own text (glassbox/trace.hpp), so a
  // text's rows are the bits it gets alone. The rows past a text's length are its padding: their queries
  // are computed (over the text) and thrown away; no row has a padding key.
  Result<EncodedTexts> encode(std::span<const std::vector<int>> texts, AttentionTrace& attention);

  // Head ablation (glassbox/ablation.hpp): each head's output scaled by table[layer * n_heads + head] in
  // every encode from now on; empty or all 1: every head as trained. Fails with bad-argument on a table
  // of the wrong length or a scale that is not finite, and then keeps the ablation it had.
  Result<void> set_head_scales(std::span<const float> table);
  std::span<const float> head_scales() const { return head_scales_; }  // empty when none is set

  // The masked-language-model head's logits (vocab_size) at one token's final state (glassbox/model.hpp,
  // MaskedLmHead). Fails with bad-argument when the model was saved without the head.
  Result<std::vector<float>> masked_lm_logits(std::span<const float> state);

  const Model& model() const { return *model_; }
  // Whether the model was saved with its masked-language-model head (what fill-mask needs).
  bool has_masked_lm_head() const { return model_->weights.masked_lm.present(); }

 private:
  Encoder() = default;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<RunState> state_;  // grown to the largest batch seen
  std::vector<float> head_scales_;   // the ablation in force (empty: none), copied into state_ at each run

  Result<EncodedTexts> run(std::span<const std::vector<int>> texts, AttentionTrace* attention);
};

// One embedding per text: the mean of its tokens' states, or its first token's ([CLS]); divided by its
// length (L2) when `normalize`. Fails with bad-argument on Pooling::None.
Result<std::vector<std::vector<float>>> pool_states(const EncodedTexts& encoded, Pooling pooling,
                                                    bool normalize);

// cos(a, b) of every pair of embeddings: [a][b] (1 on the diagonal; 0 where a vector is all zeros).
std::vector<std::vector<float>> cosine_similarities(const std::vector<std::vector<float>>& embeddings);

// The two tasks an encoder does for a person, from text to what the CLI prints and the page shows; `glassbox
// embed` / `glassbox fill-mask` and the WebAssembly bindings all call these, so they cannot differ.

// Each text tokenized as the model reads it ([CLS] ... [SEP]), all of them encoded in one padded batch, each
// pooled into one embedding, and the cosine similarity of every pair.
struct TextEmbeddings {
  std::vector<std::vector<int>> tokens;        // per text
  std::vector<std::vector<float>> embeddings;  // per text
  Pooling pooling = Pooling::Mean;             // the pooling used
  std::vector<std::vector<float>> similarity;  // [a][b]
};
// `pooling`: none given means what the file asks for, else mean. `normalize` divides each embedding by its
// length, as does a model whose file asks for it. Fails as Encoder::encode does (no texts, an empty text, a
// text longer than the model's positions: refused, not truncated).
Result<TextEmbeddings> embed_texts(Encoder& encoder, const Tokenizer& tokenizer,
                                   std::span<const std::string> texts, std::optional<Pooling> pooling,
                                   bool normalize);

// Where each head of an encoder looks in a batch of texts, as the views draw it: the texts tokenized as the
// model reads them (`special`: Parse reads [MASK] written in a text as the mask token, as fill-mask does),
// encoded in one padded batch with their attention recorded.
struct TextsAttention {
  std::vector<std::vector<int>> tokens;  // per text
  int stride = 0;                        // rows per text: the longest text's token count
  AttentionTrace attention;              // Encoder::encode's rows: text i's query q is row i * stride + q
  // Text i's rows alone (row 0 its first token), what the head measurements read.
  AttentionTrace text(int i) const {
    return attention.rows(i * stride, static_cast<int>(tokens[static_cast<std::size_t>(i)].size()));
  }
};
// Fails as Encoder::encode does.
Result<TextsAttention> attend_texts(Encoder& encoder, const Tokenizer& tokenizer,
                                    std::span<const std::string> texts, SpecialTokens special);

// A [MASK] of a text and what the masked-language-model head puts there.
struct MaskFill {
  int position = 0;                          // in `tokens`
  std::vector<TokenProbability> candidates;  // the top k, most likely first
};
struct FilledMasks {
  std::vector<int> tokens;  // the text's ids ([MASK] written in the text is the mask token)
  std::vector<MaskFill> masks;
};
// Fails with bad-argument, in words that say what to do: a tokenizer without a [MASK] token, a model saved
// without its MLM head, a text with no [MASK], a text longer than the model's positions; top_k < 1.
Result<FilledMasks> fill_masks(Encoder& encoder, const Tokenizer& tokenizer, std::string_view text,
                               int top_k);

// What switching heads off does to fill-mask: at each [MASK], the distribution with every head as trained
// (p) against the one with `table` in force (q; Encoder::set_head_scales), compared as glassbox/ablation.hpp
// compares a decoder's next token, with the top k of both. The encoder keeps the ablation it had before.
// Fails as fill_masks does, and with bad-argument on a table that does not fit the model.
struct MaskAblation {
  int position = 0;
  DistributionChange change;
  std::vector<TokenProbability> before, after;  // the top k without and with the ablation
};
struct FillMaskAblation {
  std::vector<int> tokens;
  std::vector<MaskAblation> masks;
};
Result<FillMaskAblation> ablate_fill_masks(Encoder& encoder, const Tokenizer& tokenizer,
                                           std::string_view text, int top_k, std::span<const float> table);

}  // namespace glassbox
