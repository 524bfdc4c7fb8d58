// Typed access to the fields of a parsed JSON document (json_reader.hpp), with errors that name the file and
// the field's path: "tokenizer.json: model.vocab["abc"] must be a non-negative integer id". The one place
// where config.json, tokenizer.json and safetensors readers turn JSON values into C++ values.
//
// A member that is absent and a member that is null both mean "not given": the caller's fallback applies.
// Paths are written as the user would look them up: "model.vocab", "added_tokens[2].id".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/json_reader.hpp"
#include "glassbox/error.hpp"

namespace glassbox::json {

// "model" + "vocab" -> "model.vocab" ("" + "model" -> "model").
std::string join(std::string_view path, std::string_view key);
// "model.merges" + 3 -> "model.merges[3]".
std::string item(std::string_view path, std::size_t index);

// The first member of `object` named `key`, or nullptr (also when `object` is not an object).
const Value* find(const Value& object, std::string_view key);

// A string value's bytes (JSON strings may hold NUL characters, so never as a C string).
inline std::string_view text_of(const Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

class Fields {
 public:
  explicit Fields(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  // ErrorCode::Malformed, "<source>: " followed by the parts.
  template <class... Parts>
  Error fail(const Parts&... parts) const {
    return error(ErrorCode::Malformed, source_, ": ", parts...);
  }

  // parent[key] when given: must be an object (array); nullptr when not given.
  Result<const Value*> object(const Value& parent, std::string_view path, std::string_view key) const;
  Result<const Value*> array(const Value& parent, std::string_view path, std::string_view key) const;
  // parent[key] when given: must be a string (true or false, a number).
  Result<std::string> text(const Value& parent, std::string_view path, std::string_view key,
                           std::string_view fallback) const;
  Result<bool> flag(const Value& parent, std::string_view path, std::string_view key, bool fallback) const;
  Result<std::optional<double>> number(const Value& parent, std::string_view path,
                                       std::string_view key) const;

  // A whole number in [min, max], checked as a double before any conversion (converting 1e10 to int is
  // undefined behaviour); `fallback` when not given, which must be in range too. Errors say what was found.
  Result<int64_t> whole_number(const Value& parent, std::string_view path, std::string_view key, int64_t min,
                               int64_t max, std::optional<int64_t> fallback = std::nullopt) const;
  // A value that must be a whole number in 0..max (a size or an offset).
  Result<uint64_t> whole_number(const Value& v, std::string_view path, uint64_t max) const;
  // A value that must be a token id: a whole number in 0..INT32_MAX.
  Result<int> id(const Value& v, std::string_view path) const;

 private:
  std::string source_;
};

}  // namespace glassbox::json
