// Hugging Face tokenizer.json with a BPE model, in the two flavours small language models use:
//   byte-level (GPT-2, Llama 3, Qwen2): a ByteLevel pre_tokenizer, alone (GPT-2's regex) or after a Split
//     whose regex is GPT-2's, Llama 3's or Qwen2's; pieces and merges in GPT-2's byte mapping.
//   SentencePiece-style (Llama 2, Mistral, TinyLlama): spaces become "▁" (a Replace normalizer or a Metaspace
//     pre_tokenizer), "▁" is prepended to the text (Prepend, or Metaspace's prepend_scheme), unknown
//     characters fall back to <0xXX> byte pieces (byte_fallback).
// or with a WordPiece model (BERT and the encoders after it): a BertNormalizer, a BertPreTokenizer, the vocabulary
//   with "##" (continuing_subword_prefix) before continuing pieces, [CLS] ... [SEP] from the post_processor.
// Special token ids come from the post_processor's template (which also says whether BOS is added) and
// otherwise from the usual names. Anything else a tokenizer.json can say (other models, normalizers or
// pre-tokenizers) is refused with an error naming the field, rather than encoded differently in silence.
// The file is parsed in tokenizer_json_stream.cpp and the pipeline's steps read in
// tokenizer_json_pipeline.cpp.
#include <algorithm>
#include <limits>

#include "glassbox/formats.hpp"
#include "tokenizer/loaders/tokenizer_json.hpp"
#include "tokenizer/sentencepiece_space.hpp"

