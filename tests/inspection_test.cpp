// The inspection document (glassbox/inspection.hpp) on stories260K: its shape, and each section against
// what the model computes when run directly.
#include <gtest/gtest.h>

#include <cmath>

#include "glassbox/glassbox.hpp"
#include "glassbox/inspection.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

struct Loaded {
  LoadedModel files;
  json::Document document;
};

class Inspection : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::model_path("stories260K.gguf");
    GLASSBOX_REQUIRE_FILE(path_);
    auto loaded = open_model_files(path_, "");
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    files_ = *loaded;
  }

  json::Document inspect(const InspectOptions& options, const char* prompt = "Once upon a time") {
    auto text = inspect_json(files_.model, *files_.tokenizer, prompt, options);
    EXPECT_TRUE(text.ok()) << text.error().message;
    return text.ok() ? test::parse_json(*text, "inspection") : json::Document();
  }

  std::string path_;
  LoadedModel files_;
};

std::vector<int> token_ids(const json::Value& doc) {
  std::vector<int> ids;
  for (const json::Value& t : test::items(test::member(doc, "tokens")))
    ids.push_back(static_cast<int>(test::number(test::member(t, "id"))));
  return ids;
}

TEST_F(Inspection, TokensAreThePromptThenWhatTheGeneratorSampled) {
  const InspectOptions options{.steps = 6, .threads = 2};
  const json::Document doc = inspect(options);
  ASSERT_TRUE(doc.IsObject());
  // The same run through the Generator directly.
  auto session = Session::create(files_.model);
  Sampler sampler(options.sampler);
  Generator generator(*session, sampler, *files_.tokenizer);
  ASSERT_TRUE(generator.start_text("Once upon a time", {.max_new_tokens = 6}).ok());
  std::string text = "Once upon a time";
  while (!generator.finished())
    text += generator.next()->text;
  EXPECT_EQ(token_ids(doc), std::vector<int>(generator.tokens().begin(), generator.tokens().end()));
  EXPECT_EQ(test::number(test::member(doc, "prompt_length")), generator.prompt_length());
  EXPECT_EQ(test::text(test::member(doc, "text")), text);
  // Byte spans tile the text: each token starts where the one before ended (BOS covers nothing).
  int end = 0;
  for (const json::Value& t : test::items(test::member(doc, "tokens"))) {
    const std::vector<int> bytes = test::ints(test::member(t, "bytes"));
    ASSERT_EQ(bytes.size(), 2u);
    EXPECT_EQ(bytes[0], end);
    end = bytes[1];
  }
  EXPECT_EQ(end, static_cast<int>(text.size()));
}

// Each step's pipeline is the sampler's: the chosen token is a final candidate, at the position before it.
TEST_F(Inspection, StepsShowTheSamplingPipelineOfEachChoice) {
  const InspectOptions options{.steps = 5, .sampler = {.temperature = 1.5f, .top_k = 12, .top_p = 0.8f}};
  const json::Document doc = inspect(options);
  const std::vector<int> ids = token_ids(doc);
  const auto prompt_length = static_cast<int>(test::number(test::member(doc, "prompt_length")));
  const auto steps = test::items(test::member(doc, "steps"));
  ASSERT_EQ(steps.Size(), 5u);
  auto session = Session::create(files_.model);
  std::span<const float> logits;
  for (int i = 0; i < prompt_length; ++i)
    logits = *session->step(ids[static_cast<std::size_t>(i)]);
  for (unsigned s = 0; s < steps.Size(); ++s) {
    const json::Value& step = steps[s];
    const int position = static_cast<int>(test::number(test::member(step, "position")));
    const int chosen = static_cast<int>(test::number(test::member(step, "chosen")));
    EXPECT_EQ(position, prompt_length - 1 + static_cast<int>(s));
    EXPECT_EQ(chosen, ids[static_cast<std::size_t>(position) + 1]);
    EXPECT_EQ(test::number(test::member(step, "top_k_kept")), 12);
    // The final column is what Sampler::candidates gives for these logits.
    const std::vector<Sampler::Candidate> candidates = Sampler(options.sampler).candidates(logits);
    EXPECT_EQ(test::number(test::member(step, "top_p_kept")), static_cast<double>(candidates.size()));
    bool found = false;
    for (const Sampler::Candidate& c : candidates)
      if (c.id == chosen) {
        found = true;
        EXPECT_EQ(static_cast<float>(test::number(test::member(step, "p_chosen"))), c.probability);
      }
    EXPECT_TRUE(found) << "the chosen token " << chosen << " is not a candidate";
    const auto listed = test::items(test::member(step, "candidates"));
    ASSERT_EQ(listed.Size(), 10u);
    for (unsigned i = 0; i < listed.Size(); ++i) {
      const double p_top_p = test::number(test::member(listed[i], "p_top_p"));
      if (i < candidates.size()) {
        EXPECT_EQ(test::number(test::member(listed[i], "id")), candidates[i].id);
        EXPECT_EQ(static_cast<float>(p_top_p), candidates[i].probability);
      } else {
        EXPECT_EQ(p_top_p, 0.0) << "cut by top-p";
      }
      if (i >= 12) EXPECT_EQ(test::number(test::member(listed[i], "p_top_k")), 0.0) << "cut by top-k";
    }
    logits = *session->step(chosen);
  }
}

