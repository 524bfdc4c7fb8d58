// Encoders (BERT, nomic-bert) against the independent NumPy reference (tests/reference/encoder.py, fixtures described in
// tests/reference/README.md, "Encoder fixtures"): each fixture's padded batch of three texts of different
// lengths, its final states, pooled embeddings and MLM logits. Tolerance as for the decoders:
// |ours - reference| <= 1e-5 * max(1, max |reference|) per array. And the padding rule itself: each text of a
// batch gets the bits it gets alone, with several threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "glassbox/glassbox.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

constexpr double kTolerance = 1e-5;

struct ExpectedEncoding {
  std::vector<std::vector<int>> tokens;
  std::vector<std::vector<std::vector<float>>> states;  // [text][token][dim]
  std::string pooling;
  bool normalize = false;
  std::vector<std::vector<float>> pooled, pooled_normalized;
  struct MaskedLm {
    int text = 0, position = 0;
    std::vector<float> logits;
  };
  std::vector<MaskedLm> masked_lm;
};

ExpectedEncoding read_expected(const std::string& path) {
  ExpectedEncoding e;
  const json::Document json = test::parse_json(test::read_file(path), path);
  for (const json::Value& text : test::items(test::member(json, "tokens")))
    e.tokens.push_back(test::ints(text));
  for (const json::Value& text : test::items(test::member(json, "hidden_states"))) {
    e.states.emplace_back();
    for (const json::Value& row : test::items(text))
      e.states.back().push_back(test::floats(row));
  }
  e.pooling = test::text(test::member(json, "pooling"));
  e.normalize = test::member(json, "normalize").GetBool();
  for (const json::Value& row : test::items(test::member(json, "pooled")))
    e.pooled.push_back(test::floats(row));
  for (const json::Value& row : test::items(test::member(json, "pooled_normalized")))
    e.pooled_normalized.push_back(test::floats(row));
  if (const json::Value& mlm = test::member(json, "mlm_logits"); !mlm.IsNull())
    for (const json::Value& m : test::items(mlm))
      e.masked_lm.push_back({test::member(m, "text").GetInt(), test::member(m, "position").GetInt(),
                             test::floats(test::member(m, "logits"))});
  return e;
}

// The worst |a - b| over the arrays, relative to max(1, max |b|).
double relative_error(std::span<const float> actual, const std::vector<float>& reference) {
  if (actual.size() != reference.size()) return INFINITY;
  double scale = 1.0, worst = 0.0;
  for (float r : reference)
    scale = std::max(scale, std::fabs(double{r}));
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double error = std::fabs(double{actual[i]} - reference[i]) / scale;
    worst = std::isnan(error) ? INFINITY : std::max(worst, error);
  }
  return worst;
}

std::shared_ptr<const Model> load(const std::string& path) {
  auto model = load_model(path);
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().message);
  if (!model) return nullptr;
  return std::make_shared<const Model>(std::move(*model));
}

// A fixture's model (NAME.gguf, or the folder NAME) and its expected outputs (NAME.json, NAME/expected.json).
struct FixtureFiles {
  std::string model, expected;
};
FixtureFiles fixture_files(const std::string& name) {
  const std::string gguf = test::fixture_path(name + ".gguf");
  if (test::read_file(gguf).empty())
    return {test::fixture_path(name), test::fixture_path(name + "/expected.json")};
  return {gguf, test::fixture_path(name + ".json")};
}

class EncoderFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(EncoderFixture, PaddedBatchMatchesTheNumpyReference) {
  const FixtureFiles files = fixture_files(GetParam());
  GLASSBOX_REQUIRE_FILE(files.expected);
  const ExpectedEncoding expected = read_expected(files.expected);
  ASSERT_EQ(expected.tokens.size(), 3u);
  auto model = load(files.model);
  ASSERT_TRUE(model);
  EXPECT_FALSE(model->config.causal);
  // A plain Hugging Face folder names no pooling (its expected file says which the reference used); GGUF
  // files and sentence-transformers folders do.
  if (!GetParam().starts_with("hf-")) {
    EXPECT_EQ(to_string(model->config.pooling), expected.pooling);
  }
  EXPECT_EQ(model->config.normalize_embedding, expected.normalize);
  auto encoder = Encoder::create(model, {.threads = 2});
  ASSERT_TRUE(encoder.ok()) << encoder.error().message;
  auto encoded = encoder->encode(expected.tokens);
  ASSERT_TRUE(encoded.ok()) << encoded.error().message;
  for (int text = 0; text < 3; ++text)
    for (int t = 0; t < encoded->lengths[static_cast<std::size_t>(text)]; ++t)
      EXPECT_LE(relative_error(encoded->state(text, t),
                               expected.states[static_cast<std::size_t>(text)][static_cast<std::size_t>(t)]),
                kTolerance)
          << "text " << text << " token " << t;

  for (bool normalize : {false, true}) {
    auto pooled = pool_states(*encoded, expected.pooling == "cls" ? Pooling::Cls : Pooling::Mean, normalize);
    ASSERT_TRUE(pooled.ok()) << pooled.error().message;
    for (std::size_t text = 0; text < 3; ++text)
      EXPECT_LE(relative_error((*pooled)[text],
                               normalize ? expected.pooled_normalized[text] : expected.pooled[text]),
                kTolerance)
          << "text " << text << (normalize ? " normalized" : "");
  }

  for (const ExpectedEncoding::MaskedLm& m : expected.masked_lm) {
    auto logits = encoder->masked_lm_logits(encoded->state(m.text, m.position));
    ASSERT_TRUE(logits.ok()) << logits.error().message;
    EXPECT_LE(relative_error(*logits, m.logits), kTolerance)
        << "text " << m.text << " position " << m.position;
  }
  if (expected.masked_lm.empty()) {
    auto logits = encoder->masked_lm_logits(encoded->state(0, 0));
    test::expect_error(logits, ErrorCode::BadArgument, "no masked-language-model head");
  }
}

// The padding mask: each text of a batch, beside longer and shorter ones, is the bits it gets alone, with
// several threads working on the batch.
TEST_P(EncoderFixture, EachTextOfABatchIsTheBitsItGetsAlone) {
  const FixtureFiles files = fixture_files(GetParam());
  GLASSBOX_REQUIRE_FILE(files.expected);
  const ExpectedEncoding expected = read_expected(files.expected);
  auto model = load(files.model);
  ASSERT_TRUE(model);
  auto batch_encoder = Encoder::create(model, {.threads = 3});
  auto alone_encoder = Encoder::create(model, {.threads = 1});
  ASSERT_TRUE(batch_encoder.ok() && alone_encoder.ok());
  auto batch = batch_encoder->encode(expected.tokens);
  ASSERT_TRUE(batch.ok()) << batch.error().message;
  for (std::size_t text = 0; text < expected.tokens.size(); ++text) {
    auto alone = alone_encoder->encode(std::span(&expected.tokens[text], 1));
    ASSERT_TRUE(alone.ok()) << alone.error().message;
    for (int t = 0; t < alone->lengths[0]; ++t) {
      const auto a = alone->state(0, t), b = batch->state(static_cast<int>(text), t);
      ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size_bytes()), 0) << "text " << text << " token " << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GgufAndFolders, EncoderFixture,
                         ::testing::Values("bert-tiny", "bert-tiny-mlm", "nomic-bert-tiny", "hf-bert",
                                           "hf-bert-mlm", "st-bert"));

