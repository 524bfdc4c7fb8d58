// GGUF metadata values of every type read back exactly, from files laid out byte by byte here (not with our
// GgufWriter, so a mistake shared by writer and reader cannot hide), in both GGUF versions 2 and 3. Also:
// huge arrays and huge numbers of keys or tensors parse without per-element objects, and a uint64
// above INT64_MAX is a valid value, refused only where a smaller type is needed.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "formats/gguf.hpp"
#include "gguf_test_support.hpp"

namespace glassbox {
namespace {

using test::expect_error;

// The bits of a float or double (std::bit_cast is missing from Emscripten's libc++).
template <class To, class From>
To bits_of(From value) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

// A GGUF file written by hand: little-endian by shifting, independent of the host and of GgufWriter.
class HandGguf {
 public:
  void u8(uint8_t v) { body_.push_back(std::byte{v}); }
  void le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
      u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void i8(int8_t v) { le(static_cast<uint8_t>(v), 1); }
  void i16(int16_t v) { le(static_cast<uint16_t>(v), 2); }
  void i32(int32_t v) { le(static_cast<uint32_t>(v), 4); }
  void i64(int64_t v) { le(static_cast<uint64_t>(v), 8); }
  void f32(float v) { u32(bits_of<uint32_t>(v)); }
  void f64(double v) { u64(bits_of<uint64_t>(v)); }
  void str(const std::string& s) {
    u64(s.size());
    for (char c : s)
      u8(static_cast<uint8_t>(c));
  }
  // Starts a key/value pair: the key and the value's type; the caller writes the value.
  void key(const std::string& name, GgufType type) {
    str(name);
    u32(static_cast<uint32_t>(type));
    ++kv_count_;
  }
  // An array header (element type and count); the caller writes the elements.
  void array(GgufType element, uint64_t count) {
    u32(static_cast<uint32_t>(element));
    u64(count);
  }
  void add_tensor_infos(uint64_t count) { tensor_count_ += count; }

  std::vector<std::byte> finish(uint32_t version) const {
    HandGguf header;
    for (char c : std::string("GGUF"))
      header.u8(static_cast<uint8_t>(c));
    header.u32(version);
    header.u64(tensor_count_);
    header.u64(kv_count_);
    std::vector<std::byte> out = header.body_;
    out.insert(out.end(), body_.begin(), body_.end());
    return out;
  }

