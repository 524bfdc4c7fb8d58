// The parts of the tokenizer.json reader: tokenizer_json_stream.cpp parses the file, streaming the big model
// tables past the document; tokenizer_json.cpp reads the model (vocabulary, merges, added tokens) and
// assembles the Tokenizer; tokenizer_json_pipeline.cpp recognizes the normalizer, pre_tokenizer and
// post_processor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/json_fields.hpp"
#include "glassbox/error.hpp"
#include "glassbox/tokenizer.hpp"
#include "tokenizer/loaders/packed_strings.hpp"
#include "tokenizer/sentencepiece_space.hpp"

namespace glassbox::tokenizer_json {

using json::Fields;
using json::Value;

inline const std::string& kMarker = kSentencePieceSpace;  // "▁", SentencePiece's space

// model.vocab and model.merges, read straight out of the file. A document of Qwen2's 151k pieces and 151k
// merges would take about 20 MB in RapidJSON's DOM (and 2x that while it is built); packed, they take about
// as much as their text.
struct StreamedModel {
  bool has_vocab = false;
  bool has_merges = false;
  PackedStrings pieces;      // model.vocab's keys, in file order
  std::vector<int32_t> ids;  // their ids, checked to be in 0..INT32_MAX
  PackedStrings merges;      // "left right", each checked to hold exactly one space
};

// Parses tokenizer.json into `doc`, except model.vocab (when it is an object) and model.merges (when it is an
// array), whose items go to `model`; in `doc` they stay an empty object and an empty array. Errors in the
// streamed items name the item: model.vocab["abc"], model.merges[7].
Result<void> parse_streaming(std::string_view text, const Fields& f, json::Document& doc,
                             StreamedModel& model);

// Whether a pipeline step, or a Sequence of them, includes a step of this type.
bool mentions(const Value* step, std::string_view type);

// Byte-level: a ByteLevel pre_tokenizer step, after at most one Split with a regex glassbox implements; sets
// kind, pre_tokenizer and add_space_prefix.
Result<void> read_byte_level_pipeline(const Value* normalizer, const Value* pre, const Fields& f,
                                      Vocabulary& v);

// SentencePiece-style: spaces become "▁" and "▁" is prepended, by the normalizer or by Metaspace; sets kind
// and add_space_prefix.
Result<void> read_sentencepiece_pipeline(const Value* normalizer, const Value* pre, const Fields& f,
                                         Vocabulary& v);

// WordPiece (BERT): a BertNormalizer (or a Sequence of NFD, Lowercase, StripAccents, BertNormalizer steps),
// or none, then a BertPreTokenizer; sets kind, wordpiece's normalizer choices and add_space_prefix.
Result<void> read_wordpiece_pipeline(const Value* normalizer, const Value* pre, const Fields& f,
                                     Vocabulary& v);

struct Specials {
  std::string bos;
  std::string eos;
  bool add_bos = false;
  bool eos_after_text = false;  // the template ends the text with eos (BERT's [SEP])
};

// A TemplateProcessing's "single" template: special tokens before the text are BOS (and added), after it EOS
// (glassbox never appends EOS; the id is still worth knowing); also RobertaProcessing/BertProcessing
// (cls ... sep), and the processors of a Sequence.
Result<void> read_post_processor(const Value* node, const std::string& path, const Fields& f, Specials& s);

}  // namespace glassbox::tokenizer_json