// glassbox convert keeps an encoder whole: written as llama.cpp's `bert` (with our MLM head's tensors where the
// model has one) or `nomic-bert`, read back to the same bits, pooling and tokenizer.
TEST_P(EncoderFixture, ConvertWritesBertAndReadsBackTheSameBits) {
  const FixtureFiles files = fixture_files(GetParam());
  GLASSBOX_REQUIRE_FILE(files.expected);
  const ExpectedEncoding expected = read_expected(files.expected);
  auto loaded = open_model_files(files.model, "");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const auto path = std::filesystem::temp_directory_path() / ("glassbox-convert-" + GetParam() + ".gguf");
  auto written = export_gguf(*loaded->model, *loaded->tokenizer, ExportType::F32, GetParam(), path.string());
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(written->architecture, GetParam().starts_with("nomic-bert") ? "nomic-bert" : "bert");
  auto again = open_model_files(path.string(), "");
  std::filesystem::remove(path);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->model->config, loaded->model->config);
  EXPECT_EQ(again->model->weights.masked_lm.present(), loaded->model->weights.masked_lm.present());
  for (const std::vector<int>& text : expected.tokens) {
    EXPECT_EQ(again->tokenizer->mask_id(), loaded->tokenizer->mask_id());
    auto a = Encoder::create(loaded->model), b = Encoder::create(again->model);
    ASSERT_TRUE(a.ok() && b.ok());
    auto sa = a->encode(std::span(&text, 1)), sb = b->encode(std::span(&text, 1));
    ASSERT_TRUE(sa.ok() && sb.ok());
    EXPECT_EQ(sa->states, sb->states);
  }
}

// Full attention rows: every query over every token of the text, each row a distribution, weight after the
// query too (no causal mask), and recording changes no state's bits.
TEST(Encoder, AttentionRowsAreFullAndRecordingChangesNothing) {
  const std::string model_file = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto model = load(model_file);
  ASSERT_TRUE(model);
  auto encoder = Encoder::create(model, {.threads = 2});
  ASSERT_TRUE(encoder.ok());
  const std::vector<std::vector<int>> text = {{2, 63, 64, 66, 67, 63, 68, 5, 3}};
  const int n = static_cast<int>(text[0].size());
  AttentionTrace attention;
  auto traced = encoder->encode(text, attention);
  ASSERT_TRUE(traced.ok()) << traced.error().message;
  auto plain = encoder->encode(text);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(std::memcmp(traced->states.data(), plain->states.data(), plain->states.size() * sizeof(float)),
            0);
  ASSERT_EQ(attention.n_positions(), n);
  double after_query = 0;
  for (int layer = 0; layer < model->config.n_layers; ++layer)
    for (int head = 0; head < model->config.n_heads; ++head)
      for (int q = 0; q < n; ++q) {
        const auto row = attention.row(layer, head, q);
        ASSERT_EQ(row.size(), static_cast<std::size_t>(n));
        double sum = 0;
        for (int k = 0; k < n; ++k) {
          sum += row[static_cast<std::size_t>(k)];
          if (k > q) after_query += row[static_cast<std::size_t>(k)];
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << layer << "." << head << " query " << q;
      }
  EXPECT_GT(after_query, 1.0);  // bidirectional: queries attend to later tokens
}

// A padded batch's attention: each text's rows, over its own keys only, are the bits it gets alone, with
// several threads on the batch; recording changes no state's bits.
TEST(Encoder, EachTextOfABatchAttendsAsItDoesAlone) {
  const std::string model_file = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto model = load(model_file);
  ASSERT_TRUE(model);
  auto batch_encoder = Encoder::create(model, {.threads = 3});
  auto alone_encoder = Encoder::create(model, {.threads = 1});
  ASSERT_TRUE(batch_encoder.ok() && alone_encoder.ok());
  const std::vector<std::vector<int>> texts = {{2, 63, 64, 3}, {2, 63, 64, 66, 67, 63, 68, 5, 3}, {2, 5, 3}};
  AttentionTrace batch;
  auto traced = batch_encoder->encode(texts, batch);
  ASSERT_TRUE(traced.ok()) << traced.error().message;
  auto plain = batch_encoder->encode(texts);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(traced->states, plain->states);
  ASSERT_EQ(batch.n_positions(), 3 * traced->stride);
  const ModelConfig& c = model->config;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    AttentionTrace alone;
    ASSERT_TRUE(alone_encoder->encode(std::span(&texts[i], 1), alone).ok());
    const int n = static_cast<int>(texts[i].size());
    const AttentionTrace text = batch.rows(static_cast<int>(i) * traced->stride, n);
    ASSERT_EQ(text.n_positions(), n);
    for (int layer = 0; layer < c.n_layers; ++layer)
      for (int head = 0; head < c.n_heads; ++head)
        for (int q = 0; q < traced->stride; ++q) {
          const auto row = batch.row(layer, head, static_cast<int>(i) * traced->stride + q);
          ASSERT_EQ(row.size(), static_cast<std::size_t>(n))
              << "text " << i << " row " << q;  // no padding key
          if (q >= n) continue;                 // a padding row: computed, thrown away
          const auto a = alone.row(layer, head, q), b = text.row(layer, head, q);
          ASSERT_EQ(std::memcmp(a.data(), row.data(), a.size_bytes()), 0) << "text " << i << " query " << q;
          ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size_bytes()), 0) << "text " << i << " query " << q;
        }
  }
}