namespace glassbox {
namespace {

using namespace tokenizer_json;

// Names special tokens usually have, for files whose post_processor does not say.
constexpr const char* kBosNames[] = {"<s>", "<|begin_of_text|>", "<bos>", "<|startoftext|>", "<|endoftext|>"};
constexpr const char* kEosNames[] = {"</s>", "<|end_of_text|>", "<eos>", "<|endoftext|>"};
constexpr const char* kUnkNames[] = {"<unk>", "<|unk|>", "[UNK]"};
// An encoder's mask and padding tokens, which tokenizer.json names only in passing (padding) or not at all.
constexpr const char* kMaskNames[] = {"[MASK]", "<mask>"};
constexpr const char* kPadNames[] = {"[PAD]", "<pad>"};
constexpr const char* kClsNames[] = {"[CLS]", "<s>"};
constexpr const char* kSepNames[] = {"[SEP]", "</s>"};

bool is_byte_piece(std::string_view piece) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
  return piece.size() == 6 && piece.substr(0, 3) == "<0x" && hex(piece[3]) && hex(piece[4]) &&
         piece[5] == '>';
}

// --- the model: settings and added tokens from the document, vocabulary and merges streamed -----------------

struct Added {
  int id;
  std::string content;
  bool special;
};

struct ModelSettings {
  bool wordpiece = false;  // model.type "WordPiece" (else BPE)
  std::string continuing_prefix;
  int max_input_chars_per_word = 100;
  std::string pad_token;  // the document's padding.pad_token, when it pads
  std::vector<Added> added;
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::string unk_token;
};

Result<ModelSettings> read_settings(const Value& root, const Fields& f) {
  GLASSBOX_ASSIGN(const Value* model, f.object(root, "", "model"));
  if (!model) return f.fail("model is missing (or null)");
  const Value& m = *model;
  GLASSBOX_ASSIGN(const std::string type, f.text(m, "model", "type", ""));
  if (type.empty() && !(json::find(m, "vocab") && json::find(m, "merges")))
    return f.fail("model.type is missing");
  if (!type.empty() && type != "BPE" && type != "WordPiece")
    // A kind of tokenizer glassbox lacks (Unigram, WordLevel): not a broken file.
    return recode(
        f.fail("model.type \"", type, "\" is not supported (glassbox reads BPE and WordPiece models)"),
        ErrorCode::UnsupportedArchitecture);
  ModelSettings s;
  s.wordpiece = type == "WordPiece";
  if (s.wordpiece) {
    GLASSBOX_ASSIGN(s.continuing_prefix, f.text(m, "model", "continuing_subword_prefix", "##"));
    GLASSBOX_ASSIGN(const int64_t max_chars, f.whole_number(m, "model", "max_input_chars_per_word", 1,
                                                            std::numeric_limits<int32_t>::max(), 100));
    s.max_input_chars_per_word = static_cast<int>(max_chars);
    GLASSBOX_ASSIGN(const Value* padding, f.object(root, "", "padding"));
    if (padding) {
      GLASSBOX_ASSIGN(s.pad_token, f.text(*padding, "padding", "pad_token", ""));
    }
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (s.wordpiece) break;
    GLASSBOX_ASSIGN(const std::string affix, f.text(m, "model", key, ""));
    if (!affix.empty()) return f.fail("model.", key, " \"", affix, "\" is not supported");
  }

  GLASSBOX_ASSIGN(s.byte_fallback, f.flag(m, "model", "byte_fallback", false));
  GLASSBOX_ASSIGN(s.ignore_merges, f.flag(m, "model", "ignore_merges", false));
  GLASSBOX_ASSIGN(s.unk_token, f.text(m, "model", "unk_token", ""));

  GLASSBOX_ASSIGN(const Value* added, f.array(root, "", "added_tokens"));
  if (added) {
    for (rapidjson::SizeType k = 0; k < added->Size(); ++k) {
      const Value& a = (*added)[k];
      const std::string path = json::item("added_tokens", k);
      if (!a.IsObject()) return f.fail(path, " must be an object");
      const Value* id_field = json::find(a, "id");
      if (!id_field) return f.fail(path, ".id is missing");
      GLASSBOX_ASSIGN(const int id, f.id(*id_field, path + ".id"));
      const Value* content = json::find(a, "content");
      if (!content || !content->IsString()) return f.fail(path, ".content must be a string");
      GLASSBOX_ASSIGN(const bool special, f.flag(a, path, "special", false));
      s.added.push_back({id, std::string(json::text_of(*content)), special});
    }
  }

  // In the document, a streamed table is an empty object (array); any other value was not streamed.
  const Value* vocab = json::find(m, "vocab");
  if (!vocab) return f.fail("model.vocab is missing");
  if (!vocab->IsObject()) return f.fail("model.vocab must be an object");
  if (s.wordpiece) return s;  // a WordPiece model has no merges
  const Value* merges = json::find(m, "merges");
  if (!merges) return f.fail("model.merges is missing");
  if (!merges->IsArray()) return f.fail("model.merges must be an array");
  return s;
}

// model.vocab by id: each id's entry in the streamed list, -1 for ids it does not name. Ids index a table;
// bounding them by the number of entries keeps a hostile file from asking for a huge one.
Result<std::vector<int32_t>> entries_by_id(const StreamedModel& model, const std::vector<Added>& added,
                                           const Fields& f) {
  const std::size_t limit = model.pieces.size() + added.size();
  for (const Added& a : added) {
    if (static_cast<std::size_t>(a.id) >= limit)
      return f.fail("added token \"", a.content, "\" has id ", a.id, ", beyond the ", limit,
                    " tokens the file lists");
  }
  std::vector<int32_t> by_id(model.pieces.size(), -1);
  for (std::size_t k = 0; k < model.pieces.size(); ++k) {
    const auto id = static_cast<std::size_t>(model.ids[k]);
    if (id >= limit)
      return f.fail("model.vocab[\"", model.pieces[k], "\"] is ", id, ", beyond the ", limit,
                    " tokens the file lists");
    if (id >= by_id.size()) by_id.resize(id + 1, -1);
    if (by_id[id] >= 0)
      return f.fail("model.vocab: \"", model.pieces[static_cast<std::size_t>(by_id[id])], "\" and \"",
                    model.pieces[k], "\" both have id ", id);
    by_id[id] = static_cast<int32_t>(k);
  }
  return by_id;
}

// model.vocab's ids by piece (the first of duplicated keys, as a map would keep).
class VocabLookup {
 public:
  explicit VocabLookup(const StreamedModel& model) : model_(model), index_(model.pieces.size()) {
    for (std::size_t k = 0; k < model.pieces.size(); ++k) {
      const std::string_view piece = model.pieces[k];
      index_.insert(detail::IdIndex::hash_text(piece), static_cast<int32_t>(k),
                    [&](int32_t other) { return model.pieces[static_cast<std::size_t>(other)] == piece; });
    }
  }

