// The foreign-bytes rule (glassbox/formats.hpp): the one place it lives; open_model and the page's worker
// (through the WebAssembly module) both ask it.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

#include "glassbox/error.hpp"
#include "glassbox/formats.hpp"
#include "glassbox/utf8.hpp"

namespace glassbox {
namespace {

// The text after a UTF-8 byte-order mark and leading white space, at most `limit` bytes of it.
std::string_view start_of_text(std::span<const std::byte> bytes, std::size_t limit) {
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

// Well-formed UTF-8 without control characters other than tab and line breaks: no binary model format
// starts so (their headers hold small integers, so zero bytes). A character cut by the limit still counts.
bool is_text(std::string_view head) {
  for (std::size_t i = 0; i < head.size();) {
    const Utf8Char c = decode_utf8(head, i);
    if (c.code_point == kInvalidCodePoint) return head.size() - i < 4 && i + 4 > kForeignBytesHead;
    if ((c.code_point < 0x20 && c.code_point != '\t' && c.code_point != '\n' && c.code_point != '\r') ||
        c.code_point == 0x7F)
      return false;
    i += c.length;
  }
  return true;
}

// The text's first line, to quote (at most the head).
std::string first_line(std::string_view text) {
  return std::string(text.substr(0, text.find_first_of("\r\n")));
}

}  // namespace

std::optional<ForeignBytes> foreign_bytes(std::span<const std::byte> bytes, Expected expected) {
  if (bytes.empty()) return ForeignBytes{"empty", "the file is empty (0 bytes)"};
  const std::string_view head = start_of_text(bytes, kForeignBytesHead);
  for (std::string_view tag : {"<!doctype html", "<html", "<head", "<body", "<!--", "<?xml"}) {
    if (starts_with_ignoring_case(head, tag))
      return ForeignBytes{
          "web-page",
          "it is a web page (HTML): the address may be wrong, or the server answered with a page "
          "(an error or sign-in page) instead of the file"};
  }
  if (head.starts_with("version https://git-lfs"))
    return ForeignBytes{
        "git-lfs-pointer",
        "it is a Git LFS pointer, a small text file that stands in for the real one: download "
        "the file itself (on Hugging Face, the link that says \"download\")"};
  if (expected == Expected::Model && is_text(head))
    return ForeignBytes{
        "text", cat("it is a text file, not a model's binary data; it starts \"", first_line(head), "\"")};
  return std::nullopt;
}

bool is_gguf(std::span<const std::byte> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0;
}

}  // namespace glassbox
