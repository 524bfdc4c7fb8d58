// What chat needs of the core: special tokens written as text become those tokens (SpecialTokens::Parse,
// llama.cpp's parse_special), a reply ends at the end of its turn (Tokenizer::ends_text), GGUF carries the
// end-of-turn ids and the chat template, and Generator::extend keeps a conversation's KV cache.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "glassbox/formats.hpp"
#include "glassbox/glassbox.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

// A byte-level vocabulary: one piece per letter a..z and space (as "Ġ"), then special tokens.
Vocabulary chat_vocabulary(const std::vector<std::pair<std::string, TokenType>>& specials) {
  Vocabulary v;
  v.kind = TokenizerKind::ByteLevelBpe;
  for (char c = 'a'; c <= 'z'; ++c)
    v.pieces.emplace_back(1, c);
  v.pieces.push_back("\xC4\xA0");  // "Ġ": the space byte in GPT-2's mapping
  v.pieces.push_back("\xC4\x8A");  // "Ċ": the newline byte
  v.types.assign(v.pieces.size(), TokenType::Normal);
  for (const auto& [piece, type] : specials) {
    v.pieces.push_back(piece);
    v.types.push_back(type);
  }
  v.scores.assign(v.pieces.size(), 0.0f);
  v.add_bos = false;
  return v;
}

constexpr int kSpecials = 28;  // the first special token's id

Tokenizer make(Vocabulary v) {
  auto t = Tokenizer::create(std::move(v), "test");
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(*t);
}

std::vector<int> ids(const std::vector<EncodedToken>& tokens) {
  std::vector<int> out;
  for (const EncodedToken& t : tokens)
    out.push_back(t.id);
  return out;
}

TEST(SpecialTokens, ParseTurnsSpellingsIntoTokensWithTheirSpans) {
  const Tokenizer t = make(chat_vocabulary({{"<|im_start|>", TokenType::Control},
                                            {"<|im_end|>", TokenType::Control},
                                            {"<|im", TokenType::UserDefined}}));
  const int start = kSpecials, end = kSpecials + 1;
  const std::string text = "<|im_start|>ab<|im_end|>\nc";
  const std::vector<EncodedToken> parsed = t.encode(text, false, SpecialTokens::Parse);
  ASSERT_EQ(ids(parsed), (std::vector<int>{start, 0, 1, end, 27, 2}));
  // Each token covers its bytes of the input, the special ones their whole spelling.
  EXPECT_EQ(parsed[0].byte_begin, 0);
  EXPECT_EQ(parsed[0].byte_end, 12);
  EXPECT_EQ(parsed[1].byte_begin, 12);
  EXPECT_EQ(parsed[3].byte_begin, 14);
  EXPECT_EQ(parsed[3].byte_end, 24);
  EXPECT_EQ(parsed[5].byte_begin, 25);
  EXPECT_EQ(parsed[5].byte_end, 26);
  // The longest spelling wins: "<|im" (a UserDefined token) only where no longer one stands.
  EXPECT_EQ(ids(t.encode("<|imx", false, SpecialTokens::Parse)), (std::vector<int>{kSpecials + 2, 23}));
  // Without Parse the spelling is text: "<", "|" and ">" are not in this vocabulary, so they are dropped
  // (no byte pieces), but the letters come out as letters and no special token appears.
  for (int id : t.encode_ids(text, false))
    EXPECT_LT(id, kSpecials);
}

TEST(SpecialTokens, SentencePieceAddsItsDummyPrefixAfterEachSpecialToken) {
  // llama.cpp's rule: each stretch of text after a special token is encoded as if it began a text.
  Vocabulary v;
  for (const char* p : {"<unk>", "<s>", "</s>", " a", "a", " ", "<start_of_turn>"}) {
    v.pieces.push_back(p);
    v.scores.push_back(0.0f);
  }
  v.types = {TokenType::Unknown, TokenType::Control, TokenType::Control, TokenType::Normal,
             TokenType::Normal,  TokenType::Normal,  TokenType::Control};
  v.bos_id = 1;
  v.eos_id = 2;
  v.unk_id = 0;
  const Tokenizer t = make(std::move(v));
  EXPECT_EQ(t.encode_ids("<start_of_turn>a", true, SpecialTokens::Parse), (std::vector<int>{1, 6, 3}));
}

