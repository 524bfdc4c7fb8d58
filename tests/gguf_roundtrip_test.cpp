// The GGUF writer and reader share one table of names (formats/gguf_names.hpp), so whatever export_gguf
// writes, model_from_gguf and tokenizer_from_gguf must read back as it was: for every architecture the writer
// picks (llama, qwen2, gpt2, and our own glassbox for every other combination of choices), a small random
// model written as float32 comes back with every config field and every weight equal, and its tokenizer
// with the same vocabulary. phi3 is read but never written: qwen2 expresses the same configs unfused.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "formats/gguf.hpp"
#include "formats/gguf_names.hpp"
#include "glassbox/formats.hpp"
#include "kernels/quantized.hpp"
#include "model/dtype.hpp"
#include "random_models.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

using test::Case;
using test::RandomModel;

// A SentencePiece vocabulary (pieces with spaces, scores, every token type) or a byte-level one (the 256
// byte pieces in GPT-2's mapping, merges, a pre-tokenizer).
Vocabulary sentencepiece_vocabulary() {
  Vocabulary v;
  v.pieces = {"<unk>", "<s>", "</s>", "<0x41>", " a", "b", " ab", "<pad>", "<user>"};
  v.scores = {0, 0, 0, 0, -1, -2, -3, 0, 0};
  v.types = {TokenType::Unknown, TokenType::Control, TokenType::Control,
             TokenType::Byte,    TokenType::Normal,  TokenType::Normal,
             TokenType::Normal,  TokenType::Unused,  TokenType::UserDefined};
  v.unk_id = 0;
  v.bos_id = 1;
  v.eos_id = 2;
  v.add_space_prefix = false;
  return v;
}

Vocabulary byte_level_vocabulary(PreTokenizer pre) {
  Vocabulary v;
  v.kind = TokenizerKind::ByteLevelBpe;
  v.pre_tokenizer = pre;
  char32_t next =
      0x100;  // GPT-2's mapping: printable bytes stand for themselves, the rest count up from here
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    const char32_t c = printable ? static_cast<char32_t>(b) : next++;
    std::string s;
    if (c < 0x80) {
      s += static_cast<char>(c);
    } else {
      s += static_cast<char>(0xC0 | (c >> 6));
      s += static_cast<char>(0x80 | (c & 0x3F));
    }
    v.pieces.push_back(s);
  }
  v.pieces.push_back("ab");
  v.pieces.push_back("<|endoftext|>");
  v.merges = {"a b"};
  v.scores.assign(v.pieces.size(), 0.0f);
  v.types.assign(v.pieces.size(), TokenType::Normal);
  v.types.back() = TokenType::Control;
  v.bos_id = v.eos_id = static_cast<int>(v.pieces.size()) - 1;
  v.add_bos = pre == PreTokenizer::Llama3;
  v.add_space_prefix = false;
  return v;
}

// A WordPiece vocabulary (BERT): specials, word-initial and "##" pieces, a cased normalizer.
Vocabulary wordpiece_vocabulary() {
  Vocabulary v;
  v.kind = TokenizerKind::WordPiece;
  v.pieces = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "un", "##aff", "##able", "[unused0]"};
  v.types = {TokenType::Control, TokenType::Unknown, TokenType::Control, TokenType::Control,
             TokenType::Control, TokenType::Normal,  TokenType::Normal,  TokenType::Normal,
             TokenType::Normal,  TokenType::Unused};
  v.scores.assign(v.pieces.size(), 0.0f);
  v.pad_id = 0;
  v.unk_id = 1;
  v.bos_id = v.cls_id = 2;
  v.eos_id = v.sep_id = 3;
  v.mask_id = 4;
  v.add_sep = true;
  v.add_space_prefix = false;
  v.wordpiece.lowercase = false;
  v.wordpiece.strip_accents = true;
  return v;
}

Tokenizer make_tokenizer(Vocabulary v) {
  auto t = Tokenizer::create(std::move(v), "hand-made");
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(*t);
}

struct ReadBack {
  GgufFile file;
  Result<Model> model = error(ErrorCode::InvalidState, "not read");
  Result<Tokenizer> tokenizer = error(ErrorCode::InvalidState, "not read");
};

