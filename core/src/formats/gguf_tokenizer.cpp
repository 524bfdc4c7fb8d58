// A Tokenizer from GGUF metadata (tokenizer.ggml.*): the vocabulary a llama.cpp model file carries.
//   model            "llama": SentencePiece BPE (pieces, scores, "▁" for spaces, <0xXX> byte tokens)
//                    "gpt2":  byte-level BPE (pieces in GPT-2's byte mapping, merges "a b" by priority)
//   pre              the byte-level pre-tokenizer: "gpt-2"/"default", "llama-bpe"/"llama3"/"llama-v3",
//                    "qwen2"
//   tokens, scores, token_type, merges, bos/eos/unknown_token_id, add_bos_token, add_space_prefix
#include "formats/gguf.hpp"
#include "glassbox/formats.hpp"
#include "tokenizer/sentencepiece_space.hpp"
#include "glassbox/error.hpp"

namespace glassbox {
namespace {

// GGUF token types: 1 normal, 2 unknown, 3 control, 4 user defined, 5 unused, 6 byte.
Result<TokenType> token_type(const GgufFile& file, int64_t code, std::size_t id) {
  switch (code) {
    case 1:
      return TokenType::Normal;
    case 2:
      return TokenType::Unknown;
    case 3:
      return TokenType::Control;
    case 4:
      return TokenType::UserDefined;
    case 5:
      return TokenType::Unused;
    case 6:
      return TokenType::Byte;
    default:
      return error(ErrorCode::Malformed, file.source(), ": tokenizer.ggml.token_type[", id, "] must be in 1..6, found ", code);
  }
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
    return error(ErrorCode::Malformed, file.source(), ": metadata ", key, " must be an array of ", to_string(element), ", found ",
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
    return error(ErrorCode::Malformed, file.source(), ": metadata ", key, " is ", *v, ", past the vocabulary of ", n_tokens,
                 " tokens");
  return static_cast<int>(*v);
}

// Whether llama.cpp adds BOS when tokenizer.ggml.add_bos_token is absent (llama_vocab::impl::load in
// src/llama-vocab.cpp): SentencePiece vocabularies do; byte-level BPE ones only for the pre-tokenizers whose
// branch there sets add_bos (of those glassbox reads: the Llama 3 names, but not smaug-bpe, which shares the
// Llama 3 pre-tokenizer without BOS).
bool llama_cpp_adds_bos_by_default(bool sentencepiece, const std::string& pre) {
  return sentencepiece || pre == "llama-bpe" || pre == "llama3" || pre == "llama-v3";
}

}  // namespace

Result<Tokenizer> tokenizer_from_gguf(const GgufFile& file) {
  auto model = file.string("tokenizer.ggml.model");
  if (!model) return model.error();
  Vocabulary vocab;
  if (*model == "llama") {
    vocab.kind = TokenizerKind::SentencePiece;
  } else if (*model == "gpt2") {
    vocab.kind = TokenizerKind::ByteLevelBpe;
  } else {
    return error(ErrorCode::UnsupportedArchitecture, file.source(), ": tokenizer.ggml.model \"", *model,
                 "\" is not supported (glassbox reads \"llama\" and \"gpt2\" vocabularies)");
  }

  auto tokens = array_of(file, "tokenizer.ggml.tokens", GgufType::String, true);
  if (!tokens) return tokens.error();
  auto scores = array_of(file, "tokenizer.ggml.scores", GgufType::Float32, false);
  if (!scores) return scores.error();
  auto types = array_of(file, "tokenizer.ggml.token_type", GgufType::Int32, false);
  if (!types) return types.error();
  const std::size_t n = (*tokens)->items.size();
  if (*scores && (*scores)->items.size() != n)
    return error(ErrorCode::Malformed, file.source(), ": tokenizer.ggml.scores has ", (*scores)->items.size(), " entries for ", n,
                 " tokens");
  if (*types && (*types)->items.size() != n)
    return error(ErrorCode::Malformed, file.source(), ": tokenizer.ggml.token_type has ", (*types)->items.size(), " entries for ",
                 n, " tokens");

  for (std::size_t id = 0; id < n; ++id) {
    // The array accessors read each element in place (no GgufValue per element: vocabularies reach 150k).
    const std::string& piece = (*tokens)->items.text(id);
    vocab.pieces.push_back(vocab.kind == TokenizerKind::SentencePiece ? spaces_from_sentencepiece(piece)
                                                                      : piece);
    vocab.scores.push_back(*scores ? static_cast<float>((*scores)->items.real(id)) : 0.0f);
    if (*types) {
      auto type = token_type(file, (*types)->items.integer(id), id);
      if (!type) return type.error();
      vocab.types.push_back(*type);
    } else {
      vocab.types.push_back(TokenType::Normal);
    }
  }

  std::string pre_name;
  if (vocab.kind == TokenizerKind::ByteLevelBpe) {
    auto merges = array_of(file, "tokenizer.ggml.merges", GgufType::String, true);
    if (!merges) return merges.error();
    const GgufArray& merge_list = (*merges)->items;
    for (std::size_t i = 0; i < merge_list.size(); ++i)
      vocab.merges.push_back(merge_list.text(i));
    auto pre = file.string("tokenizer.ggml.pre", "default");
    if (!pre) return pre.error();
    pre_name = *pre;
    if (*pre == "default" || *pre == "gpt-2" || *pre == "gpt2") {
      vocab.pre_tokenizer = PreTokenizer::Gpt2;
    } else if (*pre == "llama-bpe" || *pre == "llama3" || *pre == "llama-v3" || *pre == "smaug-bpe") {
      vocab.pre_tokenizer = PreTokenizer::Llama3;
    } else if (*pre == "qwen2") {
      vocab.pre_tokenizer = PreTokenizer::Qwen2;
    } else {
      return error(ErrorCode::UnsupportedArchitecture, file.source(), ": tokenizer.ggml.pre \"", *pre,
                   "\" is not supported (glassbox knows gpt-2, llama-bpe and qwen2)");
    }
  }

  const bool spm = vocab.kind == TokenizerKind::SentencePiece;
  auto bos = special_id(file, "tokenizer.ggml.bos_token_id", spm ? 1 : -1, n);
  auto eos = special_id(file, "tokenizer.ggml.eos_token_id", spm ? 2 : -1, n);
  auto unk = special_id(file, "tokenizer.ggml.unknown_token_id", spm ? 0 : -1, n);
  for (auto* r : {&bos, &eos, &unk})
    if (!*r) return r->error();
  vocab.bos_id = *bos;
  vocab.eos_id = *eos;
  vocab.unk_id = *unk;
  // Without the keys, llama.cpp's defaults: SentencePiece adds the dummy-prefix space, byte-level BPE does
  // not.
  auto add_bos = file.boolean("tokenizer.ggml.add_bos_token", llama_cpp_adds_bos_by_default(spm, pre_name));
  if (!add_bos) return add_bos.error();
  auto add_space = file.boolean("tokenizer.ggml.add_space_prefix", spm);
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
