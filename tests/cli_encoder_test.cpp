// `glassbox embed` and `glassbox fill-mask` as a user runs them, on the NumPy reference's tiny BERTs
// (tests/reference/README.md, "Encoder fixtures"): their JSON is what the library computes, and bad input
// gets words that say what is wrong.
#include <gtest/gtest.h>

#include <algorithm>

#include "glassbox/glassbox.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

#if !defined(__EMSCRIPTEN__)
namespace glassbox {
namespace {

using test::run_cli;

TEST(CliEncoder, EmbedPrintsEachTextsEmbeddingAndTheirSimilarities) {
  const std::string model = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model);
  auto run = run_cli({"embed", "--model", model, "--text", "the cat sat on the mat", "--text", "a dog ran",
                      "--threads", "2", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document doc = test::parse_json(run.out, "embed --json");
  EXPECT_EQ(test::text(test::member(doc, "pooling")), "mean");  // what bert-tiny.gguf says
  const auto texts = test::items(test::member(doc, "tokens"));
  ASSERT_EQ(texts.Size(), 2u);

  // The same computation through the library: tokens, one padded batch, mean pooling.
  auto loaded = open_model_files(model, "");
  ASSERT_TRUE(loaded.ok());
  std::vector<std::vector<int>> ids;
  for (const char* text : {"the cat sat on the mat", "a dog ran"}) {
    ids.emplace_back();
    for (const EncodedToken& t : loaded->tokenizer->encode(text, true))
      ids.back().push_back(t.id);
  }
  EXPECT_EQ(ids[0].front(), loaded->tokenizer->cls_id());
  EXPECT_EQ(ids[0].back(), loaded->tokenizer->sep_id());
  EXPECT_EQ(test::ints(texts[0]), ids[0]);
  EXPECT_EQ(test::ints(texts[1]), ids[1]);
  auto encoder = Encoder::create(loaded->model);
  ASSERT_TRUE(encoder.ok());
  auto encoded = encoder->encode(ids);
  ASSERT_TRUE(encoded.ok());
  auto pooled = pool_states(*encoded, Pooling::Mean, false);
  ASSERT_TRUE(pooled.ok());
  const auto embeddings = test::items(test::member(doc, "embeddings"));
  for (std::size_t i = 0; i < 2; ++i) {
    const std::vector<float> printed = test::floats(embeddings[static_cast<rapidjson::SizeType>(i)]);
    ASSERT_EQ(printed.size(), (*pooled)[i].size());
    for (std::size_t k = 0; k < printed.size(); ++k)
      EXPECT_FLOAT_EQ(printed[k], (*pooled)[i][k]) << i << " " << k;
  }
  const auto similarity = test::items(test::member(doc, "similarity"));
  ASSERT_EQ(similarity.Size(), 2u);
  EXPECT_NEAR(test::floats(similarity[0])[1], cosine_similarities(*pooled)[0][1], 1e-6);
}

TEST(CliEncoder, FillMaskListsCandidatesForEachMask) {
  const std::string model = test::fixture_path("bert-tiny-mlm.gguf");
  GLASSBOX_REQUIRE_FILE(model);
  auto run = run_cli(
      {"fill-mask", "--model", model, "--text", "the [MASK] sat on the [MASK]", "--top-k", "3", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document doc = test::parse_json(run.out, "fill-mask --json");
  const std::vector<int> tokens = test::ints(test::member(doc, "tokens"));
  const auto masks = test::items(test::member(doc, "masks"));
  ASSERT_EQ(masks.Size(), 2u);
  auto loaded = open_model_files(model, "");
  ASSERT_TRUE(loaded.ok());
  auto encoder = Encoder::create(loaded->model);
  ASSERT_TRUE(encoder.ok());
  auto encoded = encoder->encode(std::vector<std::vector<int>>{tokens});
  ASSERT_TRUE(encoded.ok());
  for (const json::Value& mask : masks) {
    const int position = test::member(mask, "position").GetInt();
    EXPECT_EQ(tokens[static_cast<std::size_t>(position)], loaded->tokenizer->mask_id());
    auto logits = encoder->masked_lm_logits(encoded->state(0, position));
    ASSERT_TRUE(logits.ok());
    const auto expected = top_tokens(*logits, 3);
    const auto candidates = test::items(test::member(mask, "candidates"));
    ASSERT_EQ(candidates.Size(), 3u);
    for (rapidjson::SizeType k = 0; k < 3; ++k) {
      EXPECT_EQ(test::member(candidates[k], "id").GetInt(), expected[k].id);
      EXPECT_EQ(test::text(test::member(candidates[k], "piece")), loaded->tokenizer->piece(expected[k].id));
      EXPECT_NEAR(test::member(candidates[k], "probability").GetDouble(), expected[k].probability, 1e-6);
    }
  }
}

// fill-mask --ablate: each mask's candidates with the heads off, those without them, and the KL between.
TEST(CliEncoder, FillMaskAblateComparesEachMask) {
  const std::string model = test::fixture_path("bert-tiny-mlm.gguf");
  GLASSBOX_REQUIRE_FILE(model);
  const std::vector<std::string> args = {"fill-mask", "--model", model, "--text", "the [MASK] sat", "--json"};
  auto plain = run_cli(args);
  std::vector<std::string> ablating = args;
  ablating.insert(ablating.end(), {"--ablate", "0.0,0.1,1.2=0.5"});
  auto ablated = run_cli(ablating);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(ablated.exit_code, 0) << ablated.err;
  const json::Document before = test::parse_json(plain.out, "fill-mask --json");
  const json::Document after = test::parse_json(ablated.out, "fill-mask --ablate --json");
  EXPECT_EQ(test::items(test::member(after, "ablate")).Size(), 3u);
  const json::Value& mask = test::items(test::member(after, "masks"))[0];
  const json::Value& unablated = test::items(test::member(before, "masks"))[0];
  EXPECT_GT(test::member(mask, "kl_bits").GetDouble(), 0.0);
  const auto candidates_before = test::items(test::member(mask, "candidates_before"));
  const auto plain_candidates = test::items(test::member(unablated, "candidates"));
  ASSERT_EQ(candidates_before.Size(), plain_candidates.Size());
  for (rapidjson::SizeType k = 0; k < plain_candidates.Size(); ++k)
    EXPECT_EQ(test::member(candidates_before[k], "id").GetInt(),
              test::member(plain_candidates[k], "id").GetInt());
  EXPECT_NE(test::member(test::items(test::member(mask, "candidates"))[0], "probability").GetDouble(),
            test::member(plain_candidates[0], "probability").GetDouble());
  auto bad = run_cli({"fill-mask", "--model", model, "--text", "the [MASK] sat", "--ablate", "7.0"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("head 7.0 is not in the model"), std::string::npos) << bad.err;
}

// inspect --ablate on an encoder draws the ablated run: layer 0's attention is as before (the ablation acts
// on head outputs), layer 1's moves.
TEST(CliEncoder, InspectAblateReadsTheAblatedRun) {
  const std::string model = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model);
  auto plain = run_cli({"inspect", "--model", model, "--prompt", "the cat sat on the mat.", "--json"});
  auto ablated = run_cli(
      {"inspect", "--model", model, "--prompt", "the cat sat on the mat.", "--ablate", "0.0,0.1", "--json"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(ablated.exit_code, 0) << ablated.err;
  const json::Document a = test::parse_json(plain.out, "inspect"),
                       b = test::parse_json(ablated.out, "inspect");
  const auto rows = [](const json::Document& doc, rapidjson::SizeType layer) {
    return test::floats(test::items(test::items(test::items(test::member(doc, "attention"))[layer])[0])[1]);
  };
  EXPECT_EQ(rows(a, 0), rows(b, 0));
  EXPECT_NE(rows(a, 1), rows(b, 1));
  EXPECT_EQ(test::items(test::member(test::member(b, "settings"), "ablate")).Size(), 2u);
}

// glassbox inspect on an encoder: its tokens ([CLS] ... [SEP]), no steps, the full attention rows the
// library's Encoder records, and every head with a role.
TEST(CliEncoder, InspectWritesFullAttentionAndNoSteps) {
  const std::string model = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model);
  auto run = run_cli({"inspect", "--model", model, "--prompt", "the cat sat on the mat.", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document doc = test::parse_json(run.out, "inspect --json");
  EXPECT_EQ(test::items(test::member(doc, "steps")).Size(), 0u);
  std::vector<int> ids;
  for (const json::Value& t : test::items(test::member(doc, "tokens")))
    ids.push_back(test::member(t, "id").GetInt());
  auto loaded = open_model_files(model, "");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(ids.front(), loaded->tokenizer->cls_id());
  EXPECT_EQ(ids.back(), loaded->tokenizer->sep_id());
  auto encoder = Encoder::create(loaded->model);
  ASSERT_TRUE(encoder.ok());
  AttentionTrace attention;
  ASSERT_TRUE(encoder->encode(std::vector<std::vector<int>>{ids}, attention).ok());
  const auto layers = test::items(test::member(doc, "attention"));
  ASSERT_EQ(layers.Size(), static_cast<rapidjson::SizeType>(loaded->model->config.n_layers));
  for (rapidjson::SizeType layer = 0; layer < layers.Size(); ++layer) {
    const auto heads = test::items(layers[layer]);
    for (rapidjson::SizeType head = 0; head < heads.Size(); ++head) {
      const auto rows = test::items(heads[head]);
      ASSERT_EQ(rows.Size(), ids.size());
      for (rapidjson::SizeType q = 0; q < rows.Size(); ++q) {
        const std::vector<float> row = test::floats(rows[q]);
        const auto expected =
            attention.row(static_cast<int>(layer), static_cast<int>(head), static_cast<int>(q));
        ASSERT_EQ(row.size(), ids.size());
        EXPECT_TRUE(std::equal(row.begin(), row.end(), expected.begin())) << layer << "." << head << " " << q;
      }
    }
  }
  const auto heads = test::items(test::member(doc, "heads"));
  EXPECT_EQ(heads.Size(),
            static_cast<rapidjson::SizeType>(loaded->model->config.n_layers * loaded->model->config.n_heads));
  int counted = 0;
  for (const auto& role : test::member(doc, "head_roles").GetObject())
    counted += role.value.GetInt();
  EXPECT_EQ(counted, static_cast<int>(heads.Size()));
  // The anatomy adds up to the file's parameters; no classifier per token.
  const json::Value& anatomy = test::member(doc, "anatomy");
  EXPECT_EQ(test::member(test::member(test::member(anatomy, "components"), "total"), "parameters").GetInt64(),
            loaded->model->parameter_count());
  EXPECT_EQ(test::member(test::member(anatomy, "flops_per_token"), "output").GetInt64(), 0);
}

// The encoder's benchmark harness must not rot: every figure bench-encoder.mjs reads, each rate's median
// inside its range (no timing is asserted; speed claims come from tests/peers/bench-encoder.mjs).
TEST(CliEncoder, BenchJsonHasEveryFigure) {
  const std::string model = test::fixture_path("bert-tiny.gguf");
  GLASSBOX_REQUIRE_FILE(model);
  auto run =
      run_cli({"bench", "--model", model, "--texts", "4", "--repeat", "3", "--threads", "2", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::Document doc = test::parse_json(run.out, "bench --json");
  EXPECT_FALSE(test::text(test::member(doc, "engine")).empty());
  EXPECT_EQ(test::number(test::member(doc, "threads")), 2);
  EXPECT_EQ(test::number(test::member(doc, "repeat")), 3);
  EXPECT_EQ(test::number(test::member(doc, "texts")), 4);
  auto loaded = open_model_files(model, "");
  ASSERT_TRUE(loaded.ok());
  int tokens = 0;  // the batch's lengths: 16 to 64 tokens, as many as the model's positions allow
  for (int i = 0; i < 4; ++i)
    tokens += std::min(loaded->model->config.max_seq_len, 16 + (i * 37) % 49);
  EXPECT_EQ(test::number(test::member(doc, "tokens")), tokens);
  for (const std::string rate : {"texts_per_s", "tokens_per_s"}) {
    const double median = test::number(test::member(doc, rate));
    EXPECT_GT(test::number(test::member(doc, rate + "_min")), 0) << rate;
    EXPECT_LE(test::number(test::member(doc, rate + "_min")), median) << rate;
    EXPECT_GE(test::number(test::member(doc, rate + "_max")), median) << rate;
  }
  const double per_text =
      test::number(test::member(doc, "tokens_per_s")) / test::number(test::member(doc, "texts_per_s"));
  EXPECT_NEAR(per_text, tokens / 4.0, tokens / 4.0 * 0.01);  // the same passes, counted two ways
  EXPECT_GT(test::number(test::member(doc, "peak_resident_bytes")), 0);
}

TEST(CliEncoder, BadInputIsNamed) {
  const std::string encoder = test::fixture_path("bert-tiny.gguf");
  const std::string with_head = test::fixture_path("bert-tiny-mlm.gguf");
  GLASSBOX_REQUIRE_FILE(encoder);
  GLASSBOX_REQUIRE_FILE(with_head);
  auto no_head = run_cli({"fill-mask", "--model", encoder, "--text", "the [MASK] sat"});
  EXPECT_EQ(no_head.exit_code, 1);
  EXPECT_NE(no_head.err.find("no masked-language-model head"), std::string::npos) << no_head.err;
  auto no_mask = run_cli({"fill-mask", "--model", with_head, "--text", "the cat sat"});
  EXPECT_EQ(no_mask.exit_code, 1);
  EXPECT_NE(no_mask.err.find("no [MASK] to fill"), std::string::npos) << no_mask.err;
  auto generate = run_cli({"generate", "--model", encoder, "--prompt", "the cat"});
  EXPECT_EQ(generate.exit_code, 1);
  EXPECT_NE(generate.err.find("encoder"), std::string::npos) << generate.err;
  EXPECT_NE(generate.err.find("use embed or fill-mask"), std::string::npos) << generate.err;
  std::string long_text;
  for (int i = 0; i < 60; ++i)
    long_text += "the cat ";
  auto too_long = run_cli({"embed", "--model", encoder, "--text", long_text});
  EXPECT_EQ(too_long.exit_code, 1);
  EXPECT_NE(too_long.err.find("positions"), std::string::npos) << too_long.err;
  auto wrong_tokenizer = run_cli(
      {"embed", "--model", encoder, "--tokenizer", test::fixture_path("tokenizer-gpt2.json"), "--text", "a"});
  EXPECT_EQ(wrong_tokenizer.exit_code, 1);
  EXPECT_NE(wrong_tokenizer.err.find("reads WordPiece tokens"), std::string::npos) << wrong_tokenizer.err;
  auto embed_decoder = run_cli({"embed", "--model", test::model_path("stories260K.gguf"), "--text", "a"});
  if (test::have_file(test::model_path("stories260K.gguf"))) {
    EXPECT_EQ(embed_decoder.exit_code, 1);
    EXPECT_NE(embed_decoder.err.find("decoder"), std::string::npos) << embed_decoder.err;
  }
}

}  // namespace
}  // namespace glassbox
#endif
