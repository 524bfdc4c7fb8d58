// Hugging Face tokenizer.json with a BPE model, in the two flavours small language models use:
//   byte-level (GPT-2, Llama 3, Qwen2): a ByteLevel pre_tokenizer, alone (GPT-2's regex) or after a Split
//     whose regex is GPT-2's, Llama 3's or Qwen2's; pieces and merges in GPT-2's byte mapping.
//   SentencePiece-style (Llama 2, Mistral, TinyLlama): spaces become "▁" (a Replace normalizer or a Metaspace
//     pre_tokenizer), "▁" is prepended to the text (Prepend, or Metaspace's prepend_scheme), unknown
//     characters fall back to <0xXX> byte pieces (byte_fallback).
// Special token ids come from the post_processor's template (which also says whether BOS is added) and
// otherwise from the usual names. Anything else a tokenizer.json can say (other models, normalizers or
// pre-tokenizers) is refused with an error naming the field, rather than encoded differently in silence.
// The pipeline's steps are read in tokenizer_json_pipeline.cpp.
#include <algorithm>
#include <unordered_map>

#include "formats/tokenizer_json.hpp"
#include "glassbox/formats.hpp"
#include "tokenizer/sentencepiece_space.hpp"

namespace glassbox {
namespace {

using namespace tokenizer_json;

// Names special tokens usually have, for files whose post_processor does not say.
constexpr const char* kBosNames[] = {"<s>", "<|begin_of_text|>", "<bos>", "<|startoftext|>", "<|endoftext|>"};
constexpr const char* kEosNames[] = {"</s>", "<|end_of_text|>", "<eos>", "<|endoftext|>"};
constexpr const char* kUnkNames[] = {"<unk>", "<|unk|>", "[UNK]"};

bool is_byte_piece(const std::string& piece) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
  return piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && hex(piece[3]) && hex(piece[4]) &&
         piece[5] == '>';
}

// --- the model: vocabulary, merges, added tokens ---------------------------------------------------------

struct Entry {
  std::string piece;
  bool set = false;
};

struct Added {
  int id;
  std::string content;
  bool special;
};

struct ModelParts {
  std::vector<Entry> by_id;  // model.vocab by id
  std::unordered_map<std::string, int> ids;
  std::vector<std::string> merges;  // "left right"
  std::vector<Added> added;
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::string unk_token;
};

Result<ModelParts> read_model(const Json& root, const Fields& f) {
  auto model = f.object(root, "", "model");
  if (!model) return model.error();
  if (!*model) return f.fail("model is missing (or null)");
  const Json& m = **model;
  auto type = f.type(m, "model");
  if (!type) return type.error();
  if (type->empty() && !(m.find("vocab") && m.find("merges"))) return f.fail("model.type is missing");
  if (!type->empty() && *type != "BPE")
    return f.fail("model.type \"", *type, "\" is not supported (glassbox reads BPE models)");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    auto affix = f.text(m, "model", key, "");
    if (!affix) return affix.error();
    if (!affix->empty()) return f.fail("model.", key, " \"", *affix, "\" is not supported");
  }

  ModelParts parts;
  auto byte_fallback = f.flag(m, "model", "byte_fallback", false);
  if (!byte_fallback) return byte_fallback.error();
  auto ignore_merges = f.flag(m, "model", "ignore_merges", false);
  if (!ignore_merges) return ignore_merges.error();
  auto unk = f.text(m, "model", "unk_token", "");
  if (!unk) return unk.error();
  parts.byte_fallback = *byte_fallback;
  parts.ignore_merges = *ignore_merges;
  parts.unk_token = *unk;

  auto added = f.array(root, "", "added_tokens");
  if (!added) return added.error();
  if (*added) {
    for (std::size_t k = 0; k < (*added)->array().size(); ++k) {
      const Json& a = (*added)->array()[k];
      const std::string path = cat("added_tokens[", k, "]");
      if (!a.is_object()) return f.fail(path, " must be an object");
      const Json* id_field = a.find("id");
      if (!id_field) return f.fail(path, ".id is missing");
      auto id = f.id(*id_field, path + ".id");
      if (!id) return id.error();
      const Json* content = a.find("content");
      if (!content || !content->is_string()) return f.fail(path, ".content must be a string");
      auto special = f.flag(a, path, "special", false);
      if (!special) return special.error();
      parts.added.push_back({*id, content->string(), *special});
    }
  }