 private:
  std::vector<std::byte> body_;
  uint64_t kv_count_ = 0;
  uint64_t tensor_count_ = 0;
};

const std::string kText("h\xc3\xa9llo\0world", 12);  // UTF-8 with an embedded NUL: the length is what counts
const std::string kLong(300, 'x');

// One key of every type, scalar and array, with values at the ends of each type's range.
std::vector<std::byte> every_type(uint32_t version) {
  HandGguf g;
  g.key("t.uint8", GgufType::Uint8), g.u8(255);
  g.key("t.int8", GgufType::Int8), g.i8(-128);
  g.key("t.uint16", GgufType::Uint16), g.u16(65535);
  g.key("t.int16", GgufType::Int16), g.i16(-32768);
  g.key("t.uint32", GgufType::Uint32), g.u32(4294967295u);
  g.key("t.int32", GgufType::Int32), g.i32(std::numeric_limits<int32_t>::min());
  g.key("t.float32", GgufType::Float32), g.f32(0.1f);
  g.key("t.bool_true", GgufType::Bool), g.u8(1);
  g.key("t.bool_false", GgufType::Bool), g.u8(0);
  g.key("t.string", GgufType::String), g.str(kText);
  g.key("t.empty_string", GgufType::String), g.str("");
  g.key("t.uint64", GgufType::Uint64), g.u64(std::numeric_limits<uint64_t>::max());
  g.key("t.uint64_small", GgufType::Uint64), g.u64(5);
  g.key("t.int64", GgufType::Int64), g.i64(std::numeric_limits<int64_t>::min());
  g.key("t.float64", GgufType::Float64), g.f64(-1.2345678901234567e300);

  g.key("a.uint8", GgufType::Array), g.array(GgufType::Uint8, 3), g.u8(0), g.u8(128), g.u8(255);
  g.key("a.int8", GgufType::Array), g.array(GgufType::Int8, 2), g.i8(-128), g.i8(127);
  g.key("a.uint16", GgufType::Array), g.array(GgufType::Uint16, 2), g.u16(1), g.u16(65535);
  g.key("a.int16", GgufType::Array), g.array(GgufType::Int16, 2), g.i16(-32768), g.i16(32767);
  g.key("a.uint32", GgufType::Array), g.array(GgufType::Uint32, 2), g.u32(7), g.u32(4294967295u);
  g.key("a.int32", GgufType::Array), g.array(GgufType::Int32, 2), g.i32(-5), g.i32(2147483647);
  g.key("a.float32", GgufType::Array), g.array(GgufType::Float32, 3), g.f32(-0.0f), g.f32(1e-45f),
      g.f32(3.4028235e38f);
  g.key("a.bool", GgufType::Array), g.array(GgufType::Bool, 3), g.u8(1), g.u8(0), g.u8(1);
  g.key("a.uint64", GgufType::Array), g.array(GgufType::Uint64, 2), g.u64(0), g.u64(uint64_t{1} << 63);
  g.key("a.int64", GgufType::Array), g.array(GgufType::Int64, 2), g.i64(-1), g.i64(INT64_MAX);
  g.key("a.float64", GgufType::Array), g.array(GgufType::Float64, 2), g.f64(0.1), g.f64(-2.5e-310);
  g.key("a.string", GgufType::Array), g.array(GgufType::String, 4), g.str(""), g.str("a"), g.str(kText),
      g.str(kLong);
  g.key("a.empty", GgufType::Array), g.array(GgufType::Int32, 0);
  // [[1, -2], [], [3]] of int16, and [["x", "yz"], [""]] of strings.
  g.key("a.nested", GgufType::Array), g.array(GgufType::Array, 3);
  g.array(GgufType::Int16, 2), g.i16(1), g.i16(-2);
  g.array(GgufType::Int16, 0);
  g.array(GgufType::Int16, 1), g.i16(3);
  g.key("a.nested_strings", GgufType::Array), g.array(GgufType::Array, 2);
  g.array(GgufType::String, 2), g.str("x"), g.str("yz");
  g.array(GgufType::String, 1), g.str("");
  return g.finish(version);
}

const GgufValue& value(const GgufFile& file, const std::string& key, GgufType type) {
  static const GgufValue missing;
  const GgufValue* v = file.find(key);
  EXPECT_NE(v, nullptr) << key;
  if (!v) return missing;
  EXPECT_EQ(v->type, type) << key;
  return *v;
}

void expect_integer(const GgufFile& file, const std::string& key, GgufType type, int64_t expected) {
  EXPECT_EQ(value(file, key, type).integer, expected) << key;
  EXPECT_TRUE(value(file, key, type).is_integer()) << key;
}

// An array's element type, size, and elements through indexing, iteration and the typed accessors.
void expect_integers(const GgufFile& file, const std::string& key, GgufType element,
                     const std::vector<int64_t>& expected) {
  const GgufValue& v = value(file, key, GgufType::Array);
  EXPECT_EQ(v.element_type, element) << key;
  ASSERT_EQ(v.items.size(), expected.size()) << key;
  std::size_t i = 0;
  for (const GgufValue& item : v.items) {
    EXPECT_EQ(item.type, element) << key << "[" << i << "]";
    EXPECT_EQ(item.integer, expected[i]) << key << "[" << i << "]";
    EXPECT_EQ(v.items[i].integer, expected[i]) << key << "[" << i << "]";
    EXPECT_EQ(v.items.integer(i), expected[i]) << key << "[" << i << "]";
    ++i;
  }
  EXPECT_EQ(i, expected.size());
}

void expect_reals(const GgufFile& file, const std::string& key, GgufType element,
                  const std::vector<double>& expected) {
  const GgufValue& v = value(file, key, GgufType::Array);
  EXPECT_EQ(v.element_type, element) << key;
  ASSERT_EQ(v.items.size(), expected.size()) << key;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    // Bit-exact (so -0.0 and denormals are told apart).
    EXPECT_EQ(bits_of<uint64_t>(v.items[i].real), bits_of<uint64_t>(expected[i])) << key << i;
    EXPECT_EQ(bits_of<uint64_t>(v.items.real(i)), bits_of<uint64_t>(expected[i])) << key << i;
    EXPECT_EQ(v.items[i].type, element);
  }
}

void expect_strings(const GgufValue& v, const std::vector<std::string>& expected, const std::string& key) {
  EXPECT_EQ(v.type, GgufType::Array) << key;
  EXPECT_EQ(v.element_type, GgufType::String) << key;
  ASSERT_EQ(v.items.size(), expected.size()) << key;
  std::size_t i = 0;
  for (const GgufValue& item : v.items) {
    EXPECT_EQ(item.type, GgufType::String);
    EXPECT_EQ(item.text, expected[i]) << key << "[" << i << "]";
    EXPECT_EQ(v.items.text(i), expected[i]) << key << "[" << i << "]";
    ++i;
  }
}

class GgufMetadata : public testing::TestWithParam<uint32_t> {};

TEST_P(GgufMetadata, ReadsEveryValueTypeExactly) {
  auto file = test::parse(every_type(GetParam()));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->version, GetParam());
  EXPECT_EQ(file->metadata.size(), 30u);