// export_gguf to a temporary file, then the reader's path: read_gguf, model_from_gguf, tokenizer_from_gguf.
ReadBack write_and_read(const Model& model, const Tokenizer& tokenizer, const std::string& label,
                        const std::string& expected_architecture) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("glassbox-roundtrip-" + label + "-" +
                     std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".gguf");
  ReadBack back;
  auto summary = export_gguf(model, tokenizer, ExportType::F32, label, path.string());
  EXPECT_TRUE(summary.ok()) << (summary.ok() ? "" : summary.error().message);
  if (!summary) return back;
  EXPECT_EQ(summary->architecture, expected_architecture);
  EXPECT_EQ(summary->f16_fallbacks, 0);
  auto bytes = map_file(path.string());
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message);
  std::filesystem::remove(path);  // the mapping (or the copy) outlives the name
  if (!bytes) return back;
  auto file = read_gguf(*bytes);
  EXPECT_TRUE(file.ok()) << (file.ok() ? "" : file.error().message);
  if (!file) return back;
  back.file = std::move(*file);
  back.model = model_from_gguf(back.file);
  back.tokenizer = tokenizer_from_gguf(back.file);
  return back;
}

void expect_same_config(const ModelConfig& want, const ModelConfig& got) {
#define GLASSBOX_EXPECT_FIELD(field) EXPECT_EQ(got.field, want.field) << #field
  GLASSBOX_EXPECT_FIELD(architecture);
  GLASSBOX_EXPECT_FIELD(dim);
  GLASSBOX_EXPECT_FIELD(hidden_dim);
  GLASSBOX_EXPECT_FIELD(n_layers);
  GLASSBOX_EXPECT_FIELD(n_heads);
  GLASSBOX_EXPECT_FIELD(n_kv_heads);
  GLASSBOX_EXPECT_FIELD(head_dim);
  GLASSBOX_EXPECT_FIELD(vocab_size);
  GLASSBOX_EXPECT_FIELD(max_seq_len);
  GLASSBOX_EXPECT_FIELD(norm);
  GLASSBOX_EXPECT_FIELD(norm_placement);
  GLASSBOX_EXPECT_FIELD(norm_eps);
  GLASSBOX_EXPECT_FIELD(position);
  GLASSBOX_EXPECT_FIELD(rope_pairing);
  GLASSBOX_EXPECT_FIELD(rope_theta);
  GLASSBOX_EXPECT_FIELD(rope_dim);
  GLASSBOX_EXPECT_FIELD(alibi_max_bias);
  GLASSBOX_EXPECT_FIELD(activation);
  GLASSBOX_EXPECT_FIELD(gated_ffn);
  GLASSBOX_EXPECT_FIELD(tied_embeddings);
#undef GLASSBOX_EXPECT_FIELD
  EXPECT_TRUE(got == want) << "a field not listed above differs";  // ModelConfig's defaulted ==
}

std::vector<float> decoded(const Tensor& t) {
  std::vector<float> values(static_cast<std::size_t>(t.elements()));
  const auto row_bytes = static_cast<std::size_t>(tensor_bytes(t.type, 1, t.cols));
  for (int64_t r = 0; r < t.rows; ++r)
    kernels::dequantize_row(t.type, t.data + static_cast<std::size_t>(r) * row_bytes,
                            values.data() + r * t.cols, static_cast<std::size_t>(t.cols));
  return values;
}

void expect_same_tensor(const Tensor& want, const Tensor& got, const std::string& what) {
  ASSERT_EQ(got.present(), want.present()) << what;
  if (!want.present()) return;
  EXPECT_EQ(got.type, DType::F32) << what;
  ASSERT_EQ(got.rows, want.rows) << what;
  ASSERT_EQ(got.cols, want.cols) << what;
  EXPECT_EQ(decoded(got), decoded(want)) << what;
}