  // The id of a piece, or -1.
  int id(std::string_view piece) const {
    const int entry = index_.find(detail::IdIndex::hash_text(piece), [&](int32_t k) {
      return model_.pieces[static_cast<std::size_t>(k)] == piece;
    });
    return entry < 0 ? -1 : model_.ids[static_cast<std::size_t>(entry)];
  }

 private:
  const StreamedModel& model_;
  detail::IdIndex index_;
};

// A SentencePiece-style file's merges are ordered by the score of the merged piece (highest first), so a
// piece's first appearance as a merge result ranks it, and the SentencePiece encoder, which merges the
// best-scoring piece first, gives Hugging Face's result. Pieces no merge makes (single characters, bytes,
// specials) score below every merge.
Result<void> score_by_merges(const StreamedModel& model, const VocabLookup& lookup, const Fields& f,
                             Vocabulary& v) {
  const std::size_t n = v.pieces.size();
  v.scores.assign(n, -static_cast<float>(model.merges.size()) - 1.0f);
  std::vector<bool> ranked(n, false);
  std::string merged;
  for (std::size_t k = 0; k < model.merges.size(); ++k) {
    const std::string_view line = model.merges[k];
    const std::size_t space = line.find(' ');
    const std::string_view left = line.substr(0, space);
    const std::string_view right = line.substr(space + 1);
    for (const std::string_view piece : {left, right}) {
      if (piece.empty() || lookup.id(piece) < 0)
        return f.fail("model.merges[", k, "] needs the piece \"", piece, "\", which is not in model.vocab");
    }
    merged.assign(left).append(right);
    const int id = lookup.id(merged);
    if (id < 0) return f.fail("model.merges[", k, "] makes \"", merged, "\", which is not in model.vocab");
    if (!ranked[static_cast<std::size_t>(id)])
      v.scores[static_cast<std::size_t>(id)] = -static_cast<float>(k);
    ranked[static_cast<std::size_t>(id)] = true;
  }
  return ok();
}

// What a tokenizer.json describes: the vocabulary, and a byte-level one's merges as they were packed while
// streaming (Tokenizer::create takes them so, never as 150k std::strings).
struct Parts {
  Vocabulary vocabulary;
  PackedStrings merges;
};

// Everything else parsed on the way is freed when this returns, before Tokenizer::create builds its tables.
Result<Parts> read_parts(const Bytes& bytes) {
  const Fields f(bytes.name());
  json::Document doc;
  StreamedModel model;
  GLASSBOX_TRY(parse_streaming(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), f,
                               doc, model));
  if (!doc.IsObject()) return f.fail("the top level must be an object");

  GLASSBOX_ASSIGN(const ModelSettings settings, read_settings(doc, f));
  GLASSBOX_ASSIGN(const Value* normalizer, f.object(doc, "", "normalizer"));
  GLASSBOX_ASSIGN(const Value* pre, f.object(doc, "", "pre_tokenizer"));
  GLASSBOX_ASSIGN(const Value* post, f.object(doc, "", "post_processor"));

  Vocabulary v;
  if (settings.wordpiece) {
    GLASSBOX_TRY(read_wordpiece_pipeline(normalizer, pre, f, v));
    v.wordpiece.continuing_prefix = settings.continuing_prefix;
    v.wordpiece.max_input_chars_per_word = settings.max_input_chars_per_word;
  } else if (mentions(pre, "ByteLevel")) {
    GLASSBOX_TRY(read_byte_level_pipeline(normalizer, pre, f, v));
  } else if (settings.byte_fallback || mentions(pre, "Metaspace") || mentions(normalizer, "Prepend") ||
             mentions(normalizer, "Replace")) {
    GLASSBOX_TRY(read_sentencepiece_pipeline(normalizer, pre, f, v));
  } else {
    return f.fail("the BPE model is neither byte-level (a ByteLevel pre_tokenizer) nor SentencePiece-style ",
                  "(byte_fallback, a Metaspace pre_tokenizer or a normalizer writing spaces as \"", kMarker,
                  "\")");
  }
  const bool spm = v.kind == TokenizerKind::SentencePiece;
  v.ignore_merges = settings.ignore_merges;