  expect_integer(*file, "t.uint8", GgufType::Uint8, 255);
  expect_integer(*file, "t.int8", GgufType::Int8, -128);
  expect_integer(*file, "t.uint16", GgufType::Uint16, 65535);
  expect_integer(*file, "t.int16", GgufType::Int16, -32768);
  expect_integer(*file, "t.uint32", GgufType::Uint32, 4294967295LL);
  expect_integer(*file, "t.int32", GgufType::Int32, -2147483648LL);
  expect_integer(*file, "t.uint64_small", GgufType::Uint64, 5);
  expect_integer(*file, "t.int64", GgufType::Int64, std::numeric_limits<int64_t>::min());
  const GgufValue& big = value(*file, "t.uint64", GgufType::Uint64);
  EXPECT_TRUE(big.exceeds_int64());
  EXPECT_EQ(big.unsigned_integer(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(big.integer_text(), "18446744073709551615");
  EXPECT_FALSE(value(*file, "t.uint64_small", GgufType::Uint64).exceeds_int64());
  EXPECT_EQ(value(*file, "t.float32", GgufType::Float32).real, static_cast<double>(0.1f));
  EXPECT_EQ(value(*file, "t.float64", GgufType::Float64).real, -1.2345678901234567e300);
  EXPECT_TRUE(value(*file, "t.bool_true", GgufType::Bool).boolean);
  EXPECT_FALSE(value(*file, "t.bool_false", GgufType::Bool).boolean);
  EXPECT_EQ(value(*file, "t.string", GgufType::String).text, kText);
  EXPECT_EQ(value(*file, "t.string", GgufType::String).text.size(), 12u);
  EXPECT_EQ(value(*file, "t.empty_string", GgufType::String).text, "");

  expect_integers(*file, "a.uint8", GgufType::Uint8, {0, 128, 255});
  expect_integers(*file, "a.int8", GgufType::Int8, {-128, 127});
  expect_integers(*file, "a.uint16", GgufType::Uint16, {1, 65535});
  expect_integers(*file, "a.int16", GgufType::Int16, {-32768, 32767});
  expect_integers(*file, "a.uint32", GgufType::Uint32, {7, 4294967295LL});
  expect_integers(*file, "a.int32", GgufType::Int32, {-5, 2147483647});
  // 2^63 as a uint64 element: its bits, read back as unsigned.
  expect_integers(*file, "a.uint64", GgufType::Uint64, {0, std::numeric_limits<int64_t>::min()});
  EXPECT_TRUE(file->find("a.uint64")->items[1].exceeds_int64());
  EXPECT_EQ(file->find("a.uint64")->items[1].unsigned_integer(), uint64_t{1} << 63);
  expect_integers(*file, "a.int64", GgufType::Int64, {-1, INT64_MAX});
  expect_integers(*file, "a.empty", GgufType::Int32, {});
  expect_reals(*file, "a.float32", GgufType::Float32,
               {-0.0, static_cast<double>(1e-45f), 3.4028234663852886e38});
  expect_reals(*file, "a.float64", GgufType::Float64, {0.1, -2.5e-310});
  const GgufValue& bools = value(*file, "a.bool", GgufType::Array);
  EXPECT_EQ(bools.element_type, GgufType::Bool);
  ASSERT_EQ(bools.items.size(), 3u);
  EXPECT_TRUE(bools.items[0].boolean && bools.items.boolean(0));
  EXPECT_FALSE(bools.items[1].boolean || bools.items.boolean(1));
  EXPECT_TRUE(bools.items[2].boolean && bools.items.boolean(2));
  EXPECT_EQ(bools.items[2].type, GgufType::Bool);
  expect_strings(value(*file, "a.string", GgufType::Array), {"", "a", kText, kLong}, "a.string");

  const GgufValue& nested = value(*file, "a.nested", GgufType::Array);
  EXPECT_EQ(nested.element_type, GgufType::Array);
  ASSERT_EQ(nested.items.size(), 3u);
  const std::vector<std::vector<int64_t>> expected_nested = {{1, -2}, {}, {3}};
  for (std::size_t i = 0; i < 3; ++i) {
    const GgufValue inner = nested.items[i];
    EXPECT_EQ(inner.type, GgufType::Array);
    EXPECT_EQ(inner.element_type, GgufType::Int16);
    ASSERT_EQ(inner.items.size(), expected_nested[i].size());
    for (std::size_t j = 0; j < inner.items.size(); ++j) {
      EXPECT_EQ(inner.items[j].type, GgufType::Int16);
      EXPECT_EQ(inner.items[j].integer, expected_nested[i][j]);
    }
  }
  const GgufValue& nested_strings = value(*file, "a.nested_strings", GgufType::Array);
  ASSERT_EQ(nested_strings.items.size(), 2u);
  expect_strings(nested_strings.items[0], {"x", "yz"}, "a.nested_strings[0]");
  expect_strings(nested_strings.items[1], {""}, "a.nested_strings[1]");

  // The typed lookups on the same values.
  EXPECT_EQ(*file->integer("t.int8"), -128);
  EXPECT_EQ(*file->real("t.uint64", 0), 18446744073709551615.0);
  EXPECT_EQ(*file->string("t.string"), kText);
  EXPECT_TRUE(*file->boolean("t.bool_true", false));
  expect_error(file->integer("t.uint64"), ErrorCode::Malformed, "t.gguf: metadata t.uint64",
               "18446744073709551615", "int64");
  expect_error(file->integer("a.int32"), ErrorCode::Malformed,
               "metadata a.int32 must be an integer, found array");
}

INSTANTIATE_TEST_SUITE_P(Versions, GgufMetadata, testing::Values(2u, 3u),
                         [](const testing::TestParamInfo<uint32_t>& info) {
                           return "v" + std::to_string(info.param);
                         });

TEST(GgufMetadataErrors, RejectsABoolArrayElementOtherThan0Or1) {
  HandGguf g;
  g.key("a.bool", GgufType::Array), g.array(GgufType::Bool, 3), g.u8(1), g.u8(0), g.u8(2);
  expect_error(test::parse(g.finish(3)), ErrorCode::Malformed,
               "metadata a.bool[2]: a bool must be 0 or 1, found 2");
}

TEST(GgufMetadataErrors, RejectsFixedSizeArraysLongerThanTheFile) {
  // 3 uint64 elements need 24 bytes; 16 follow.
  HandGguf g;
  g.key("a.wide", GgufType::Array), g.array(GgufType::Uint64, 3), g.u64(1), g.u64(2);
  expect_error(test::parse(g.finish(3)), ErrorCode::Truncated,  // a file cut short looks so
               "metadata a.wide: array of 3 elements cannot fit in the 16 bytes left");
  HandGguf s;  // strings take at least their 8-byte length each
  s.key("a.strings", GgufType::Array), s.array(GgufType::String, 3), s.str(""), s.str("");
  expect_error(test::parse(s.finish(3)), ErrorCode::Truncated,
               "metadata a.strings: array of 3 elements cannot fit");
}

// Peak resident memory of this process so far, in bytes (0 where the platform does not say).
int64_t peak_rss_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// A 30 MB uint8 array used to become 30 million value objects (5 GB, 22 s); it is now a view of the file.
TEST(GgufScale, AHugeUint8ArrayCostsNoMemoryPerElement) {
  constexpr uint64_t n = 30'000'000;
  HandGguf g;
  g.key("blob", GgufType::Array), g.array(GgufType::Uint8, 0);
  std::vector<std::byte> bytes = g.finish(3);
  test::poke<uint64_t>(bytes, bytes.size() - 8, n);
  bytes.resize(bytes.size() + n);
  for (uint64_t i = 0; i < n; ++i)
    bytes[bytes.size() - n + i] = static_cast<std::byte>((i * 7) & 0xff);
  auto source = bytes_from_buffer(std::move(bytes), "blob.gguf");

  const int64_t rss_before = peak_rss_bytes();
  auto file = read_gguf(source);
  ASSERT_TRUE(file.ok()) << file.error().message;
  // Memory, not time, is asserted: a clock flakes on a busy machine, and the per-element objects were the cost.
  EXPECT_LT(peak_rss_bytes() - rss_before, int64_t{200} << 20) << "the array's elements became objects";

  const GgufValue& blob = *file->find("blob");
  ASSERT_EQ(blob.items.size(), n);
  uint64_t sum = 0, expected_sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    sum += static_cast<uint64_t>(blob.items.integer(i));
    expected_sum += (i * 7) & 0xff;
  }
  EXPECT_EQ(sum, expected_sum);
  EXPECT_EQ(blob.items[n - 1].integer, static_cast<int64_t>(((n - 1) * 7) & 0xff));
  // The view keeps the bytes alive after everything else let go of them.
  const GgufArray items = blob.items;
  source.reset();
  file = Error{ErrorCode::InvalidState, "dropped"};
  EXPECT_EQ(items.integer(n - 1), static_cast<int64_t>(((n - 1) * 7) & 0xff));
}

// 100k keys or tensor infos took ~10 s when each duplicate check rescanned the list; now each is a hash
// look-up. No clock is asserted (it flaked on busy machines); a return of the rescan shows as a 10 s test in
// CTest's timings, and the duplicate checks at the end of the long lists must still work.
TEST(GgufScale, ManyKeysAndTensorsParseAndDuplicatesAreFound) {
  constexpr int n = 100'000;
  HandGguf keys;
  for (int i = 0; i < n; ++i)
    keys.key("key." + std::to_string(i), GgufType::Uint32), keys.u32(static_cast<uint32_t>(i));
  auto file = test::parse(keys.finish(3));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(*file->integer("key.99999"), 99999);
  EXPECT_EQ(*file->integer("key.0"), 0);
  EXPECT_EQ(file->find("key.100000"), nullptr);
  // Duplicates are still found, at the end of a long list too.
  keys.key("key.12345", GgufType::Uint32), keys.u32(1);
  expect_error(test::parse(keys.finish(3)), ErrorCode::Malformed, "metadata key key.12345 appears twice");

  // n float32 tensors of 8 values (32 bytes, so every offset is aligned), then their data.
  const auto tensors = [&](int count, bool duplicate_last) {
    HandGguf g;
    for (int i = 0; i < count; ++i) {
      g.str(duplicate_last && i == count - 1 ? "t.7" : "t." + std::to_string(i));
      g.u32(1), g.u64(8), g.u32(0), g.u64(static_cast<uint64_t>(i) * 32);
    }
    g.add_tensor_infos(static_cast<uint64_t>(count));
    std::vector<std::byte> bytes = g.finish(3);
    bytes.resize((bytes.size() + 31) / 32 * 32 + static_cast<std::size_t>(count) * 32);
    return bytes;
  };
  file = test::parse(tensors(n, false));
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_EQ(file->tensors.size(), static_cast<std::size_t>(n));
  ASSERT_NE(file->tensor("t.99999"), nullptr);
  EXPECT_EQ(file->tensor("t.99999")->offset, uint64_t{99999} * 32);
  expect_error(test::parse(tensors(n, true)), ErrorCode::Malformed, "tensor t.7 appears twice");
}

// Entries added past the index (the fields are public) are still found.
TEST(GgufScale, LookupsFindEntriesAddedDirectly) {
  GgufFile file;
  ASSERT_TRUE(file.add_metadata("a", test::gguf_integer(GgufType::Uint32, 1)));
  EXPECT_FALSE(file.add_metadata("a", test::gguf_integer(GgufType::Uint32, 2)));
  file.metadata.emplace_back("b", test::gguf_integer(GgufType::Uint32, 3));
  ASSERT_NE(file.find("b"), nullptr);
  EXPECT_EQ(file.find("b")->integer, 3);
  EXPECT_EQ(file.find("a")->integer, 1);
  EXPECT_FALSE(file.add_metadata("b", test::gguf_integer(GgufType::Uint32, 4)));
}

// A uint64 above INT64_MAX on a key nothing reads is valid GGUF (it used to reject the whole file).
TEST(GgufUint64, AValueAboveInt64MaxIsAcceptedUntilSomethingNeedsIt) {
  test::TinyLlama tiny;
  tiny.metadata["general.file_size_hint"] = test::gguf_integer(GgufType::Uint64, -1);  // bits of 2^64 - 1
  auto bytes = tiny.bytes();
  auto file = test::parse(bytes);
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->find("general.file_size_hint")->unsigned_integer(), std::numeric_limits<uint64_t>::max());
  EXPECT_TRUE(test::model_of(bytes).ok());