// Encoder heads: the role of a head follows where its weight goes.
TEST(EncoderHeads, RolesFollowTheWeight) {
  const std::string model_file = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto loaded = open_model_files(model_file, "");
  ASSERT_TRUE(loaded.ok());
  const Tokenizer& tokenizer = *loaded->tokenizer;
  // [CLS] the cat . [SEP]
  const std::vector<int> tokens = {tokenizer.cls_id(), 63, 64, 5, tokenizer.sep_id()};
  const int n = static_cast<int>(tokens.size());
  // One layer, five heads: each puts all of every row on one kind of key.
  AttentionTrace trace(1, 5);
  for (int p = 0; p < n; ++p)
    trace.begin_position(p, n);
  for (int q = 0; q < n; ++q) {
    const int targets[5] = {std::max(q - 1, 0), std::min(q + 1, n - 1), 0, n - 1,
                            3};  // prev, next, CLS, SEP, "."
    for (int head = 0; head < 5; ++head) {
      float* row = trace.slot(q, 0, head);
      std::fill(row, row + n, 0.0f);
      row[targets[head]] = 1.0f;
    }
  }
  const std::vector<EncoderHeadReport> heads = measure_encoder_heads(trace, tokenizer, tokens);
  ASSERT_EQ(heads.size(), 5u);
  EXPECT_EQ(heads[0].role, HeadRole::PreviousToken);
  EXPECT_EQ(heads[1].role, HeadRole::NextToken);
  EXPECT_EQ(heads[2].role, HeadRole::Sink);
  EXPECT_EQ(heads[3].role, HeadRole::Separator);
  EXPECT_EQ(heads[4].role, HeadRole::Punctuation);
  EXPECT_DOUBLE_EQ(heads[3].separator, 1.0);
  EXPECT_DOUBLE_EQ(heads[4].punctuation, 1.0);
  EXPECT_DOUBLE_EQ(heads[0].stats.entropy_bits, 0.0);
  EXPECT_STREQ(to_string(HeadRole::NextToken), "next-token");
}

TEST(Encoder, RefusesBadInputWithWordsThatSayWhatIsWrong) {
  const std::string model_file = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto model = load(model_file);
  ASSERT_TRUE(model);
  auto encoder = Encoder::create(model);
  ASSERT_TRUE(encoder.ok());
  test::expect_error(encoder->encode({}), ErrorCode::BadArgument, "no texts");
  const std::vector<std::vector<int>> empty_text = {{2, 3}, {}};
  test::expect_error(encoder->encode(empty_text), ErrorCode::BadArgument, "text 2 has no tokens");
  const std::vector<std::vector<int>> out_of_vocab = {{2, model->config.vocab_size, 3}};
  test::expect_error(encoder->encode(out_of_vocab), ErrorCode::BadArgument, "text 1");
  const std::vector<std::vector<int>> too_long = {
      std::vector<int>(static_cast<std::size_t>(model->config.max_seq_len) + 1, 5)};
  test::expect_error(encoder->encode(too_long), ErrorCode::BadArgument, "positions", "refuses");
  test::expect_error(pool_states(EncodedTexts{}, Pooling::None, false), ErrorCode::BadArgument,
                     "mean or cls");
  // After the errors the encoder still works.
  const std::vector<std::vector<int>> fine = {{2, 5, 3}};
  EXPECT_TRUE(encoder->encode(fine).ok());
}

