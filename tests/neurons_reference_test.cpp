// glassbox::top_neurons against the float64 NumPy reference (tests/reference/neuron_fixtures.py writes
// STEM.neurons.json): the random models of every variant the reference has, and stories260K.
// - Every layer's hidden units at every position: asked for all of a position's neurons with all of their
//   peaks, the engine reports every neuron's activation, gate (or up) and up there, and each neuron's
//   activation at every position of the text; each within 1e-4 of the reference, scaled by max(1, the layer's
//   largest |value|) (the tolerance of the circuits and logit fixtures).
// - The fixture's question (a layer, a position, the top 5 neurons with their 3 peaks, chosen where float32
//   cannot reorder them): the same neurons in the same order, and the same positions and tokens for each.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "glassbox/glassbox.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

constexpr double kTolerance = 1e-4;

// A [rows][columns] array.
std::vector<std::vector<double>> table(const json::Value& rows) {
  std::vector<std::vector<double>> out;
  for (const json::Value& row : test::items(rows)) {
    out.emplace_back();
    for (const json::Value& v : test::items(row))
      out.back().push_back(test::number(v));
  }
  return out;
}

// An array's items, to index.
std::vector<const json::Value*> list(const json::Value& array) {
  std::vector<const json::Value*> out;
  for (const json::Value& v : test::items(array))
    out.push_back(&v);
  return out;
}

struct Layer {
  std::vector<std::vector<double>> pre, up, hidden;  // [position][neuron]
  double scale = 1.0;                                // max(1, the largest |value|)
};

struct Fixture {
  std::shared_ptr<const Model> model;
  json::Document expected;
  std::vector<int> tokens;
  std::vector<Layer> layers;
};

// The model (stories260K from models/, a variant's .gguf from the fixtures) and its STEM.neurons.json.
Fixture load(const std::string& stem) {
  Fixture f;
  const std::string path =
      stem == "stories260K" ? test::model_path("stories260K.bin") : test::fixture_path(stem + ".gguf");
  auto model = load_model(path);
  EXPECT_TRUE(model.ok()) << path << ": " << (model.ok() ? "" : model.error().message);
  if (model.ok()) f.model = std::make_shared<const Model>(std::move(*model));
  const std::string json = test::fixture_path(stem + ".neurons.json");
  f.expected = test::parse_json(test::read_file(json), json);
  f.tokens = test::ints(test::member(f.expected, "tokens"));
  for (const json::Value& layer : test::items(test::member(f.expected, "layers"))) {
    Layer l{table(test::member(layer, "pre")), table(test::member(layer, "up")),
            table(test::member(layer, "hidden"))};
    for (const auto* values : {&l.pre, &l.up, &l.hidden})
      for (const auto& row : *values)
        for (double v : row)
          l.scale = std::max(l.scale, std::fabs(v));
    f.layers.push_back(std::move(l));
  }
  return f;
}

class NeuronsReference : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "stories260K") GLASSBOX_REQUIRE_FILE(test::model_path("stories260K.bin"));
    GLASSBOX_REQUIRE_FILE(test::fixture_path(GetParam() + ".neurons.json"));
  }
};