void expect_same_weights(const ModelWeights& want, const ModelWeights& got) {
  expect_same_tensor(want.token_embedding, got.token_embedding, "token_embedding");
  expect_same_tensor(want.position_embedding, got.position_embedding, "position_embedding");
  expect_same_tensor(want.token_type_embedding, got.token_type_embedding, "token_type_embedding");
  expect_same_tensor(want.embedding_norm, got.embedding_norm, "embedding_norm");
  expect_same_tensor(want.embedding_norm_bias, got.embedding_norm_bias, "embedding_norm_bias");
  ASSERT_EQ(got.layers.size(), want.layers.size());
  for (std::size_t l = 0; l < want.layers.size(); ++l) {
    const LayerWeights &a = want.layers[l], &b = got.layers[l];
    const std::string at = "layer " + std::to_string(l) + " ";
#define GLASSBOX_EXPECT_TENSOR(field) expect_same_tensor(a.field, b.field, at + #field)
    GLASSBOX_EXPECT_TENSOR(attn_norm);
    GLASSBOX_EXPECT_TENSOR(attn_norm_bias);
    GLASSBOX_EXPECT_TENSOR(wq);
    GLASSBOX_EXPECT_TENSOR(wk);
    GLASSBOX_EXPECT_TENSOR(wv);
    GLASSBOX_EXPECT_TENSOR(bq);
    GLASSBOX_EXPECT_TENSOR(bk);
    GLASSBOX_EXPECT_TENSOR(bv);
    GLASSBOX_EXPECT_TENSOR(wo);
    GLASSBOX_EXPECT_TENSOR(bo);
    GLASSBOX_EXPECT_TENSOR(ffn_norm);
    GLASSBOX_EXPECT_TENSOR(ffn_norm_bias);
    GLASSBOX_EXPECT_TENSOR(ffn_gate);
    GLASSBOX_EXPECT_TENSOR(ffn_up);
    GLASSBOX_EXPECT_TENSOR(ffn_down);
    GLASSBOX_EXPECT_TENSOR(ffn_gate_bias);
    GLASSBOX_EXPECT_TENSOR(ffn_up_bias);
    GLASSBOX_EXPECT_TENSOR(ffn_down_bias);
#undef GLASSBOX_EXPECT_TENSOR
  }
  expect_same_tensor(want.final_norm, got.final_norm, "final_norm");
  expect_same_tensor(want.final_norm_bias, got.final_norm_bias, "final_norm_bias");
  expect_same_tensor(want.output, got.output, "output");
}

void expect_same_vocabulary(const Vocabulary& want, const Vocabulary& got) {
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.pieces, want.pieces);
  if (want.kind == TokenizerKind::SentencePiece) {
    EXPECT_EQ(got.scores, want.scores);
  }
  EXPECT_EQ(got.types, want.types);
  EXPECT_EQ(got.merges, want.merges);
  if (want.kind == TokenizerKind::ByteLevelBpe) {
    EXPECT_EQ(got.pre_tokenizer, want.pre_tokenizer);
  }
  EXPECT_EQ(got.ignore_merges, want.ignore_merges);
  EXPECT_EQ(got.bos_id, want.bos_id);
  EXPECT_EQ(got.eos_id, want.eos_id);
  EXPECT_EQ(got.unk_id, want.unk_id);
  EXPECT_EQ(got.add_bos, want.add_bos);
  EXPECT_EQ(got.add_space_prefix, want.add_space_prefix);
  EXPECT_EQ(got.cls_id, want.cls_id);
  EXPECT_EQ(got.sep_id, want.sep_id);
  EXPECT_EQ(got.mask_id, want.mask_id);
  EXPECT_EQ(got.pad_id, want.pad_id);
  EXPECT_EQ(got.add_sep, want.add_sep);
  if (want.kind == TokenizerKind::WordPiece) {
    EXPECT_EQ(got.wordpiece.lowercase, want.wordpiece.lowercase);
    EXPECT_EQ(got.wordpiece.strip_accents, want.wordpiece.strip_accents);
    EXPECT_EQ(got.wordpiece.continuing_prefix, want.wordpiece.continuing_prefix);
  }
}

class GgufRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(GgufRoundTrip, EveryConfigFieldAndWeightComesBack) {
  const Case& c = GetParam();
  ModelConfig want = c.config;
  want.architecture = c.architecture;
  ASSERT_TRUE(validate(want, c.label).ok());
  const RandomModel source(want, c.biases, 7);
  const Tokenizer tokenizer = make_tokenizer(sentencepiece_vocabulary());
  ReadBack back = write_and_read(source.model(), tokenizer, c.label, c.architecture);
  ASSERT_TRUE(back.model.ok()) << back.model.error().message;
  expect_same_config(want, back.model->config);
  expect_same_weights(source.model().weights, back.model->weights);
}

INSTANTIATE_TEST_SUITE_P(Architectures, GgufRoundTrip, ::testing::ValuesIn(test::architecture_cases()),
                         [](const auto& info) { return test::test_name(info.param.label); });

