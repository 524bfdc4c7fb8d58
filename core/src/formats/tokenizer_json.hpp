// The parts of the tokenizer.json reader: tokenizer_json.cpp reads the model (vocabulary, merges, added
// tokens) and assembles the Tokenizer; tokenizer_json_pipeline.cpp recognizes the normalizer, pre_tokenizer
// and post_processor.
#pragma once

#include "tokenizer/sentencepiece_space.hpp"

#include <limits>
#include <string>
#include <string_view>

#include "formats/json.hpp"
#include "glassbox/tokenizer.hpp"
#include "glassbox/error.hpp"

namespace glassbox::tokenizer_json {

inline const std::string& kMarker = kSentencePieceSpace;  // "▁", SentencePiece's space

inline std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : cat(path, ".", key);
}

// Typed access to fields, with errors that name the file and the field's path.
class Fields {
 public:
  explicit Fields(const std::string& source) : source_(source) {}

  template <class... Parts>
  Error fail(const Parts&... parts) const {
    return error(ErrorCode::Malformed, source_, ": ", parts...);
  }

  // obj[key] when it is an object; nullptr when absent or null.
  Result<const Json*> object(const Json& obj, const std::string& path, std::string_view key) const {
    const Json* v = obj.find(key);
    if (!v || v->is_null()) return static_cast<const Json*>(nullptr);
    if (!v->is_object()) return fail(join(path, key), " must be an object");
    return v;
  }
  Result<const Json*> array(const Json& obj, const std::string& path, std::string_view key) const {
    const Json* v = obj.find(key);
    if (!v || v->is_null()) return static_cast<const Json*>(nullptr);
    if (!v->is_array()) return fail(join(path, key), " must be an array");
    return v;
  }
  Result<std::string> text(const Json& obj, const std::string& path, std::string_view key,
                           const std::string& fallback) const {
    const Json* v = obj.find(key);
    if (!v || v->is_null()) return fallback;
    if (!v->is_string()) return fail(join(path, key), " must be a string");
    return v->string();
  }
  Result<bool> flag(const Json& obj, const std::string& path, std::string_view key, bool fallback) const {
    const Json* v = obj.find(key);
    if (!v || v->is_null()) return fallback;
    if (!v->is_bool()) return fail(join(path, key), " must be true or false");
    return v->boolean();
  }
  Result<int> id(const Json& v, const std::string& path) const {
    if (!v.is_number() || v.number() < 0 || v.number() > std::numeric_limits<int32_t>::max() ||
        v.number() != static_cast<double>(static_cast<int64_t>(v.number())))
      return fail(path, " must be a non-negative integer id");
    return static_cast<int>(v.number());
  }
  // The "type" of a pipeline step ("" when absent).
  Result<std::string> type(const Json& step, const std::string& path) const {
    return text(step, path, "type", "");
  }

 private:
  const std::string& source_;
};

// Whether a pipeline step, or a Sequence of them, includes a step of this type.
bool mentions(const Json* step, std::string_view type);

// Byte-level: a ByteLevel pre_tokenizer step, after at most one Split with a regex glassbox implements; sets
// kind, pre_tokenizer and add_space_prefix.
Result<void> read_byte_level_pipeline(const Json* normalizer, const Json* pre, const Fields& f,
                                      Vocabulary& v);

// SentencePiece-style: spaces become "▁" and "▁" is prepended, by the normalizer or by Metaspace; sets kind
// and add_space_prefix.
Result<void> read_sentencepiece_pipeline(const Json* normalizer, const Json* pre, const Fields& f,
                                         Vocabulary& v);

struct Specials {
  std::string bos;
  std::string eos;
  bool add_bos = false;
};

// A TemplateProcessing's "single" template: special tokens before the text are BOS (and added), after it EOS
// (glassbox never appends EOS; the id is still worth knowing); also RobertaProcessing/BertProcessing
// (cls ... sep), and the processors of a Sequence.
Result<void> read_post_processor(const Json* node, const std::string& path, const Fields& f, Specials& s);

}  // namespace glassbox::tokenizer_json