TEST_P(NeuronsReference, EveryHiddenUnitMatchesTheReference) {
  const Fixture f = load(GetParam());
  ASSERT_TRUE(f.model && f.expected.IsObject());
  const ModelConfig& c = f.model->config;
  ASSERT_EQ(f.layers.size(), static_cast<std::size_t>(c.n_layers));
  const int n = static_cast<int>(f.tokens.size());
  for (int layer = 0; layer < c.n_layers; ++layer) {
    const Layer& ref = f.layers[static_cast<std::size_t>(layer)];
    const double tolerance = kTolerance * ref.scale;
    for (int position = 0; position < n; ++position) {
      auto r = top_neurons(f.model, f.tokens, layer, position, c.hidden_dim, n);
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_EQ(r->gated, test::member(f.expected, "gated").GetBool());
      ASSERT_EQ(r->top.size(), static_cast<std::size_t>(c.hidden_dim));
      std::vector<bool> seen(static_cast<std::size_t>(c.hidden_dim));
      for (std::size_t i = 0; i < r->top.size(); ++i) {
        const NeuronActivation& a = r->top[i];
        const auto neuron = static_cast<std::size_t>(a.neuron);
        ASSERT_LT(neuron, seen.size());
        seen[neuron] = true;
        const auto p = static_cast<std::size_t>(position);
        const std::string where = "layer " + std::to_string(layer) + " position " + std::to_string(position) +
                                  " neuron " + std::to_string(a.neuron);
        EXPECT_NEAR(a.activation, ref.hidden[p][neuron], tolerance) << where;
        EXPECT_NEAR(a.pre, ref.pre[p][neuron], tolerance) << where;
        EXPECT_NEAR(a.up, ref.up[p][neuron], tolerance) << where;
        // Ranked by |activation|: never below a later neuron by more than float32 can reorder.
        if (i > 0) {
          EXPECT_GE(std::fabs(ref.hidden[p][static_cast<std::size_t>(r->top[i - 1].neuron)]),
                    std::fabs(ref.hidden[p][neuron]) - 2 * tolerance)
              << where;
        }
        // Its peaks, all n of them: its activation at every position of the text.
        ASSERT_EQ(r->peaks[i].size(), static_cast<std::size_t>(n)) << where;
        for (const NeuronReport::Peak& peak : r->peaks[i])
          EXPECT_NEAR(peak.activation, ref.hidden[static_cast<std::size_t>(peak.position)][neuron], tolerance)
              << where << " at position " << peak.position;
      }
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](bool s) { return s; }));
    }
  }
}

TEST_P(NeuronsReference, TheTopNeuronsAndTheirTokensAreTheReferences) {
  const Fixture f = load(GetParam());
  ASSERT_TRUE(f.model && f.expected.IsObject());
  const json::Value& ask = test::member(f.expected, "ask");
  const auto integer = [&](const json::Value& v, const char* key) {
    return static_cast<int>(test::number(test::member(v, key)));
  };
  const int layer = integer(ask, "layer"), position = integer(ask, "position");
  const double tolerance = kTolerance * f.layers.at(static_cast<std::size_t>(layer)).scale;
  auto r = top_neurons(f.model, f.tokens, layer, position, integer(ask, "k"), integer(ask, "per_neuron"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::vector<const json::Value*> top = list(test::member(ask, "top"));
  const std::vector<const json::Value*> peaks = list(test::member(ask, "peaks"));
  ASSERT_EQ(r->top.size(), top.size());
  ASSERT_EQ(r->peaks.size(), peaks.size());
  for (std::size_t i = 0; i < top.size(); ++i) {
    EXPECT_EQ(r->top[i].neuron, integer(*top[i], "neuron")) << "rank " << i;
    EXPECT_NEAR(r->top[i].activation, test::number(test::member(*top[i], "activation")), tolerance);
    EXPECT_NEAR(r->top[i].pre, test::number(test::member(*top[i], "pre")), tolerance);
    EXPECT_NEAR(r->top[i].up, test::number(test::member(*top[i], "up")), tolerance);
    const std::vector<const json::Value*> expected = list(*peaks[i]);
    ASSERT_EQ(r->peaks[i].size(), expected.size());
    for (std::size_t j = 0; j < expected.size(); ++j) {
      const NeuronReport::Peak& peak = r->peaks[i][j];
      EXPECT_EQ(peak.position, integer(*expected[j], "position")) << "rank " << i << " peak " << j;
      EXPECT_EQ(f.tokens.at(static_cast<std::size_t>(peak.position)), integer(*expected[j], "token"))
          << "rank " << i << " peak " << j;
      EXPECT_NEAR(peak.activation, test::number(test::member(*expected[j], "activation")), tolerance);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, NeuronsReference, ::testing::ValuesIn(test::reference_circuit_models()),
                         [](const auto& info) { return test::test_name(info.param); });

}  // namespace
}  // namespace glassbox