TEST(EndOfGeneration, EndsAtEosEndOfTurnEndOfMessageAndEndSpellings) {
  Vocabulary v = chat_vocabulary({{"<|endoftext|>", TokenType::Control},   // 28: EOS
                                  {"<|eot_id|>", TokenType::Control},      // 29: named end of turn
                                  {"<|eom_id|>", TokenType::Control},      // 30: named end of message
                                  {"<|im_end|>", TokenType::Control},      // 31: ends by its spelling
                                  {"<|im_start|>", TokenType::Control}});  // 32: does not end
  v.eos_id = 28;
  v.eot_id = 29;
  v.eom_id = 30;
  const Tokenizer t = make(v);
  for (int id : {28, 29, 30, 31})
    EXPECT_TRUE(t.ends_text(id)) << t.piece(id);
  for (int id : {0, 27, 32, -1, 1000})
    EXPECT_FALSE(t.ends_text(id)) << id;
  EXPECT_EQ(t.end_ids(), (std::vector<int>{28, 29, 30, 31}));

  // A piece spelled like an end of turn but ordinary text is text: the model may write it.
  v.types[31] = TokenType::Normal;
  EXPECT_FALSE(make(v).ends_text(31));
  // An end-of-turn id past the vocabulary is refused when the tokenizer is made.
  v.eot_id = 99;
  test::expect_error(Tokenizer::create(v, "test"), ErrorCode::Malformed);
}