  const Json* vocab = m.find("vocab");
  if (!vocab) return f.fail("model.vocab is missing");
  if (!vocab->is_object()) return f.fail("model.vocab must be an object");
  // Ids index a table; bounding them by the number of entries keeps a hostile file from asking for a huge
  // one.
  const std::size_t limit = vocab->members().size() + parts.added.size();
  for (const Added& a : parts.added) {
    if (static_cast<std::size_t>(a.id) >= limit)
      return f.fail("added token \"", a.content, "\" has id ", a.id, ", beyond the ", limit,
                    " tokens the file lists");
  }
  parts.by_id.resize(vocab->members().size());
  parts.ids.reserve(vocab->members().size());
  for (const auto& [piece, value] : vocab->members()) {
    auto id = f.id(value, "");
    if (!id) return f.fail("model.vocab[\"", piece, "\"] must be a non-negative integer id");
    if (static_cast<std::size_t>(*id) >= limit)
      return f.fail("model.vocab[\"", piece, "\"] is ", *id, ", beyond the ", limit,
                    " tokens the file lists");
    if (static_cast<std::size_t>(*id) >= parts.by_id.size())
      parts.by_id.resize(static_cast<std::size_t>(*id) + 1);
    Entry& e = parts.by_id[static_cast<std::size_t>(*id)];
    if (e.set) return f.fail("model.vocab: \"", e.piece, "\" and \"", piece, "\" both have id ", *id);
    e = {piece, true};
    parts.ids.emplace(piece, *id);
  }

  const Json* merges = m.find("merges");
  if (!merges) return f.fail("model.merges is missing");
  if (!merges->is_array()) return f.fail("model.merges must be an array");
  parts.merges.reserve(merges->array().size());
  for (std::size_t k = 0; k < merges->array().size(); ++k) {
    const Json& merge = merges->array()[k];
    if (merge.is_string()) {
      // As Hugging Face reads them: exactly two pieces around one space.
      const std::string& line = merge.string();
      const std::size_t space = line.find(' ');
      if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
        return f.fail("model.merges[", k, "] \"", line, "\" must be two pieces separated by one space");
      parts.merges.push_back(line);
    } else if (merge.is_array() && merge.array().size() == 2 && merge.array()[0].is_string() &&
               merge.array()[1].is_string()) {
      const std::string& left = merge.array()[0].string();
      const std::string& right = merge.array()[1].string();
      // Neither byte-level nor SentencePiece pieces hold a space (they spell it "Ġ" or "▁").
      if (left.find(' ') != std::string::npos || right.find(' ') != std::string::npos)
        return f.fail("model.merges[", k, "] has a piece with a space, which glassbox does not support");
      std::string line;
      line.reserve(left.size() + right.size() + 1);
      line.append(left).append(" ").append(right);
      parts.merges.push_back(std::move(line));
    } else {
      return f.fail("model.merges[", k, "] must be a string \"left right\" or an array of two strings");
    }
  }
  return parts;
}

}  // namespace

