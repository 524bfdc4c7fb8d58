#include "formats/json_fields.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace glassbox::json {
namespace {

// The member when given (present and not null), else nullptr.
const Value* given(const Value& parent, std::string_view key) {
  const Value* v = find(parent, key);
  return v && !v->IsNull() ? v : nullptr;
}

bool is_whole(double value, double min, double max) {
  return value >= min && value <= max && value == std::floor(value);
}

}  // namespace

std::string join(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : cat(path, ".", key);
}

std::string item(std::string_view path, std::size_t index) {
  return cat(path, "[", index, "]");
}

const Value* find(const Value& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  for (const auto& member : object.GetObject()) {
    if (text_of(member.name) == key) return &member.value;
  }
  return nullptr;
}

Result<const Value*> Fields::object(const Value& parent, std::string_view path, std::string_view key) const {
  const Value* v = given(parent, key);
  if (v && !v->IsObject()) return fail(join(path, key), " must be an object");
  return v;
}

Result<const Value*> Fields::array(const Value& parent, std::string_view path, std::string_view key) const {
  const Value* v = given(parent, key);
  if (v && !v->IsArray()) return fail(join(path, key), " must be an array");
  return v;
}

Result<std::string> Fields::text(const Value& parent, std::string_view path, std::string_view key,
                                 std::string_view fallback) const {
  const Value* v = given(parent, key);
  if (!v) return std::string(fallback);
  if (!v->IsString()) return fail(join(path, key), " must be a string");
  return std::string(text_of(*v));
}

Result<bool> Fields::flag(const Value& parent, std::string_view path, std::string_view key,
                          bool fallback) const {
  const Value* v = given(parent, key);
  if (!v) return fallback;
  if (!v->IsBool()) return fail(join(path, key), " must be true or false");
  return v->GetBool();
}

Result<std::optional<double>> Fields::number(const Value& parent, std::string_view path,
                                             std::string_view key) const {
  const Value* v = given(parent, key);
  if (!v) return std::optional<double>();
  if (!v->IsNumber()) return fail(join(path, key), " must be a number");
  return std::optional<double>(v->GetDouble());
}

Result<int64_t> Fields::whole_number(const Value& parent, std::string_view path, std::string_view key,
                                     int64_t min, int64_t max, std::optional<int64_t> fallback) const {
  GLASSBOX_ASSIGN(const std::optional<double> found, number(parent, path, key));
  if (!found && !fallback) return fail(join(path, key), " is missing");
  const double value = found ? *found : static_cast<double>(*fallback);
  if (!is_whole(value, static_cast<double>(min), static_cast<double>(max)))
    return fail(join(path, key), " must be a whole number in ", min, "..", max, ", found ", value,
                found ? "" : " (the default)");
  return static_cast<int64_t>(value);
}

Result<uint64_t> Fields::whole_number(const Value& v, std::string_view path, uint64_t max) const {
  if (v.IsUint64() && v.GetUint64() <= max) return v.GetUint64();
  // 1e3 is a whole number too; a double's range is checked before converting it.
  if (v.IsDouble() && is_whole(v.GetDouble(), 0.0, static_cast<double>(max)))
    return static_cast<uint64_t>(v.GetDouble());
  return fail(path, " must be a non-negative whole number");
}

Result<int> Fields::id(const Value& v, std::string_view path) const {
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
  if (v.IsUint64() && v.GetUint64() <= kMax) return static_cast<int>(v.GetUint64());
  if (v.IsDouble() && is_whole(v.GetDouble(), 0.0, static_cast<double>(kMax)))
    return static_cast<int>(v.GetDouble());
  return fail(path, " must be a non-negative integer id");
}

}  // namespace glassbox::json