TEST_F(Inspection, HeadsAnatomyAndAblationSections) {
  const json::Document doc = inspect({.steps = 4});
  const ModelConfig& c = files_.model->config;
  const auto heads = test::items(test::member(doc, "heads"));
  ASSERT_EQ(heads.Size(), static_cast<unsigned>(c.n_layers * c.n_heads));
  int counted = 0;
  for (const auto& role : test::member(doc, "head_roles").GetObject())
    counted += role.value.GetInt();
  EXPECT_EQ(counted, c.n_layers * c.n_heads);
  for (const json::Value& h : heads) {
    const double induction = test::number(test::member(h, "induction"));
    EXPECT_GE(induction, 0.0);
    EXPECT_LE(induction, 1.0);
    EXPECT_FALSE(test::text(test::member(h, "role")).empty());
  }
  const json::Value& total = test::member(test::member(test::member(doc, "anatomy"), "components"), "total");
  EXPECT_EQ(test::number(test::member(total, "parameters")),
            static_cast<double>(files_.model->parameter_count()));
  EXPECT_TRUE(test::member(doc, "ablation").IsNull()) << "no ablation asked for";

  InspectOptions ablated{.steps = 2};
  for (int h = 0; h < c.n_heads; ++h)
    ablated.ablate.push_back({0, h, 0.0f});
  const json::Document off = inspect(ablated);
  const json::Value& change = test::member(off, "ablation");
  ASSERT_TRUE(change.IsObject());
  EXPECT_GT(test::number(test::member(change, "kl_bits")), 0.0);
  EXPECT_EQ(test::number(test::member(change, "position")),
            test::number(test::member(off, "prompt_length")) - 1);
}

TEST_F(Inspection, AttentionRowsAreCausalDistributionsOverEveryToken) {
  const json::Document doc = inspect({.steps = 3});
  const ModelConfig& c = files_.model->config;
  const std::size_t n = token_ids(doc).size();
  const auto layers = test::items(test::member(doc, "attention"));
  ASSERT_EQ(layers.Size(), static_cast<unsigned>(c.n_layers));
  for (const json::Value& layer : layers) {
    ASSERT_EQ(layer.Size(), static_cast<unsigned>(c.n_heads));
    for (const json::Value& head : layer.GetArray()) {
      ASSERT_EQ(head.Size(), n);
      for (std::size_t q = 0; q < n; ++q) {
        const std::vector<float> row = test::floats(head[static_cast<unsigned>(q)]);
        ASSERT_EQ(row.size(), n);
        double sum = 0;
        for (std::size_t k = 0; k < n; ++k) {
          if (k > q) EXPECT_EQ(row[k], 0.0f) << "a query never sees later keys";
          sum += row[k];
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    }
  }
}

// The logit lens of the last layer is the model's own next-token distribution, to the bit.
TEST_F(Inspection, LogitLensOfTheLastLayerIsTheModelsPrediction) {
  const json::Document doc = inspect({.steps = 4});
  const std::vector<int> ids = token_ids(doc);
  const auto lens = test::items(test::member(doc, "logit_lens"));
  ASSERT_EQ(lens.Size(), static_cast<unsigned>(files_.model->config.n_layers));
  const json::Value& last = lens[lens.Size() - 1];
  ASSERT_EQ(last.Size(), ids.size());
  auto session = Session::create(files_.model);
  for (std::size_t p = 0; p < ids.size(); ++p) {
    auto logits = session->step(ids[p]);
    ASSERT_TRUE(logits.ok());
    const TokenProbability top = top_tokens(*logits, 1).front();
    EXPECT_EQ(test::number(test::member(last[static_cast<unsigned>(p)], "id")), top.id) << p;
    EXPECT_EQ(static_cast<float>(test::number(test::member(last[static_cast<unsigned>(p)], "probability"))),
              top.probability)
        << p;
  }
}

TEST_F(Inspection, AnAblationChangesLaterLayersButNotTheLayerItself) {
  const json::Document plain = inspect({.steps = 0});
  InspectOptions ablated{.steps = 0};
  for (int h = 0; h < files_.model->config.n_heads; ++h)
    ablated.ablate.push_back({0, h, 0.0f});
  const json::Document off = inspect(ablated);
  const json::Value &a = test::member(plain, "attention"), &b = test::member(off, "attention");
  // Layer 0's attention is computed before its heads' outputs are used: unchanged. Layer 1 reads them.
  EXPECT_EQ(test::floats(a[0][0][3]), test::floats(b[0][0][3]));
  EXPECT_NE(test::floats(a[1][0][3]), test::floats(b[1][0][3]));
}

TEST_F(Inspection, RefusesWhatItCannotWriteOut) {
  auto too_long = inspect_json(files_.model, *files_.tokenizer, "Once upon a time", {.steps = 300});
  test::expect_error(too_long, ErrorCode::BadArgument, "256");
  auto no_head = inspect_json(files_.model, *files_.tokenizer, "Once", {.ablate = {{9, 0, 0.0f}}});
  test::expect_error(no_head, ErrorCode::BadArgument, "head 9.0 is not in the model");
}

}  // namespace
}  // namespace glassbox
