// A Tokenizer from GGUF metadata (tokenizer.ggml.*): the vocabulary a llama.cpp model file carries.
//   model            "llama": SentencePiece BPE (pieces, scores, "▁" for spaces, <0xXX> byte tokens)
//                    "gpt2":  byte-level BPE (pieces in GPT-2's byte mapping, merges "a b" by priority)
//                    "bert":  WordPiece (pieces in llama.cpp's phantom-space form, wordpiece_spelling.hpp;
//                             cls/seperator/padding/mask token ids, add_eos/add_sep_token, normalizer.*)
//   pre              the byte-level pre-tokenizer: "gpt-2", "llama-bpe", "qwen2" (and the aliases in
//                    gguf_names.hpp)
//   tokens, scores, token_type, merges, bos/eos/unknown/eot/eom_token_id, add_bos_token, add_space_prefix
// and tokenizer.chat_template.
// The key names and the spellings of models, pre-tokenizers and token types are in gguf_names.hpp, which
// the writer (gguf_export.cpp) shares.
#include "formats/gguf.hpp"
#include "formats/gguf_names.hpp"
#include "glassbox/error.hpp"
#include "glassbox/formats.hpp"
#include "tokenizer/sentencepiece_space.hpp"
#include "tokenizer/wordpiece_spelling.hpp"