Result<Tokenizer> read_tokenizer_json(const Bytes& bytes) {
  const std::string& source = bytes.name();
  const Fields f(source);
  auto root = parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), source);
  if (!root) return root.error();
  if (!root->is_object()) return f.fail("the top level must be an object");

  auto parts = read_model(*root, f);
  if (!parts) return parts.error();
  auto normalizer = f.object(*root, "", "normalizer");
  if (!normalizer) return normalizer.error();
  auto pre = f.object(*root, "", "pre_tokenizer");
  if (!pre) return pre.error();
  auto post = f.object(*root, "", "post_processor");
  if (!post) return post.error();

  Vocabulary v;
  if (mentions(*pre, "ByteLevel")) {
    GLASSBOX_TRY(read_byte_level_pipeline(*normalizer, *pre, f, v));
  } else if (parts->byte_fallback || mentions(*pre, "Metaspace") || mentions(*normalizer, "Prepend") ||
             mentions(*normalizer, "Replace")) {
    GLASSBOX_TRY(read_sentencepiece_pipeline(*normalizer, *pre, f, v));
  } else {
    return f.fail("the BPE model is neither byte-level (a ByteLevel pre_tokenizer) nor SentencePiece-style ",
                  "(byte_fallback, a Metaspace pre_tokenizer or a normalizer writing spaces as \"", kMarker,
                  "\")");
  }
  const bool spm = v.kind == TokenizerKind::SentencePiece;
  v.ignore_merges = parts->ignore_merges;

  // Pieces and types: the model's vocabulary, then the added tokens over it.
  std::size_t n = parts->by_id.size();
  for (const Added& a : parts->added)
    n = std::max(n, static_cast<std::size_t>(a.id) + 1);
  v.pieces.resize(n);
  v.types.assign(n, TokenType::Unused);  // ids neither list names
  for (std::size_t id = 0; id < parts->by_id.size(); ++id) {
    const Entry& e = parts->by_id[id];
    if (!e.set) continue;
    v.pieces[id] = spm ? spaces_from_sentencepiece(e.piece) : e.piece;
    v.types[id] = spm && parts->byte_fallback && is_byte_piece(e.piece) ? TokenType::Byte : TokenType::Normal;
  }
  std::unordered_map<std::string, int> added_ids;
  for (const Added& a : parts->added) {
    v.pieces[static_cast<std::size_t>(a.id)] = a.content;
    v.types[static_cast<std::size_t>(a.id)] = a.special ? TokenType::Control : TokenType::UserDefined;
    added_ids.emplace(a.content, a.id);
  }
  auto find_token = [&](const std::string& content) {
    if (const auto found = added_ids.find(content); found != added_ids.end()) return found->second;
    if (const auto found = parts->ids.find(content); found != parts->ids.end()) return found->second;
    return -1;
  };

  if (!parts->unk_token.empty()) {
    v.unk_id = find_token(parts->unk_token);
    if (v.unk_id < 0) return f.fail("model.unk_token \"", parts->unk_token, "\" is not in the vocabulary");
  }
  Specials specials;
  GLASSBOX_TRY(read_post_processor(*post, "post_processor", f, specials));
  // Guessing by name looks only at added tokens: a big vocabulary may well have "<s>" as an ordinary piece.
  auto first_of = [&](const std::string& named, const auto& names) {
    if (!named.empty()) return find_token(named);
    for (const char* name : names)
      if (const auto found = added_ids.find(name); found != added_ids.end()) return found->second;
    return -1;
  };
  v.bos_id = first_of(specials.bos, kBosNames);
  v.eos_id = first_of(specials.eos, kEosNames);
  if (v.unk_id < 0 && spm) v.unk_id = first_of("", kUnkNames);
  if (v.unk_id >= 0) v.types[static_cast<std::size_t>(v.unk_id)] = TokenType::Unknown;
  v.add_bos = specials.add_bos && v.bos_id >= 0;

  // Byte-level merges keep their rank order (Tokenizer::create checks their pieces). A SentencePiece-style
  // file's merges are ordered by the score of the merged piece (highest first), so a piece's first appearance
  // as a merge result ranks it, and the SentencePiece encoder, which merges the best-scoring piece first,
  // gives Hugging Face's result. Pieces no merge makes (single characters, bytes, specials) score below every
  // merge.
  if (!spm) {
    v.scores.assign(n, 0.0f);
    v.merges = std::move(parts->merges);
    return Tokenizer::create(std::move(v), source);
  }
  v.scores.assign(n, -static_cast<float>(parts->merges.size()) - 1.0f);
  std::vector<bool> ranked(n, false);
  for (std::size_t k = 0; k < parts->merges.size(); ++k) {
    const std::string& line = parts->merges[k];
    const std::size_t space = line.find(' ');
    const std::string left = line.substr(0, space);
    const std::string right = line.substr(space + 1);
    for (const std::string* piece : {&left, &right}) {
      if (piece->empty() || !parts->ids.count(*piece))
        return f.fail("model.merges[", k, "] needs the piece \"", *piece, "\", which is not in model.vocab");
    }
    const auto merged = parts->ids.find(left + right);
    if (merged == parts->ids.end())
      return f.fail("model.merges[", k, "] makes \"", left + right, "\", which is not in model.vocab");
    const auto id = static_cast<std::size_t>(merged->second);
    if (!ranked[id]) v.scores[id] = -static_cast<float>(k);
    ranked[id] = true;
  }
  return Tokenizer::create(std::move(v), source);
}

}  // namespace glassbox