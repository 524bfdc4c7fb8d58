#include "formats/foreign_bytes.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>


namespace glassbox {
namespace {

// The text after a UTF-8 byte-order mark and leading white space, at most `limit` bytes of it.
std::string_view start_of_text(const Bytes& bytes, std::size_t limit) {
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::size_t first = text.find_first_not_of(" \t\r\n\f");
  if (first == std::string_view::npos) return {};
  return text.substr(first, limit);
}

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

}  // namespace

std::optional<std::string> foreign_bytes(const Bytes& bytes) {
  if (bytes.size() == 0) return "the file is empty (0 bytes)";
  const std::string_view text = start_of_text(bytes, 64);
  for (std::string_view tag : {"<!doctype html", "<html", "<head", "<body", "<!--", "<?xml"}) {
    if (starts_with_ignoring_case(text, tag))
      return "it is a web page (HTML): the address may be wrong, or the server answered with a page (an error "
             "or sign-in page) instead of the file";
  }
  return std::nullopt;
}

bool looks_like_json(const Bytes& bytes) { return start_of_text(bytes, 1) == "{"; }

}  // namespace glassbox