  // Where a consumer needs it as a number, the error names the key and the exact value.
  tiny.metadata["llama.block_count"] =
      test::gguf_integer(GgufType::Uint64, std::numeric_limits<int64_t>::min());
  expect_error(test::model_of(tiny.bytes()), ErrorCode::Malformed, "metadata llama.block_count",
               "9223372036854775808");
  test::TinyLlama with_tokenizer;
  with_tokenizer.with_tokenizer = true;
  with_tokenizer.metadata["tokenizer.ggml.bos_token_id"] = test::gguf_integer(GgufType::Uint64, -2);
  auto tokenizer_file = test::parse(with_tokenizer.bytes());
  ASSERT_TRUE(tokenizer_file.ok());
  expect_error(tokenizer_from_gguf(*tokenizer_file), ErrorCode::Malformed,
               "metadata tokenizer.ggml.bos_token_id", "18446744073709551614");
}

TEST(GgufUint64, AnAlignmentOfAnyIntegerTypeIsRead) {
  test::TinyLlama tiny;
  tiny.metadata["general.alignment"] = test::gguf_integer(GgufType::Uint64, 32);  // the writer's padding
  auto file = test::parse(tiny.bytes());
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->alignment, 32u);
  tiny.metadata["general.alignment"] = test::gguf_integer(GgufType::Uint64, 64);
  expect_error(test::parse(tiny.bytes()), ErrorCode::Malformed, "is not a multiple of the alignment 64");
  tiny.metadata["general.alignment"] = test::gguf_integer(GgufType::Uint64, -1);
  expect_error(test::parse(tiny.bytes()), ErrorCode::Malformed,
               "general.alignment must be a positive power of two, found 18446744073709551615");
}

}  // namespace
}  // namespace glassbox