namespace glassbox {
namespace {

Result<TokenType> token_type(const GgufFile& file, int64_t code, std::size_t id) {
  for (const gguf::TokenTypeCode& t : gguf::kTokenTypeCodes)
    if (t.code == code) return t.type;
  return error(ErrorCode::Malformed, file.source(), ": ", gguf::kTokenTypeKey, "[", id,
               "] must be in 1..6, found ", code);
}

Result<const GgufValue*> array_of(const GgufFile& file, const char* key, GgufType element, bool required) {
  const GgufValue* v = file.find(key);
  if (!v) {
    if (required) return error(ErrorCode::Malformed, file.source(), ": metadata ", key, " is missing");
    return static_cast<const GgufValue*>(nullptr);
  }
  const bool numeric_ok = element == GgufType::Int32 && v->type == GgufType::Array &&
                          (v->items.empty() || v->items.front().is_integer());
  if (v->type != GgufType::Array || (v->element_type != element && !numeric_ok))
    return error(ErrorCode::Malformed, file.source(), ": metadata ", key, " must be an array of ",
                 to_string(element), ", found ",
                 v->type == GgufType::Array ? std::string("an array of ") + to_string(v->element_type)
                                            : to_string(v->type));
  return v;
}

Result<int> special_id(const GgufFile& file, const char* key, int fallback, std::size_t n_tokens) {
  auto v = file.integer(key, fallback);
  if (!v) return v.error();
  // 4294967295 (uint32 -1) is how files say "no such token".
  if (*v == 4294967295LL || *v < 0) return -1;
  if (*v >= static_cast<int64_t>(n_tokens))
    return error(ErrorCode::Malformed, file.source(), ": metadata ", key, " is ", *v,
                 ", past the vocabulary of ", n_tokens, " tokens");
  return static_cast<int>(*v);
}

const gguf::PreTokenizerName* pre_tokenizer_named(const std::string& name) {
  for (const gguf::PreTokenizerName& p : gguf::kPreTokenizers)
    if (name == p.name) return &p;
  return nullptr;
}

// A WordPiece vocabulary's special tokens and normalizer. Absent keys take llama.cpp's defaults for "bert"
// (llama_vocab::impl::load): [CLS] 101, [SEP] 102, [UNK] 100, [PAD] 0, [MASK] 103 (bert-base's ids; here only
// where the vocabulary is that large), [CLS] and [SEP] always added, lowercase, and strip accents when lowercasing.
// GGUF has no keys for BertNormalizer's other choices: llama.cpp always cleans the text and sets CJK apart, and
// puts no limit on the length of a word (Hugging Face's [UNK] past 100 characters is tokenizer.json's).
Result<void> read_wordpiece_settings(const GgufFile& file, std::size_t n, Vocabulary& vocab) {
  auto id_or = [&](const char* key, int fallback) -> Result<int> {
    return special_id(file, key, fallback < static_cast<int>(n) ? fallback : -1, n);
  };
  GLASSBOX_ASSIGN(const int bos, id_or(gguf::kBosTokenIdKey, -1));
  GLASSBOX_ASSIGN(const int cls, id_or(gguf::kClsTokenIdKey, bos >= 0 ? bos : 101));
  GLASSBOX_ASSIGN(const int eos, id_or(gguf::kEosTokenIdKey, -1));
  GLASSBOX_ASSIGN(const int sep, id_or(gguf::kSepTokenIdKey, eos >= 0 ? eos : 102));
  GLASSBOX_ASSIGN(vocab.unk_id, id_or(gguf::kUnknownTokenIdKey, 100));
  GLASSBOX_ASSIGN(vocab.pad_id, id_or(gguf::kPadTokenIdKey, 0));
  GLASSBOX_ASSIGN(vocab.mask_id, id_or(gguf::kMaskTokenIdKey, 103));
  vocab.cls_id = cls;
  vocab.sep_id = sep;
  // A text starts with BOS, which llama.cpp's converter sets to [CLS], and ends with [SEP].
  vocab.bos_id = bos >= 0 ? bos : cls;
  vocab.eos_id = eos >= 0 ? eos : sep;
  // llama.cpp's WordPiece adds [CLS] before and [SEP] after every text it tokenizes with its special tokens,
  // whatever tokenizer.ggml.add_*_token say (llama_vocab::impl::tokenize): gguf-py writes add_sep_token for
  // the separator between the two texts of a pair, which a one-text tokenization never has, so the keys are
  // only checked for their type here.
  GLASSBOX_TRY(file.boolean(gguf::kAddBosTokenKey, true));
  GLASSBOX_TRY(file.boolean(gguf::kAddEosTokenKey, true));
  GLASSBOX_TRY(file.boolean(gguf::kAddSepTokenKey, true));
  vocab.add_bos = true;
  vocab.add_sep = vocab.sep_id >= 0;
  vocab.add_space_prefix = false;

  WordPieceOptions& o = vocab.wordpiece;
  o.max_input_chars_per_word = 0;  // llama.cpp's WordPiece covers a word of any length
  GLASSBOX_ASSIGN(o.lowercase, file.boolean(gguf::kNormalizerLowercaseKey, true));
  GLASSBOX_ASSIGN(o.strip_accents, file.boolean(gguf::kNormalizerStripAccentsKey, o.lowercase));
  if (vocab.unk_id >= 0) vocab.types[static_cast<std::size_t>(vocab.unk_id)] = TokenType::Unknown;
  return ok();
}

}  // namespace

Result<Tokenizer> tokenizer_from_gguf(const GgufFile& file) {
  auto model = file.string(gguf::kTokenizerModelKey);
  if (!model) return model.error();
  Vocabulary vocab;
  const gguf::TokenizerModelName* known = nullptr;
  for (const gguf::TokenizerModelName& m : gguf::kTokenizerModels)
    if (*model == m.name) known = &m;
  if (!known)
    return error(ErrorCode::UnsupportedArchitecture, file.source(), ": ", gguf::kTokenizerModelKey, " \"",
                 *model,
                 "\" is not supported (glassbox reads \"llama\", \"gpt2\" and \"bert\" vocabularies)");
  vocab.kind = known->kind;

  auto tokens = array_of(file, gguf::kTokensKey, GgufType::String, true);
  if (!tokens) return tokens.error();
  auto scores = array_of(file, gguf::kScoresKey, GgufType::Float32, false);
  if (!scores) return scores.error();
  auto types = array_of(file, gguf::kTokenTypeKey, GgufType::Int32, false);
  if (!types) return types.error();
  const std::size_t n = (*tokens)->items.size();
  if (*scores && (*scores)->items.size() != n)
    return error(ErrorCode::Malformed, file.source(), ": ", gguf::kScoresKey, " has ",
                 (*scores)->items.size(), " entries for ", n, " tokens");
  if (*types && (*types)->items.size() != n)
    return error(ErrorCode::Malformed, file.source(), ": ", gguf::kTokenTypeKey, " has ",
                 (*types)->items.size(), " entries for ", n, " tokens");

  for (std::size_t id = 0; id < n; ++id) {
    // The array accessors read each element in place (no GgufValue per element: vocabularies reach 150k).
    const std::string& piece = (*tokens)->items.text(id);
    vocab.scores.push_back(*scores ? static_cast<float>((*scores)->items.real(id)) : 0.0f);
    if (*types) {
      auto type = token_type(file, (*types)->items.integer(id), id);
      if (!type) return type.error();
      vocab.types.push_back(*type);
    } else {
      vocab.types.push_back(TokenType::Normal);
    }
    switch (vocab.kind) {
      case TokenizerKind::SentencePiece:
        vocab.pieces.push_back(spaces_from_sentencepiece(piece));
        break;
      case TokenizerKind::ByteLevelBpe:
        vocab.pieces.push_back(piece);
        break;
      case TokenizerKind::WordPiece:
        vocab.pieces.push_back(
            wordpiece_from_phantom(piece, vocab.types.back(), vocab.wordpiece.continuing_prefix));
        break;
    }
  }
  if (vocab.kind == TokenizerKind::WordPiece) {
    GLASSBOX_TRY(read_wordpiece_settings(file, n, vocab));
    auto chat_template = file.string(gguf::kChatTemplateKey, "");
    if (!chat_template) return chat_template.error();
    vocab.chat_template = *chat_template;
    return Tokenizer::create(std::move(vocab), file.source());
  }

  // Without the key, llama.cpp's default: SentencePiece vocabularies add BOS; byte-level BPE ones only for
  // the pre-tokenizers whose branch there sets add_bos.
  bool adds_bos_by_default = vocab.kind == TokenizerKind::SentencePiece;
  if (vocab.kind == TokenizerKind::ByteLevelBpe) {
    auto merges = array_of(file, gguf::kMergesKey, GgufType::String, true);
    if (!merges) return merges.error();
    const GgufArray& merge_list = (*merges)->items;
    for (std::size_t i = 0; i < merge_list.size(); ++i)
      vocab.merges.push_back(merge_list.text(i));
    auto pre = file.string(gguf::kTokenizerPreKey, "default");
    if (!pre) return pre.error();
    const gguf::PreTokenizerName* known_pre = pre_tokenizer_named(*pre);
    if (!known_pre)
      return error(ErrorCode::UnsupportedArchitecture, file.source(), ": ", gguf::kTokenizerPreKey, " \"",
                   *pre, "\" is not supported (glassbox knows gpt-2, llama-bpe and qwen2)");
    vocab.pre_tokenizer = known_pre->pre;
    adds_bos_by_default = known_pre->adds_bos_by_default;
  }

  const bool spm = vocab.kind == TokenizerKind::SentencePiece;
  auto bos = special_id(file, gguf::kBosTokenIdKey, spm ? 1 : -1, n);
  auto eos = special_id(file, gguf::kEosTokenIdKey, spm ? 2 : -1, n);
  auto unk = special_id(file, gguf::kUnknownTokenIdKey, spm ? 0 : -1, n);
  auto eot = special_id(file, gguf::kEotTokenIdKey, -1, n);
  auto eom = special_id(file, gguf::kEomTokenIdKey, -1, n);
  for (auto* r : {&bos, &eos, &unk, &eot, &eom})
    if (!*r) return r->error();
  vocab.bos_id = *bos;
  vocab.eos_id = *eos;
  vocab.unk_id = *unk;
  vocab.eot_id = *eot;
  vocab.eom_id = *eom;
  auto chat_template = file.string(gguf::kChatTemplateKey, "");
  if (!chat_template) return chat_template.error();
  vocab.chat_template = *chat_template;
  auto add_bos = file.boolean(gguf::kAddBosTokenKey, adds_bos_by_default);
  if (!add_bos) return add_bos.error();
  // Without the key, llama.cpp's default: SentencePiece adds the dummy-prefix space, byte-level BPE does not.
  auto add_space = file.boolean(gguf::kAddSpacePrefixKey, spm);
  if (!add_space) return add_space.error();
  vocab.add_bos = *add_bos;
  vocab.add_space_prefix = *add_space;
  return Tokenizer::create(std::move(vocab), file.source());
}

Result<Tokenizer> read_gguf_tokenizer(std::shared_ptr<const Bytes> bytes) {
  auto file = read_gguf(std::move(bytes));
  if (!file) return file.error();
  return tokenizer_from_gguf(*file);
}

}  // namespace glassbox