TEST(GgufRoundTripTokenizer, EveryVocabularyKindAndPreTokenizerComesBack) {
  const RandomModel source(test::base_config(), {}, 3);
  std::vector<std::pair<std::string, Vocabulary>> vocabularies = {
      {"sentencepiece", sentencepiece_vocabulary()},
      {"gpt2", byte_level_vocabulary(PreTokenizer::Gpt2)},
      {"llama3", byte_level_vocabulary(PreTokenizer::Llama3)},
      {"qwen2", byte_level_vocabulary(PreTokenizer::Qwen2)},
      {"wordpiece", wordpiece_vocabulary()},
  };
  for (auto& [label, vocabulary] : vocabularies) {
    SCOPED_TRACE(label);
    const Tokenizer tokenizer = make_tokenizer(vocabulary);
    ReadBack back = write_and_read(source.model(), tokenizer, "tokenizer-" + label, "llama");
    ASSERT_TRUE(back.tokenizer.ok()) << back.tokenizer.error().message;
    expect_same_vocabulary(tokenizer.vocabulary(), back.tokenizer->vocabulary());
    EXPECT_EQ(back.tokenizer->encode_ids("Hello unaffable", true),
              tokenizer.encode_ids("Hello unaffable", true));
  }
}

// In the file a WordPiece vocabulary is in llama.cpp's phantom-space form, as its converter writes BERT's.
TEST(GgufRoundTripTokenizer, WordPieceIsWrittenInLlamaCppsForm) {
  const RandomModel source(test::base_config(), {}, 3);
  const Tokenizer tokenizer = make_tokenizer(wordpiece_vocabulary());
  ReadBack back = write_and_read(source.model(), tokenizer, "tokenizer-wordpiece-form", "llama");
  ASSERT_TRUE(back.tokenizer.ok()) << back.tokenizer.error().message;
  const GgufValue* model = back.file.find("tokenizer.ggml.model");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->text, "bert");
  const GgufValue* tokens = back.file.find("tokenizer.ggml.tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->items.text(1), "[UNK]");
  EXPECT_EQ(tokens->items.text(2), "[CLS]");
  EXPECT_EQ(tokens->items.text(5), "\xE2\x96\x81hello");
  EXPECT_EQ(tokens->items.text(7), "aff");
  EXPECT_EQ(tokens->items.text(9), "[unused0]");
  for (const char* key : {"tokenizer.ggml.seperator_token_id", "tokenizer.ggml.cls_token_id",
                          "tokenizer.ggml.mask_token_id", "tokenizer.ggml.padding_token_id",
                          "tokenizer.ggml.normalizer.lowercase", "tokenizer.ggml.add_eos_token"})
    EXPECT_NE(back.file.find(key), nullptr) << key;

  // What GGUF cannot say is refused, not dropped.
  Vocabulary unclean = wordpiece_vocabulary();
  unclean.wordpiece.clean_text = false;
  const auto path = std::filesystem::temp_directory_path() / "glassbox-roundtrip-unclean.gguf";
  auto summary =
      export_gguf(source.model(), make_tokenizer(unclean), ExportType::F32, "unclean", path.string());
  std::filesystem::remove(path);
  test::expect_error(summary, ErrorCode::UnsupportedArchitecture, "always cleans the text");
}

// nomic-bert (nomic-embed-text v1/v1.5): a config with bert's encoder knobs but half-split RoPE and SwiGLU is
// written in llama.cpp's nomic-bert layout (fused attn_qkv, ffn_gate beside ffn_up, bert's post-norm names,
// no position table) and reads back as it was.
ModelConfig nomic_bert_config() {
  ModelConfig c = test::base_config();
  c.architecture = "nomic-bert";
  c.norm = NormKind::LayerNorm;
  c.norm_placement = NormPlacement::PostNorm;
  c.rope_pairing = RopePairing::HalfSplit;
  c.causal = false;
  c.n_token_types = 2;
  c.embedding_norm = true;
  c.pooling = Pooling::Mean;
  return c;
}

TEST(GgufRoundTripEncoders, NomicBertIsWrittenInLlamaCppsLayoutAndReadBack) {
  const ModelConfig want = nomic_bert_config();
  ASSERT_TRUE(validate(want, "nomic-bert").ok());
  const RandomModel source(want, {.norm = true, .qkv = true, .out = true}, 9);
  const Tokenizer tokenizer = make_tokenizer(wordpiece_vocabulary());
  ReadBack back = write_and_read(source.model(), tokenizer, "nomic-bert", "nomic-bert");
  ASSERT_TRUE(back.model.ok()) << back.model.error().message;
  expect_same_config(want, back.model->config);
  expect_same_weights(source.model().weights, back.model->weights);
  for (const char* name : {"token_types.weight", "token_embd_norm.bias", "blk.1.attn_qkv.weight",
                           "blk.1.attn_qkv.bias", "blk.1.attn_output_norm.bias", "blk.1.ffn_gate.weight",
                           "blk.1.ffn_up.weight", "blk.1.layer_output_norm.weight"})
    EXPECT_NE(back.file.tensor(name), nullptr) << name;
  for (const char* name : {"position_embd.weight", "blk.1.attn_q.weight", "blk.1.attn_norm.weight"})
    EXPECT_EQ(back.file.tensor(name), nullptr) << name;
  auto base = back.file.real("nomic-bert.rope.freq_base", 0.0);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(*base, 500.0);
  auto causal = back.file.boolean("nomic-bert.attention.causal", true);
  ASSERT_TRUE(causal.ok());
  EXPECT_FALSE(*causal);

  // Its tokens are WordPiece: a vocabulary of another kind is refused, whatever its size.
  auto matches = check_tokenizer_matches(make_tokenizer(sentencepiece_vocabulary()), *back.model, "spm");
  test::expect_error(matches, ErrorCode::VocabMismatch, "nomic-bert model reads WordPiece tokens");
  EXPECT_TRUE(check_tokenizer_matches(*back.tokenizer, *back.model, "wordpiece").ok());
}

