// Running an encoder (BERT and its family): texts in, a state per token out, in one padded batch; and the
// heads that read those states: pooled sentence embeddings and the masked-language-model head's predictions.
// The forward pass is the decoders' own (model/forward.cpp), with attention over the whole text.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "glassbox/model.hpp"
#include "glassbox/result.hpp"
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
  // The same for one text, recording into `attention` every head's full attention rows (each query over
  // every token of the text: glassbox/trace.hpp), what the views draw. Bad-argument for several texts.
  Result<EncodedTexts> encode(std::span<const std::vector<int>> texts, AttentionTrace& attention);

  // The masked-language-model head's logits (vocab_size) at one token's final state (glassbox/model.hpp,
  // MaskedLmHead). Fails with bad-argument when the model was saved without the head.
  Result<std::vector<float>> masked_lm_logits(std::span<const float> state);

  const Model& model() const { return *model_; }

 private:
  Encoder() = default;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<RunState> state_;  // grown to the largest batch seen

  Result<EncodedTexts> run(std::span<const std::vector<int>> texts, AttentionTrace* attention);
};

// One embedding per text: the mean of its tokens' states, or its first token's ([CLS]); divided by its
// length (L2) when `normalize`. Fails with bad-argument on Pooling::None.
Result<std::vector<std::vector<float>>> pool_states(const EncodedTexts& encoded, Pooling pooling,
                                                    bool normalize);

// cos(a, b) of every pair of embeddings: [a][b] (1 on the diagonal; 0 where a vector is all zeros).
std::vector<std::vector<float>> cosine_similarities(const std::vector<std::vector<float>>& embeddings);

}  // namespace glassbox