TEST(Encoder, ADecoderIsNotAnEncoder) {
  const std::string model_file = test::model_path("stories260K.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto model = load(model_file);
  ASSERT_TRUE(model);
  EXPECT_TRUE(model->config.causal);
  test::expect_error(Encoder::create(model), ErrorCode::BadArgument, "decoder", "generate");
}

TEST(Encoder, CosineSimilaritiesOfEmbeddings) {
  const auto s = cosine_similarities({{1.0f, 0.0f}, {0.0f, 2.0f}, {3.0f, 3.0f}, {0.0f, 0.0f}});
  EXPECT_FLOAT_EQ(s[0][0], 1.0f);
  EXPECT_FLOAT_EQ(s[0][1], 0.0f);
  EXPECT_NEAR(s[1][2], std::sqrt(0.5f), 1e-6f);
  EXPECT_EQ(s[3][0], 0.0f);  // a zero vector has no direction
}

// fill_masks is what fill-mask prints and the page shows: the head's top tokens at each [MASK] of the text.
TEST(EncoderTasks, FillMasksReadsTheHeadAtEachMask) {
  const std::string model_file = test::fixture_path("bert-tiny-mlm.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto loaded = open_model_files(model_file, "");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto encoder = Encoder::create(loaded->model);
  ASSERT_TRUE(encoder.ok());
  const Tokenizer& tokenizer = *loaded->tokenizer;
  auto filled = fill_masks(*encoder, tokenizer, "the [MASK] sat on the [MASK]", 4);
  ASSERT_TRUE(filled.ok()) << filled.error().message;
  ASSERT_EQ(filled->masks.size(), 2u);
  auto encoded = encoder->encode(std::vector<std::vector<int>>{filled->tokens});
  ASSERT_TRUE(encoded.ok());
  for (const MaskFill& m : filled->masks) {
    EXPECT_EQ(filled->tokens[static_cast<std::size_t>(m.position)], tokenizer.mask_id());
    auto logits = encoder->masked_lm_logits(encoded->state(0, m.position));
    ASSERT_TRUE(logits.ok());
    const auto expected = top_tokens(*logits, 4);
    ASSERT_EQ(m.candidates.size(), 4u);
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(m.candidates[k].id, expected[k].id);
      EXPECT_EQ(m.candidates[k].probability, expected[k].probability);
    }
  }
  EXPECT_EQ(filled->tokens.front(), tokenizer.cls_id());
  test::expect_error(fill_masks(*encoder, tokenizer, "the cat sat", 4), ErrorCode::BadArgument,
                     "no [MASK] to fill");
  test::expect_error(fill_masks(*encoder, tokenizer, "the [MASK] sat", 0), ErrorCode::BadArgument, "top-k");
  std::string long_text;
  for (int i = 0; i <= loaded->model->config.max_seq_len; ++i)
    long_text += "the ";
  test::expect_error(fill_masks(*encoder, tokenizer, long_text + "[MASK]", 4), ErrorCode::BadArgument,
                     "positions");
}

// Switching heads off in an encoder: each mask's distribution moves (KL > 0), "before" is fill_masks with
// every head and "after" fill_masks under the ablation, all ones changes nothing, and the encoder keeps the
// ablation it had, also after a bad table.
TEST(EncoderTasks, AblatingHeadsMovesEachMasksDistribution) {
  const std::string model_file = test::fixture_path("bert-tiny-mlm.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto loaded = open_model_files(model_file, "");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto encoder = Encoder::create(loaded->model, {.threads = 2});
  ASSERT_TRUE(encoder.ok());
  const Tokenizer& tokenizer = *loaded->tokenizer;
  const ModelConfig& c = loaded->model->config;
  const std::string text = "the [MASK] sat on the [MASK]";
  const auto same = [](const std::vector<TokenProbability>& a, const std::vector<TokenProbability>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
             return x.id == y.id && x.probability == y.probability;
           });
  };
  std::vector<float> off(static_cast<std::size_t>(c.n_layers * c.n_heads), 1.0f);
  for (int h = 0; h < c.n_heads; ++h)
    off[static_cast<std::size_t>(h)] = 0.0f;  // layer 0, every head
  auto plain = fill_masks(*encoder, tokenizer, text, 4);
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE(encoder->set_head_scales(off).ok());
  auto switched_off = fill_masks(*encoder, tokenizer, text, 4);
  ASSERT_TRUE(switched_off.ok());
  const std::vector<float> kept = {1.0f, 0.5f};  // wrong length: refused, and the ablation stays
  test::expect_error(encoder->set_head_scales(kept), ErrorCode::BadArgument, "values for a model");
  EXPECT_EQ(encoder->head_scales().size(), off.size());

  auto ablated = ablate_fill_masks(*encoder, tokenizer, text, 4, off);
  ASSERT_TRUE(ablated.ok()) << ablated.error().message;
  ASSERT_EQ(ablated->masks.size(), 2u);
  for (std::size_t m = 0; m < 2; ++m) {
    const MaskAblation& a = ablated->masks[m];
    EXPECT_EQ(a.position, plain->masks[m].position);
    EXPECT_TRUE(same(a.before, plain->masks[m].candidates)) << "mask " << m;
    EXPECT_TRUE(same(a.after, switched_off->masks[m].candidates)) << "mask " << m;
    EXPECT_GT(a.change.kl_bits, 0.01) << "mask " << m;
  }
  EXPECT_EQ(std::vector<float>(encoder->head_scales().begin(), encoder->head_scales().end()), off);

  const std::vector<float> ones(off.size(), 1.0f);
  auto nothing = ablate_fill_masks(*encoder, tokenizer, text, 4, ones);
  ASSERT_TRUE(nothing.ok());
  for (const MaskAblation& a : nothing->masks) {
    EXPECT_EQ(a.change.kl_bits, 0.0);
    EXPECT_TRUE(same(a.before, a.after));
  }
  std::vector<float> not_finite = ones;
  not_finite[1] = std::nanf("");
  test::expect_error(ablate_fill_masks(*encoder, tokenizer, text, 4, not_finite), ErrorCode::BadArgument,
                     "head 0.1", "not a finite number");
  EXPECT_EQ(encoder->head_scales().size(), off.size());  // still the ablation set above
}

