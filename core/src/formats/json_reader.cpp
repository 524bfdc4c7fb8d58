#include "formats/json_reader.hpp"

#include <rapidjson/error/en.h>

#include "glassbox/error.hpp"

namespace glassbox::json {

Error syntax_error(const std::string& source, std::size_t offset, std::string_view what) {
  return error(ErrorCode::Malformed, source, ": invalid JSON at byte ", offset, ": ", what);
}

bool detail::is_fractional_zero(std::string_view number) {
  bool written_as_fraction = false;
  for (const char c : number) {
    if (c == 'e' || c == 'E') return true;  // the digits before the exponent were all zero
    if (c == '.')
      written_as_fraction = true;
    else if (c >= '1' && c <= '9')
      return false;
  }
  return written_as_fraction;
}

const char* describe(rapidjson::ParseErrorCode code) {
  return rapidjson::GetParseError_En(code);
}

Result<void> parse(std::string_view text, const std::string& source, Document& doc) {
  Result<void> parsed;
  // Populate hands the document's own SAX handler to the lambda and keeps the value only if it succeeds.
  auto generate = [&](Document& handler) {
    parsed = read_events(text, source, handler);
    return parsed.ok();
  };
  doc.Populate(generate);
  return parsed;
}

}  // namespace glassbox::json
