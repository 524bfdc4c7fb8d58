// Recursive-descent JSON parsing (RFC 8259), with \uXXXX escapes and surrogate pairs decoded to UTF-8.
#include "formats/json.hpp"

#include <cstdlib>

#include "glassbox/error.hpp"

namespace glassbox {
namespace {

constexpr int kMaxDepth = 256;

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Result<Json> document() {
    auto value = parse_value(0);
    if (!value) return value;
    skip_space();
    if (at_ != text_.size()) return fail("unexpected text after the JSON value");
    return value;
  }

 private:
  Error fail(const std::string& what) const {
    return error(ErrorCode::Malformed, source_, ": invalid JSON at byte ", at_, ": ", what);
  }

  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r'))
      ++at_;
  }

  bool consume(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  Result<Json> parse_value(int depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than 256 levels");
    skip_space();
    if (at_ >= text_.size()) return fail("unexpected end of input");
    const char c = text_[at_];
    if (c == '{') return parse_object(depth);
    if (c == '[') return parse_array(depth);
    if (c == '"') {
      auto s = parse_string();
      if (!s) return s.error();
      return Json::make_string(std::move(*s));
    }
    if (consume("true")) return Json::make_bool(true);
    if (consume("false")) return Json::make_bool(false);
    if (consume("null")) return Json::make_null();
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    return fail(cat("unexpected character '", c, "'"));
  }

  Result<Json> parse_number() {
    const std::size_t start = at_;
    if (text_[at_] == '-') ++at_;
    auto digits = [&] {
      const std::size_t from = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')
        ++at_;
      return at_ > from;
    };
    if (!digits()) return fail("a number needs digits");
    if (at_ < text_.size() && text_[at_] == '.') {
      ++at_;
      if (!digits()) return fail("a number needs digits after '.'");
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (!digits()) return fail("a number needs digits in its exponent");
    }
    const std::string literal(text_.substr(start, at_ - start));
    return Json::make_number(std::strtod(literal.c_str(), nullptr));
  }

  Result<unsigned> hex4() {
    if (at_ + 4 > text_.size()) return fail("truncated \\u escape");
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[at_++];
      value <<= 4;
      if (h >= '0' && h <= '9')
        value |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        value |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        value |= static_cast<unsigned>(h - 'A' + 10);
      else
        return fail("bad hex digit in \\u escape");
    }
    return value;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  Result<std::string> parse_string() {
    ++at_;  // the opening quote
    std::string out;
    for (;;) {
      if (at_ >= text_.size()) return fail("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character inside a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size()) return fail("unterminated escape");
      const char e = text_[at_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          auto cp = hex4();
          if (!cp) return cp.error();
          unsigned code = *cp;
          if (code >= 0xD800 && code <= 0xDBFF && consume("\\u")) {  // a surrogate pair
            auto low = hex4();
            if (!low) return low.error();
            if (*low >= 0xDC00 && *low <= 0xDFFF) {
              code = 0x10000 + ((code - 0xD800) << 10) + (*low - 0xDC00);
            } else {
              append_utf8(out, 0xFFFD);
              code = *low;
            }
          }
          if (code >= 0xD800 && code <= 0xDFFF) code = 0xFFFD;  // a lone surrogate
          append_utf8(out, code);
          break;
        }
        default:
          return fail(cat("unknown escape \\", e));
      }
    }
  }

  Result<Json> parse_array(int depth) {
    ++at_;
    std::vector<Json> items;
    skip_space();
    if (at_ < text_.size() && text_[at_] == ']') {
      ++at_;
      return Json::make_array(std::move(items));
    }
    for (;;) {
      auto item = parse_value(depth + 1);
      if (!item) return item;
      items.push_back(std::move(*item));
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == ']') {
        ++at_;
        return Json::make_array(std::move(items));
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  Result<Json> parse_object(int depth) {
    ++at_;
    std::vector<Json::Member> members;
    skip_space();
    if (at_ < text_.size() && text_[at_] == '}') {
      ++at_;
      return Json::make_object(std::move(members));
    }
    for (;;) {
      skip_space();
      if (at_ >= text_.size() || text_[at_] != '"') return fail("expected a string key in an object");
      auto key = parse_string();
      if (!key) return key.error();
      skip_space();
      if (at_ >= text_.size() || text_[at_] != ':') return fail("expected ':' after an object key");
      ++at_;
      auto value = parse_value(depth + 1);
      if (!value) return value;
      members.emplace_back(std::move(*key), std::move(*value));
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == '}') {
        ++at_;
        return Json::make_object(std::move(members));
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t at_ = 0;
};

}  // namespace

const Json* Json::find(std::string_view key) const {
  for (const Member& m : members_)
    if (m.first == key) return &m.second;
  return nullptr;
}

Json Json::make_bool(bool b) {
  Json j(Kind::Bool);
  j.bool_ = b;
  return j;
}
Json Json::make_number(double n) {
  Json j(Kind::Number);
  j.number_ = n;
  return j;
}
Json Json::make_string(std::string s) {
  Json j(Kind::String);
  j.string_ = std::move(s);
  return j;
}
Json Json::make_array(std::vector<Json> items) {
  Json j(Kind::Array);
  j.array_ = std::move(items);
  return j;
}
Json Json::make_object(std::vector<Member> members) {
  Json j(Kind::Object);
  j.members_ = std::move(members);
  return j;
}

Result<Json> parse_json(std::string_view text, const std::string& source) {
  return Parser(text, source).document();
}

}  // namespace glassbox