// llama.cpp's nomic-bert graph adds no feed-forward bias: a model that has them is written as our own
// architecture (keeping them), and a nomic-bert file's are not read.
TEST(GgufRoundTripEncoders, FeedForwardBiasesAreNotNomicBerts) {
  ModelConfig want = nomic_bert_config();
  const RandomModel source(want, {.norm = true, .ffn = true}, 10);
  const Tokenizer tokenizer = make_tokenizer(wordpiece_vocabulary());
  ReadBack back = write_and_read(source.model(), tokenizer, "nomic-bert-ffn-biases", "glassbox");
  ASSERT_TRUE(back.model.ok()) << back.model.error().message;
  want.architecture = "glassbox";
  expect_same_config(want, back.model->config);
  expect_same_weights(source.model().weights, back.model->weights);

  EXPECT_EQ(gguf::layer_tensor_name(*gguf::architecture_named("nomic-bert"), 0, LayerRole::UpBias), "");
  EXPECT_EQ(gguf::layer_tensor_name(*gguf::architecture_named("nomic-bert"), 0, LayerRole::DownBias), "");
  EXPECT_EQ(gguf::layer_tensor_name(*gguf::architecture_named("bert"), 0, LayerRole::DownBias),
            "blk.0.ffn_down.bias");
}

// The spellings of the config's choices are one table: what to_string prints is what the glassbox
// architecture stores, and what tests/reference/gguf_export.py writes (configs.py: "pre", "half", ...).
TEST(GgufRoundTripNames, ToStringIsTheFileSpelling) {
  EXPECT_STREQ(to_string(NormKind::RMSNorm), "rmsnorm");
  EXPECT_STREQ(to_string(NormKind::LayerNorm), "layernorm");
  EXPECT_STREQ(to_string(NormPlacement::PreNorm), "pre");
  EXPECT_STREQ(to_string(NormPlacement::PostNorm), "post");
  EXPECT_STREQ(to_string(PositionKind::RoPE), "rope");
  EXPECT_STREQ(to_string(PositionKind::Learned), "learned");
  EXPECT_STREQ(to_string(PositionKind::Sinusoidal), "sinusoidal");
  EXPECT_STREQ(to_string(PositionKind::None), "none");
  EXPECT_STREQ(to_string(PositionKind::ALiBi), "alibi");
  EXPECT_STREQ(to_string(RopePairing::Adjacent), "adjacent");
  EXPECT_STREQ(to_string(RopePairing::HalfSplit), "half");
  EXPECT_STREQ(to_string(Activation::SiLU), "silu");
  EXPECT_STREQ(to_string(Activation::GELU), "gelu");
  EXPECT_STREQ(to_string(Activation::ReLU), "relu");

  ModelConfig c = test::base_config();
  c.norm_placement = NormPlacement::PostNorm;
  c.rope_pairing = RopePairing::HalfSplit;
  const RandomModel source(c, {}, 5);
  const Tokenizer tokenizer = make_tokenizer(sentencepiece_vocabulary());
  ReadBack back = write_and_read(source.model(), tokenizer, "spellings", "glassbox");
  ASSERT_TRUE(back.model.ok()) << back.model.error().message;
  for (const auto& [key, value] : {std::pair<const char*, const char*>{"glassbox.norm", "rmsnorm"},
                                   {"glassbox.norm_placement", "post"},
                                   {"glassbox.position", "rope"},
                                   {"glassbox.rope.pairing", "half"},
                                   {"glassbox.activation", "silu"}}) {
    auto text = back.file.string(key);
    ASSERT_TRUE(text.ok()) << key;
    EXPECT_EQ(*text, value) << key;
  }
}

}  // namespace
}  // namespace glassbox