TEST(EndOfGeneration, GeneratorStopsAtTheEndOfATurn) {
  // A model whose greedy choice after the prompt is known, and a vocabulary that names that token the end
  // of a turn: the generator stops there with end-of-text, as it does at EOS.
  auto model = read_llama2c_checkpoint(bytes_from_buffer(test::make_llama2c_checkpoint({}, 2), "r.bin"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto shared = std::make_shared<const Model>(std::move(*model));
  const int vocab = shared->config.vocab_size;
  auto vocabulary = [&](int eot) {
    Vocabulary v;
    for (int i = 0; i < vocab; ++i) {
      v.pieces.push_back(i == 1 ? "<s>" : "p" + std::to_string(i));
      v.scores.push_back(0.0f);
      v.types.push_back(i == 1 || i == eot ? TokenType::Control : TokenType::Normal);
    }
    v.bos_id = 1;
    v.eot_id = eot;
    v.add_space_prefix = false;
    return make(std::move(v));
  };
  const std::vector<int> prompt = {1, 5, 9};
  Sampler greedy({.temperature = 0.0f});
  auto session = Session::create(shared);
  const Tokenizer plain = vocabulary(-1);
  Generator first(*session, greedy, plain);
  ASSERT_TRUE(first.start(prompt).ok());
  auto token = first.next();
  ASSERT_TRUE(token.ok());
  ASSERT_NE(token->id, 1);

  const Tokenizer chat = vocabulary(token->id);
  Generator second(*session, greedy, chat);
  ASSERT_TRUE(second.start(prompt).ok());
  auto ending = second.next();
  ASSERT_TRUE(ending.ok());
  EXPECT_EQ(ending->id, token->id);
  EXPECT_TRUE(ending->end_of_text);
  EXPECT_EQ(second.stop_reason(), StopReason::EndOfText);
}

TEST(ChatGguf, ReadsEndOfTurnIdsAndTheChatTemplate) {
  // 32 tokens, as the checkpoint's model has.
  Vocabulary v = chat_vocabulary({{"<|endoftext|>", TokenType::Control},
                                  {"<|eot_id|>", TokenType::Control},
                                  {"<|im_start|>", TokenType::Control},
                                  {"<think>", TokenType::UserDefined}});
  v.eos_id = 28;
  v.eot_id = 29;
  v.chat_template = "{% for m in messages %}{{ m.content }}{% endfor %}";
  const Tokenizer written = make(v);
  auto model = read_llama2c_checkpoint(bytes_from_buffer(test::make_llama2c_checkpoint({}, 3), "r.bin"));
  ASSERT_TRUE(model.ok());
  const std::string path = (std::filesystem::temp_directory_path() / "glassbox-chat-gguf-test.gguf").string();
  auto exported = export_gguf(*model, written, ExportType::F32, "chat", path);
  ASSERT_TRUE(exported.ok()) << exported.error().message;
  auto bytes = map_file(path);
  ASSERT_TRUE(bytes.ok());
  auto read = read_gguf_tokenizer(*bytes);
  std::filesystem::remove(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->eot_id(), 29);
  EXPECT_EQ(read->eom_id(), -1);
  EXPECT_EQ(read->chat_template(), v.chat_template);
  EXPECT_TRUE(read->ends_text(29));
}

TEST(GeneratorExtend, KeepsTheConversationsPositionsWhenTheNewPromptExtendsThem) {
  auto model = read_llama2c_checkpoint(bytes_from_buffer(test::make_llama2c_checkpoint({}, 4), "r.bin"));
  ASSERT_TRUE(model.ok());
  auto shared = std::make_shared<const Model>(std::move(*model));
  Vocabulary v;
  for (int i = 0; i < shared->config.vocab_size; ++i) {
    v.pieces.push_back(i == 1 ? "<s>" : "p" + std::to_string(i));
    v.scores.push_back(0.0f);
    v.types.push_back(i == 1 ? TokenType::Control : TokenType::Normal);
  }
  v.bos_id = 1;
  const Tokenizer tokenizer = make(std::move(v));
  Sampler greedy({.temperature = 0.0f});
  auto session = Session::create(shared);
  Generator g(*session, greedy, tokenizer);

  const std::vector<int> turn1 = {1, 5, 9};
  auto kept = g.extend(turn1, {.max_new_tokens = 3});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, 0);  // nothing ran before
  while (!g.finished())
    ASSERT_TRUE(g.next().ok());
  const std::vector<int> so_far(g.tokens().begin(), g.tokens().end());  // prompt and 3 sampled tokens
  const int fed = session->position();
  EXPECT_EQ(fed, static_cast<int>(so_far.size()) - 1);  // the last sampled token was never fed

  // Turn two: the conversation so far, then more. Every position the session ran is kept.
  std::vector<int> turn2 = so_far;
  turn2.insert(turn2.end(), {7, 8});
  kept = g.extend(turn2, {.max_new_tokens = 2});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, fed);
  auto continued = g.next();
  ASSERT_TRUE(continued.ok());
  const std::vector<float> continued_logits(g.last_logits().begin(), g.last_logits().end());

  // The same prompt from scratch: the same token, and the same logits bit for bit.
  auto fresh_session = Session::create(shared);
  Generator fresh(*fresh_session, greedy, tokenizer);
  ASSERT_TRUE(fresh.start(turn2, {.max_new_tokens = 2}).ok());
  auto from_scratch = fresh.next();
  ASSERT_TRUE(from_scratch.ok());
  EXPECT_EQ(continued->id, from_scratch->id);
  EXPECT_EQ(continued_logits, std::vector<float>(fresh.last_logits().begin(), fresh.last_logits().end()));

  // A prompt that differs from what the session ran starts over.
  std::vector<int> edited = turn2;
  edited[1] = 6;
  kept = g.extend(edited);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, 0);
  ASSERT_TRUE(g.next().ok());
  EXPECT_EQ(session->position(), static_cast<int>(edited.size()));
  // So does one the session was reset under.
  session->reset();
  std::vector<int> longer = edited;
  longer.push_back(3);
  kept = g.extend(longer);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, 0);
}

}  // namespace
}  // namespace glassbox
