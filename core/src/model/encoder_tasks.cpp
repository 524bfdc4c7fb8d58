// The encoder's two tasks as a person asks for them (glassbox/encoder.hpp): sentence embeddings and their
// similarities, and fill-mask. Text in, the numbers the CLI prints and the page draws out.
#include "glassbox/ablation.hpp"
#include "glassbox/encoder.hpp"
#include "glassbox/error.hpp"

namespace glassbox {
namespace {

std::vector<int> token_ids(const Tokenizer& tokenizer, std::string_view text, SpecialTokens special) {
  std::vector<int> ids;
  for (const EncodedToken& t : tokenizer.encode(text, tokenizer.adds_bos(), special))
    ids.push_back(t.id);
  return ids;
}

}  // namespace

Result<TextEmbeddings> embed_texts(Encoder& encoder, const Tokenizer& tokenizer,
                                   std::span<const std::string> texts, std::optional<Pooling> pooling,
                                   bool normalize) {
  const ModelConfig& c = encoder.model().config;
  TextEmbeddings out;
  // Mean pooling where neither the caller nor the file says.
  out.pooling = pooling ? *pooling : (c.pooling == Pooling::None ? Pooling::Mean : c.pooling);
  for (const std::string& text : texts)
    out.tokens.push_back(token_ids(tokenizer, text, SpecialTokens::AsText));
  GLASSBOX_ASSIGN(const EncodedTexts encoded, encoder.encode(out.tokens));
  GLASSBOX_ASSIGN(out.embeddings, pool_states(encoded, out.pooling, normalize || c.normalize_embedding));
  out.similarity = cosine_similarities(out.embeddings);
  return out;
}

Result<TextsAttention> attend_texts(Encoder& encoder, const Tokenizer& tokenizer,
                                    std::span<const std::string> texts, SpecialTokens special) {
  TextsAttention out;
  for (const std::string& text : texts)
    out.tokens.push_back(token_ids(tokenizer, text, special));
  GLASSBOX_ASSIGN(const EncodedTexts encoded, encoder.encode(out.tokens, out.attention));
  out.stride = encoded.stride;
  return out;
}

namespace {

// A text's ids and the MLM head's logits at each of its [MASK], under the encoder's ablation in force.
struct MaskLogits {
  std::vector<int> tokens;
  std::vector<int> positions;
  std::vector<std::vector<float>> logits;  // per mask
};

Result<MaskLogits> mask_logits(Encoder& encoder, const Tokenizer& tokenizer, std::string_view text) {
  const int mask_id = tokenizer.mask_id();
  if (mask_id < 0)
    return error(ErrorCode::BadArgument, "the tokenizer has no [MASK] token, so there is nothing to fill");
  // The head is checked before the text: no text could help a model without one.
  if (!encoder.has_masked_lm_head()) return encoder.masked_lm_logits({}).error();
  MaskLogits out;
  out.tokens = token_ids(tokenizer, text, SpecialTokens::Parse);
  for (std::size_t p = 0; p < out.tokens.size(); ++p)
    if (out.tokens[p] == mask_id) out.positions.push_back(static_cast<int>(p));
  if (out.positions.empty())
    return error(ErrorCode::BadArgument, "the text has no ", tokenizer.piece(mask_id),
                 " to fill: write it where a word should be predicted");
  GLASSBOX_ASSIGN(const EncodedTexts encoded, encoder.encode(std::span(&out.tokens, 1)));
  for (int p : out.positions) {
    GLASSBOX_ASSIGN(std::vector<float> logits, encoder.masked_lm_logits(encoded.state(0, p)));
    out.logits.push_back(std::move(logits));
  }
  return out;
}

Result<void> check_top_k(int top_k) {
  if (top_k < 1) return error(ErrorCode::BadArgument, "fill-mask: top-k must be >= 1, found ", top_k);
  return ok();
}

}  // namespace

Result<FilledMasks> fill_masks(Encoder& encoder, const Tokenizer& tokenizer, std::string_view text,
                               int top_k) {
  GLASSBOX_TRY(check_top_k(top_k));
  GLASSBOX_ASSIGN(const MaskLogits masks, mask_logits(encoder, tokenizer, text));
  FilledMasks out;
  out.tokens = masks.tokens;
  for (std::size_t m = 0; m < masks.positions.size(); ++m)
    out.masks.push_back({masks.positions[m], top_tokens(masks.logits[m], top_k)});
  return out;
}

Result<FillMaskAblation> ablate_fill_masks(Encoder& encoder, const Tokenizer& tokenizer,
                                           std::string_view text, int top_k, std::span<const float> table) {
  GLASSBOX_TRY(check_top_k(top_k));
  const std::vector<float> kept(encoder.head_scales().begin(), encoder.head_scales().end());
  GLASSBOX_TRY(encoder.set_head_scales({}));
  Result<MaskLogits> before = mask_logits(encoder, tokenizer, text);
  Result<void> set = before ? encoder.set_head_scales(table) : ok();
  Result<MaskLogits> after = before && set ? mask_logits(encoder, tokenizer, text) : before;
  GLASSBOX_TRY(encoder.set_head_scales(kept));  // the encoder is left as it was, whatever happened
  if (!before) return before.error();
  if (!set) return set.error();
  if (!after) return after.error();
  FillMaskAblation out;
  out.tokens = before->tokens;
  for (std::size_t m = 0; m < before->positions.size(); ++m) {
    GLASSBOX_ASSIGN(const DistributionChange change,
                    compare_distributions(before->logits[m], after->logits[m]));
    out.masks.push_back({.position = before->positions[m],
                         .change = change,
                         .before = top_tokens(before->logits[m], top_k),
                         .after = top_tokens(after->logits[m], top_k)});
  }
  return out;
}

}  // namespace glassbox
