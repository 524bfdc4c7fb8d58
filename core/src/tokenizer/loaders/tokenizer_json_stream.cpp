// tokenizer.json in one pass of SAX events: everything but the two big tables goes to a RapidJSON document
// (the pipeline, added tokens and model settings are small and read by field), while model.vocab's pieces
// and model.merges' pairs are checked and packed as they go by (tokenizer_json.hpp says why).
#include <cmath>
#include <limits>
#include <optional>

#include "tokenizer/loaders/tokenizer_json.hpp"

namespace glassbox::tokenizer_json {
namespace {

using rapidjson::SizeType;

// A number as a token id: a whole number in 0..INT32_MAX, or nothing.
std::optional<int32_t> as_id(double value) {
  if (!(value >= 0.0 && value <= std::numeric_limits<int32_t>::max()) || value != std::floor(value))
    return std::nullopt;
  return static_cast<int32_t>(value);
}

std::optional<int32_t> as_id(int64_t value) {
  if (value < 0 || value > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int32_t>(value);
}

std::optional<int32_t> as_id(uint64_t value) {
  if (value > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) return std::nullopt;
  return static_cast<int32_t>(value);
}

// RapidJSON's Handler: events inside model.vocab and model.merges are consumed here, the others forwarded to
// the document. Returning false stops the parse; failure() then says why.
class Events {
 public:
  Events(json::Document& doc, StreamedModel& model, const Fields& f) : doc_(doc), model_(model), f_(f) {}
  const std::optional<Error>& failure() const { return failure_; }

  bool Null() { return streaming() ? not_an_item() : doc_.Null(); }
  bool Bool(bool b) { return streaming() ? not_an_item() : doc_.Bool(b); }
  bool Int(int i) { return streaming() ? number(as_id(int64_t{i})) : doc_.Int(i); }
  bool Uint(unsigned u) { return streaming() ? number(as_id(uint64_t{u})) : doc_.Uint(u); }
  bool Int64(int64_t i) { return streaming() ? number(as_id(i)) : doc_.Int64(i); }
  bool Uint64(uint64_t u) { return streaming() ? number(as_id(u)) : doc_.Uint64(u); }
  bool Double(double d) { return streaming() ? number(as_id(d)) : doc_.Double(d); }
  bool RawNumber(const char* s, SizeType n, bool copy) {
    return streaming() ? not_an_item() : doc_.RawNumber(s, n, copy);
  }
  bool String(const char* s, SizeType n, bool copy) {
    return streaming() ? string(std::string_view(s, n)) : doc_.String(s, n, copy);
  }
  bool Key(const char* s, SizeType n, bool copy) {
    return streaming() ? vocab_key(std::string_view(s, n)) : document_key(std::string_view(s, n), copy);
  }
  bool StartObject() { return open(true); }
  bool StartArray() { return open(false); }
  bool EndObject(SizeType members) { return close(members); }
  bool EndArray(SizeType elements) { return close(elements); }

 private:
  enum class Mode { Document, Vocab, Merges };
  // Depths, counting open containers: the root object is 1, "model" 2, "vocab" and "merges" 3, a merge
  // written as a pair 4.
  static constexpr int kTable = 3;
  static constexpr int kPair = 4;

  bool streaming() const { return mode_ != Mode::Document; }

  template <class... Parts>
  bool stop(const Parts&... parts) {
    failure_ = f_.fail(parts...);
    return false;
  }

  std::string merge_path() const { return json::item("model.merges", model_.merges.size()); }

  // --- the document: forwards events, and notices where the two tables begin

  bool document_key(std::string_view key, bool copy) {
    if (depth_ == 1 && objects_[0]) {
      if (key == "model") {
        // The tables streamed from one "model" and the settings read from another must not mix.
        if (seen_model_) return stop("model appears twice");
        seen_model_ = true;
      }
      root_key_ = key;
    } else if (in_model()) {
      if ((key == "vocab" && model_.has_vocab) || (key == "merges" && model_.has_merges))
        return stop("model.", key, " appears twice");
      model_key_ = key;
    }
    return doc_.Key(key.data(), static_cast<SizeType>(key.size()), copy);
  }

  // Whether the innermost open container is the root's "model" object.
  bool in_model() const { return depth_ == 2 && objects_[0] && objects_[1] && root_key_ == "model"; }

  bool open(bool object) {
    if (mode_ == Mode::Document) {
      if (in_model() && object && model_key_ == "vocab") {
        mode_ = Mode::Vocab;
        model_.has_vocab = true;
      } else if (in_model() && !object && model_key_ == "merges") {
        mode_ = Mode::Merges;
        model_.has_merges = true;
      } else {
        objects_.push_back(object);
        ++depth_;
        return object ? doc_.StartObject() : doc_.StartArray();
      }
      ++depth_;
      return true;
    }
    ++depth_;
    if (mode_ == Mode::Merges && !object && depth_ == kPair) {
      pair_count_ = 0;
      return true;
    }
    return not_an_item();
  }

  bool close(SizeType count) {
    --depth_;
    if (mode_ == Mode::Document) {
      const bool object = objects_.back();
      objects_.pop_back();
      return object ? doc_.EndObject(count) : doc_.EndArray(count);
    }
    if (depth_ == kTable) {  // the end of a merge written as a pair
      if (pair_count_ != 2) return not_an_item();
      if (!model_.merges.push_back(pair_left_, " ", pair_right_)) return stop("model.merges is too large");
      return true;
    }
    // The end of the table: the document keeps an empty one in its place.
    const bool vocab = mode_ == Mode::Vocab;
    mode_ = Mode::Document;
    return vocab ? doc_.StartObject() && doc_.EndObject(0) : doc_.StartArray() && doc_.EndArray(0);
  }

  // --- the tables' items

  bool vocab_key(std::string_view key) {
    piece_.assign(key);
    return true;
  }

  bool number(std::optional<int32_t> id) {
    if (mode_ != Mode::Vocab || !id) return not_an_item();
    if (!model_.pieces.push_back(piece_)) return stop("model.vocab is too large");
    model_.ids.push_back(*id);
    return true;
  }

  bool string(std::string_view s) {
    if (mode_ != Mode::Merges) return not_an_item();
    if (depth_ == kTable) {
      // As Hugging Face reads them: exactly two pieces around one space.
      const std::size_t space = s.find(' ');
      if (space == std::string_view::npos || s.find(' ', space + 1) != std::string_view::npos)
        return stop(merge_path(), " \"", s, "\" must be two pieces separated by one space");
      if (!model_.merges.push_back(s)) return stop("model.merges is too large");
      return true;
    }
    if (++pair_count_ > 2) return not_an_item();
    // Neither byte-level nor SentencePiece pieces hold a space (they spell it "Ġ" or "▁").
    if (s.find(' ') != std::string_view::npos)
      return stop(merge_path(), " has a piece with a space, which glassbox does not support");
    (pair_count_ == 1 ? pair_left_ : pair_right_).assign(s);
    return true;
  }

  // Anything else inside a table.
  bool not_an_item() {
    if (mode_ == Mode::Vocab) return stop("model.vocab[\"", piece_, "\"] must be a non-negative integer id");
    return stop(merge_path(), " must be a string \"left right\" or an array of two strings");
  }

  json::Document& doc_;
  StreamedModel& model_;
  const Fields& f_;
  std::optional<Error> failure_;

  Mode mode_ = Mode::Document;
  int depth_ = 0;
  std::vector<bool> objects_;  // of the containers open in the document: object or array
  std::string root_key_;       // the last key of the root object
  std::string model_key_;      // ... and of the model object
  bool seen_model_ = false;
  std::string piece_;  // the vocabulary key whose id comes next
  int pair_count_ = 0;
  std::string pair_left_;
  std::string pair_right_;
};

}  // namespace

Result<void> parse_streaming(std::string_view text, const Fields& f, json::Document& doc,
                             StreamedModel& model) {
  Events events(doc, model, f);
  Result<void> parsed;
  // Populate collects the document from the events forwarded to it and keeps it only if the parse succeeds.
  auto generate = [&](json::Document&) {
    parsed = json::read_events(text, f.source(), events);
    return parsed.ok();
  };
  doc.Populate(generate);
  if (events.failure()) return *events.failure();
  return parsed;
}

}  // namespace glassbox::tokenizer_json
