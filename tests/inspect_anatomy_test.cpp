// Model anatomy: the formulas' totals against the model's own tensor sizes, on every random architecture and
// on stories260K.
#include <gtest/gtest.h>

#include "glassbox/anatomy.hpp"
#include "glassbox/formats.hpp"
#include "random_models.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

class AnatomyOfEveryArchitecture : public testing::TestWithParam<test::Case> {};

TEST_P(AnatomyOfEveryArchitecture, TotalsEqualTheModelsTensors) {
  const test::RandomModel random(GetParam().config, GetParam().biases, 11);
  const Model& model = random.model();
  const ModelAnatomy a = model_anatomy(model);
  EXPECT_EQ(a.total.parameters, model.parameter_count());
  EXPECT_EQ(a.total.bytes, model.weight_bytes());
  const ModelConfig& c = model.config;
  EXPECT_EQ(a.output.parameters, c.tied_embeddings ? 0 : int64_t{c.vocab_size} * c.dim);
  EXPECT_EQ(a.attention_k.parameters, int64_t{c.n_layers} * c.kv_dim() * c.dim);
  const bool any_bias =
      GetParam().biases.norm || GetParam().biases.qkv || GetParam().biases.out || GetParam().biases.ffn;
  EXPECT_EQ(a.biases.parameters > 0, any_bias);
  // F32 throughout: each token reads every weight once, the classifier's V x d once whether tied or not (the
  // token embedding then serves as both), and one row of each embedding table instead of the tables.
  const int64_t positions_table = c.position == PositionKind::Learned ? int64_t{c.max_seq_len} * c.dim : 0;
  const int64_t rows = c.dim * (c.position == PositionKind::Learned ? 2 : 1);
  EXPECT_EQ(a.bytes_read_per_token, 4 * (model.parameter_count() - positions_table -
                                         (c.tied_embeddings ? 0 : int64_t{c.vocab_size} * c.dim) + rows));
}

INSTANTIATE_TEST_SUITE_P(Random, AnatomyOfEveryArchitecture, testing::ValuesIn(test::architecture_cases()),
                         [](const auto& info) { return test::test_name(info.param.label); });

// Encoders have parts decoders lack (token types, the embeddings' norm, the MLM head) and no final norm; the
// anatomy counts each, so its total is the file's.
TEST(Anatomy, EncodersTotalsEqualTheModelsTensors) {
  for (const char* name : {"bert-tiny.gguf", "bert-tiny-mlm.gguf", "nomic-bert-tiny.gguf"}) {
    const std::string file = test::fixture_path(name);
    GLASSBOX_REQUIRE_FILE(file);
    auto loaded = open_model_files(file, "");
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    const ModelAnatomy a = model_anatomy(*loaded->model);
    EXPECT_EQ(a.total.parameters, loaded->model->parameter_count()) << name;
    EXPECT_EQ(a.total.bytes, loaded->model->weight_bytes()) << name;
  }
}

TEST(Anatomy, Stories260KByHand) {
  const std::string path = test::model_path("stories260K.bin");
  GLASSBOX_REQUIRE_FILE(path);
  const auto loaded = open_model_files(path, test::model_path("tok512.bin"));
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Model& model = *loaded->model;
  const ModelAnatomy a = model_anatomy(model);
  // dim 64, hidden 172, 5 layers, 8 heads of 8, 4 kv heads, vocab 512, tied.
  EXPECT_EQ(a.token_embedding.parameters, 512 * 64);
  EXPECT_EQ(a.attention_q.parameters + a.attention_k.parameters + a.attention_v.parameters +
                a.attention_o.parameters,
            5 * (64 * 64 + 2 * 32 * 64 + 64 * 64));
  EXPECT_EQ(a.feed_forward.parameters, 5 * 3 * 172 * 64);
  EXPECT_EQ(a.norms.parameters, 5 * 2 * 64 + 64);
  EXPECT_EQ(a.total.parameters, model.parameter_count());
  EXPECT_EQ(a.total.parameters, 260032);
}

TEST(Anatomy, AttentionFlopsGrowWithTheSequenceAndTheRestDoesNot) {
  const ModelConfig c = test::base_config();  // dim 16, hidden 24, 2 layers, q 16, kv 8, vocab 11, gated
  const TokenFlops one = flops_per_token(c, 1), hundred = flops_per_token(c, 100);
  EXPECT_EQ(one.attention_projections, 2 * 2 * (16 * 16 + 2 * 8 * 16 + 16 * 16));
  EXPECT_EQ(one.feed_forward, 2 * 2 * 3 * 24 * 16);
  EXPECT_EQ(one.output, 2 * 11 * 16);
  EXPECT_EQ(one.attention_scores, 2 * 4 * 16);
  EXPECT_EQ(hundred.attention_scores, 100 * one.attention_scores);
  EXPECT_EQ(hundred.feed_forward, one.feed_forward);
  EXPECT_EQ(hundred.total,
            hundred.attention_projections + hundred.attention_scores + hundred.feed_forward + hundred.output);
}

// A sliding layer scores only its window's keys: past the window its attention FLOPs stop growing.
TEST(Anatomy, SlidingLayersScoreOnlyTheirWindow) {
  ModelConfig c = test::base_config();  // 2 layers
  c.sliding_window = 8;
  c.sliding_layers = {true, false};
  const int64_t per_key = 2 * 16 * 2;  // one layer's q·k and value sum for one key
  EXPECT_EQ(flops_per_token(c, 8).attention_scores, 2 * 8 * per_key);
  EXPECT_EQ(flops_per_token(c, 100).attention_scores, (8 + 100) * per_key);
  const ModelConfig global = test::base_config();
  EXPECT_EQ(flops_per_token(global, 100).attention_scores, 2 * 100 * per_key);
}

}  // namespace
}  // namespace glassbox