TEST(EncoderTasks, FillMasksNeedsTheHead) {
  const std::string model_file = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto loaded = open_model_files(model_file, "");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto encoder = Encoder::create(loaded->model);
  ASSERT_TRUE(encoder.ok());
  EXPECT_FALSE(encoder->has_masked_lm_head());
  // The missing head is named first, whatever the text: no text could help.
  test::expect_error(fill_masks(*encoder, *loaded->tokenizer, "the cat sat", 4), ErrorCode::BadArgument,
                     "no masked-language-model head");
}

// embed_texts is one padded batch pooled as the file says (or as asked), with the similarities of the pooled
// vectors.
TEST(EncoderTasks, EmbedTextsPoolsOneBatch) {
  const std::string model_file = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model_file);
  auto loaded = open_model_files(model_file, "");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto encoder = Encoder::create(loaded->model);
  ASSERT_TRUE(encoder.ok());
  const std::vector<std::string> texts = {"the cat sat", "a dog ran far away"};
  auto result = embed_texts(*encoder, *loaded->tokenizer, texts, Pooling::Cls, true);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->pooling, Pooling::Cls);
  ASSERT_EQ(result->tokens.size(), 2u);
  auto encoded = encoder->encode(result->tokens);
  ASSERT_TRUE(encoded.ok());
  auto pooled = pool_states(*encoded, Pooling::Cls, true);
  ASSERT_TRUE(pooled.ok());
  EXPECT_EQ(result->embeddings, *pooled);
  EXPECT_EQ(result->similarity, cosine_similarities(*pooled));
  auto by_file = embed_texts(*encoder, *loaded->tokenizer, texts, std::nullopt, false);
  ASSERT_TRUE(by_file.ok());
  const Pooling file_pooling = loaded->model->config.pooling;
  EXPECT_EQ(by_file->pooling, file_pooling == Pooling::None ? Pooling::Mean : file_pooling);
  test::expect_error(
      embed_texts(*encoder, *loaded->tokenizer, std::vector<std::string>{}, std::nullopt, false),
      ErrorCode::BadArgument, "no texts");
}

}  // namespace
}  // namespace glassbox