  // Pieces and types: the model's vocabulary, then the added tokens over it.
  {
    GLASSBOX_ASSIGN(const std::vector<int32_t> by_id, entries_by_id(model, settings.added, f));
    std::size_t n = by_id.size();
    for (const Added& a : settings.added)
      n = std::max(n, static_cast<std::size_t>(a.id) + 1);
    v.pieces.resize(n);
    v.types.assign(n, TokenType::Unused);  // ids neither list names
    for (std::size_t id = 0; id < by_id.size(); ++id) {
      if (by_id[id] < 0) continue;
      const std::string_view piece = model.pieces[static_cast<std::size_t>(by_id[id])];
      v.pieces[id] = spm ? spaces_from_sentencepiece(piece) : std::string(piece);
      v.types[id] =
          spm && settings.byte_fallback && is_byte_piece(piece) ? TokenType::Byte : TokenType::Normal;
    }
  }
  for (const Added& a : settings.added) {
    v.pieces[static_cast<std::size_t>(a.id)] = a.content;
    v.types[static_cast<std::size_t>(a.id)] = a.special ? TokenType::Control : TokenType::UserDefined;
  }

  {
    const VocabLookup lookup(model);
    auto added_id = [&](std::string_view content) {
      for (const Added& a : settings.added)
        if (a.content == content) return a.id;  // the first of duplicates, as a map would keep
      return -1;
    };
    auto find_token = [&](std::string_view content) {
      const int id = added_id(content);
      return id >= 0 ? id : lookup.id(content);
    };
    if (!settings.unk_token.empty()) {
      v.unk_id = find_token(settings.unk_token);
      if (v.unk_id < 0)
        return f.fail("model.unk_token \"", settings.unk_token, "\" is not in the vocabulary");
    }
    Specials specials;
    GLASSBOX_TRY(read_post_processor(post, "post_processor", f, specials));
    // Guessing by name looks only at added tokens: a big vocabulary may well have "<s>" as an ordinary piece.
    auto first_of = [&](const std::string& named, const auto& names) {
      if (!named.empty()) return find_token(named);
      for (const char* name : names)
        if (const int id = added_id(name); id >= 0) return id;
      return -1;
    };
    v.bos_id = first_of(specials.bos, kBosNames);
    v.eos_id = first_of(specials.eos, kEosNames);
    if (v.unk_id < 0 && spm) v.unk_id = first_of("", kUnkNames);
    if (v.unk_id >= 0) v.types[static_cast<std::size_t>(v.unk_id)] = TokenType::Unknown;
    v.add_bos = specials.add_bos && v.bos_id >= 0;
    if (settings.wordpiece) {
      // [CLS] text [SEP]: what the template puts before the text starts it, what it puts after ends it.
      v.cls_id = first_of(specials.bos, kClsNames);
      v.sep_id = first_of(specials.eos, kSepNames);
      v.bos_id = v.cls_id;
      v.eos_id = v.sep_id;
      v.add_sep = specials.eos_after_text && v.add_bos && v.sep_id >= 0;
      v.mask_id = first_of("", kMaskNames);
      v.pad_id = first_of(settings.pad_token, kPadNames);
      v.scores.assign(v.pieces.size(), 0.0f);
      return Parts{std::move(v), {}};
    }
    if (spm) {
      GLASSBOX_TRY(score_by_merges(model, lookup, f, v));
      return Parts{std::move(v), {}};
    }
  }
  // Byte-level merges keep their rank order (Tokenizer::create checks their pieces).
  v.scores.assign(v.pieces.size(), 0.0f);
  return Parts{std::move(v), std::move(model.merges)};
}

}  // namespace

Result<Tokenizer> read_tokenizer_json(const Bytes& bytes) {
  GLASSBOX_ASSIGN(Parts parts, read_parts(bytes));
  const PackedStrings& merges = parts.merges;
  return Tokenizer::create(
      std::move(parts.vocabulary), merges.size(), [&](std::size_t k) { return merges[k]; }, bytes.name());
}

}  // namespace glassbox
