// Reading the JSON that model files carry (Hugging Face config.json and tokenizer.json, safetensors headers)
// with RapidJSON. Parsing is iterative (no recursion, whatever the nesting) and nesting deeper than kMaxDepth
// is an error, so a hostile file exhausts neither the stack nor memory with brackets. Numbers are converted
// by RapidJSON itself, which does not depend on the C locale (strtod reads "0.5" as 0 under a locale whose
// decimal separator is a comma), with one exception made here (see NumberGuard). Syntax errors give the byte offset: "<source>: invalid JSON at byte N: ...".
// Typed access to the parsed fields is json_fields.hpp.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "glassbox/result.hpp"

namespace glassbox::json {

using Value = rapidjson::Value;
using Document = rapidjson::Document;

constexpr int kMaxDepth = 256;
// Numbers reach the guard below as text; it converts them with full precision: doubles round correctly (as
// strtod would), not within a few units in the last place.
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;
constexpr unsigned kNumberFlags = rapidjson::kParseFullPrecisionFlag;

// "<source>: invalid JSON at byte <offset>: <what>"
Error syntax_error(const std::string& source, std::size_t offset, std::string_view what);

// Why RapidJSON stopped, in English.
const char* describe(rapidjson::ParseErrorCode code);

namespace detail {

// True for a number written with a fraction or an exponent whose digits are all zero: "0.0", "-0e100".
bool is_fractional_zero(std::string_view number);

// Forwards every SAX event to the wrapped handler, counting open objects and arrays, and stops the parse
// when they nest deeper than kMaxDepth. Numbers arrive as text (kParseNumbersAsStringsFlag) and are converted
// here. The reason: RapidJSON 1.1.0, the version Debian ships, mis-reads a zero written with a fraction or
// exponent beyond 22 places ("0e100", "0.000000000000000000000000"): its full-precision path normalizes a zero
// significand, which is undefined behaviour (count leading zeros of 0) and on x86 yields garbage such as
// -3.99e146 (Tencent/rapidjson issues 1249 and 1441, fixed upstream after 1.1.0). So such a zero becomes
// a signed 0.0 here, and every other number goes through RapidJSON's own full-precision conversion.
template <class Handler>
class DepthLimit {
 public:
  explicit DepthLimit(Handler& inner) : inner_(inner) {}
  bool too_deep() const { return too_deep_; }
  // Why a number could not be converted (for example "Number too big to be stored in double"), or null.
  const char* number_error() const { return number_error_; }

  bool Null() { return inner_.Null(); }
  bool Bool(bool b) { return inner_.Bool(b); }
  bool Int(int i) { return inner_.Int(i); }
  bool Uint(unsigned u) { return inner_.Uint(u); }
  bool Int64(int64_t i) { return inner_.Int64(i); }
  bool Uint64(uint64_t u) { return inner_.Uint64(u); }
  bool Double(double d) { return inner_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    if (is_fractional_zero({s, n})) return inner_.Double(s[0] == '-' ? -0.0 : 0.0);
    rapidjson::MemoryStream number(s, n);
    const rapidjson::ParseResult converted = number_reader_.Parse<kNumberFlags>(number, inner_);
    if (converted.Code() == rapidjson::kParseErrorTermination) return false;  // the inner handler stopped
    if (converted.IsError()) number_error_ = describe(converted.Code());
    return !converted.IsError();
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return inner_.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return inner_.Key(s, n, copy); }
  bool StartObject() { return open() && inner_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) { return close() && inner_.EndObject(members); }
  bool StartArray() { return open() && inner_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return close() && inner_.EndArray(elements); }

 private:
  bool open() {
    too_deep_ = ++depth_ > kMaxDepth;
    return !too_deep_;
  }
  bool close() {
    --depth_;
    return true;
  }

  Handler& inner_;
  rapidjson::Reader number_reader_;
  int depth_ = 0;
  bool too_deep_ = false;
  const char* number_error_ = nullptr;
};

}  // namespace detail

// Runs RapidJSON's reader over `text`, sending its SAX events (RapidJSON's Handler concept) to `handler`.
// A handler that stops the parse (an event returned false) knows why: its caller reports that reason, and the
// error returned here then only says where.
template <class Handler>
Result<void> read_events(std::string_view text, const std::string& source, Handler& handler) {
  detail::DepthLimit<Handler> limited(handler);
  rapidjson::MemoryStream stream(text.data(), text.size());
  rapidjson::Reader reader;
  const rapidjson::ParseResult result = reader.Parse<kParseFlags>(stream, limited);
  if (!result.IsError()) return ok();
  if (limited.too_deep()) return syntax_error(source, result.Offset(), "nesting deeper than 256 levels");
  if (limited.number_error()) return syntax_error(source, result.Offset(), limited.number_error());
  return syntax_error(source, result.Offset(), describe(result.Code()));
}

// Parses one JSON document (surrounding whitespace allowed) into `doc`. `source` names the input in errors.
Result<void> parse(std::string_view text, const std::string& source, Document& doc);

}  // namespace glassbox::json
