// Attention rows and the logit lens recomputed from the residual trace must be the forward pass's own
// numbers, bit for bit: compared with the full attention record (every probability the forward pass
// computed) on every architecture, quantized weights, several threads and the golden prompts; and the last
// layer's lens with the model's own logits. Suites are named Session* so the ThreadSanitizer step runs them.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "glassbox/glassbox.hpp"
#include "random_models.hpp"
#include "test_json.hpp"
#include "test_support.hpp"

namespace glassbox {
namespace {

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::shared_ptr<const Model> shared(Model model) {
  return std::make_shared<const Model>(std::move(model));
}

// A session recording both traces, fed `tokens`; the logits of every step are kept.
struct TracedSession {
  Session session;
  std::vector<std::vector<float>> logits;
};
TracedSession run(const std::shared_ptr<const Model>& model, const std::vector<int>& tokens, int threads,
                  int64_t budget = 0) {
  auto session = Session::create(model, {.threads = threads,
                                         .trace_attention = true,
                                         .trace_residuals = true,
                                         .residual_budget_bytes = budget});
  EXPECT_TRUE(session.ok()) << session.error().message;
  TracedSession out{std::move(*session), {}};
  for (int t : tokens) {
    auto logits = out.session.step(t);
    EXPECT_TRUE(logits.ok()) << logits.error().message;
    out.logits.emplace_back(logits->begin(), logits->end());
  }
  return out;
}

// Recomputes every row the session kept and compares it with the full record; returns rows compared.
int expect_rows_match_the_record(const Session& session, int first_query = 0) {
  const AttentionTrace& record = session.attention_trace();
  const int heads = session.model().config.n_heads;
  int compared = 0;
  for (int layer = 0; layer < session.model().config.n_layers; ++layer) {
    const auto done = session.attention_rows(layer, 0, heads, first_query, session.position(),
                                             [&](int head, int query, std::span<const float> row) {
                                               ++compared;
                                               EXPECT_TRUE(same_bits(row, record.row(layer, head, query)))
                                                   << "layer " << layer << " head " << head << " query "
                                                   << query;
                                             });
    EXPECT_TRUE(done.ok()) << done.error().message;
  }
  return compared;
}

std::vector<int> token_sequence(int n, int vocab, int seed) {
  std::vector<int> tokens;
  for (int i = 0; i < n; ++i)
    tokens.push_back((i * 37 + seed * 11 + 1) % vocab);
  return tokens;
}

class SessionRecomputeArchitectures : public ::testing::TestWithParam<test::Case> {};

TEST_P(SessionRecomputeArchitectures, RowsEqualTheForwardPassBitForBit) {
  const test::Case& c = GetParam();
  const auto model = shared(test::RandomModel(c.config, c.biases, 7).model());
  const auto tokens = token_sequence(c.config.max_seq_len, c.config.vocab_size, 1);
  for (int threads : {1, 3}) {
    TracedSession s = run(model, tokens, threads);
    const int n = static_cast<int>(tokens.size());
    EXPECT_EQ(expect_rows_match_the_record(s.session), c.config.n_layers * c.config.n_heads * n)
        << "threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, SessionRecomputeArchitectures,
                         ::testing::ValuesIn(test::architecture_cases()),
                         [](const auto& info) { return test::test_name(info.param.label); });

// A llama2.c-shaped model (RoPE, grouped-query attention) long enough that heads split across threads.
Model llama_model() {
  test::Llama2cHeader h;
  h.dim = 64;
  h.hidden_dim = 96;
  h.n_heads = 8;
  h.n_kv_heads = 4;
  h.vocab_size = 64;
  h.seq_len = 100;
  auto model = read_llama2c_checkpoint(bytes_from_buffer(test::make_llama2c_checkpoint(h, 4), "r.bin"));
  EXPECT_TRUE(model.ok());
  return std::move(*model);
}

// The same model with Q8_0 matrices, through glassbox's GGUF writer and reader.
Model q8_0(const Model& model) {
  Vocabulary v;
  for (int i = 0; i < model.config.vocab_size; ++i) {
    v.pieces.push_back("t" + std::to_string(i));
    v.scores.push_back(0.0f);
    v.types.push_back(TokenType::Normal);
  }
  auto tokenizer = Tokenizer::create(std::move(v), "test");
  EXPECT_TRUE(tokenizer.ok());
  const std::string path = ::testing::TempDir() + "attention_recompute_q8_0.gguf";
  auto written = export_gguf(model, *tokenizer, ExportType::Q8_0, "q8", path);
  EXPECT_TRUE(written.ok()) << (written ? "" : written.error().message);
  auto loaded = load_model(path);
  EXPECT_TRUE(loaded.ok()) << (loaded ? "" : loaded.error().message);
  std::remove(path.c_str());
  return std::move(*loaded);
}

TEST(SessionRecompute, QuantizedWeightsAndThreadsGiveTheSameBits) {
  const auto model = shared(q8_0(llama_model()));
  ASSERT_EQ(model->config.n_heads, 8);
  const auto tokens = token_sequence(90, model->config.vocab_size, 2);
  for (int threads : {1, 3}) {
    TracedSession s = run(model, tokens, threads);
    EXPECT_EQ(expect_rows_match_the_record(s.session), model->config.n_layers * 8 * 90)
        << "threads " << threads;
  }
}

// stories260K on the golden prompts and their greedy continuations (../shared/golden).
TEST(SessionRecompute, Stories260KGoldenSequencesGiveTheSameBits) {
  const std::string path = test::model_path("stories260K.bin");
  const std::string golden = test::golden_path("stories260K.greedy.jsonl");
  GLASSBOX_REQUIRE_FILE(path);
  GLASSBOX_REQUIRE_FILE(golden);
  auto loaded = load_model(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const auto model = shared(std::move(*loaded));
  std::istringstream lines(test::read_file(golden));
  std::string line;
  int sequences = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const json::Document doc = test::parse_json(line, golden);
    std::vector<int> tokens = test::ints(test::member(doc, "prompt_ids"));
    const std::vector<int> generated = test::ints(test::member(doc, "generated_ids"));
    tokens.insert(tokens.end(), generated.begin(), generated.end());
    if (static_cast<int>(tokens.size()) > model->config.max_seq_len) tokens.resize(model->config.max_seq_len);
    TracedSession s = run(model, tokens, 2);
    const int n = static_cast<int>(tokens.size());
    EXPECT_EQ(expect_rows_match_the_record(s.session), model->config.n_layers * model->config.n_heads * n);
    ++sequences;
  }
  EXPECT_GT(sequences, 0);
}

TEST(SessionRecompute, ABudgetKeepsTheNewestRowsAndNamesWhatItDropped) {
  const auto model = shared(llama_model());
  const int64_t per_position = (model->config.n_layers + 1) * int64_t{model->config.dim} * 4;
  TracedSession s = run(model, token_sequence(30, model->config.vocab_size, 3), 1, 10 * per_position);
  const ResidualTrace& residuals = s.session.residual_trace();
  EXPECT_EQ(residuals.capacity_positions(), 10);
  EXPECT_EQ(residuals.first_kept(), 20);
  EXPECT_LE(residuals.bytes_held(), 10 * per_position);
  EXPECT_EQ(expect_rows_match_the_record(s.session, 20), model->config.n_layers * 8 * 10);

  const auto dropped = s.session.attention_rows(0, 0, 1, 5, 6, [](int, int, std::span<const float>) {});
  test::expect_error(dropped, ErrorCode::NotRecorded, "holds positions 20..29");
  std::vector<float> logits(static_cast<std::size_t>(model->config.vocab_size));
  EXPECT_EQ(s.session.layer_logits(1, 3, logits).error().code, ErrorCode::NotRecorded);
}

TEST(SessionRecompute, BadLayersHeadsAndQueriesAreErrors) {
  const auto model = shared(llama_model());
  TracedSession s = run(model, token_sequence(4, model->config.vocab_size, 4), 1);
  const auto ignore = [](int, int, std::span<const float>) {};
  EXPECT_EQ(s.session.attention_rows(5, 0, 1, 0, 1, ignore).error().code, ErrorCode::BadArgument);
  EXPECT_EQ(s.session.attention_rows(0, 0, 9, 0, 1, ignore).error().code, ErrorCode::BadArgument);
  EXPECT_EQ(s.session.attention_rows(0, 0, 1, 0, 5, ignore).error().code, ErrorCode::BadArgument);
  std::vector<float> logits(static_cast<std::size_t>(model->config.vocab_size));
  EXPECT_EQ(s.session.layer_logits(0, 4, logits).error().code, ErrorCode::BadArgument);
  EXPECT_EQ(s.session.layer_logits(6, 0, logits).error().code, ErrorCode::BadArgument);
}

TEST(SessionRecompute, TheLastLayersLensIsTheModelsOwnLogits) {
  const auto model = shared(q8_0(llama_model()));
  TracedSession s = run(model, token_sequence(20, model->config.vocab_size, 5), 3);
  std::vector<float> lens(static_cast<std::size_t>(model->config.vocab_size));
  for (int p = 0; p < 20; ++p) {
    ASSERT_TRUE(s.session.layer_logits(model->config.n_layers, p, lens).ok());
    EXPECT_TRUE(same_bits(lens, s.logits[static_cast<std::size_t>(p)])) << "position " << p;
  }
  // An earlier layer predicts something else (the lens is not just echoing the output).
  ASSERT_TRUE(s.session.layer_logits(1, 19, lens).ok());
  EXPECT_FALSE(same_bits(lens, s.logits.back()));
}

TEST(SessionRecompute, ResidualTracingDoesNotChangeTheLogits) {
  const auto model = shared(llama_model());
  auto plain = Session::create(model);
  auto traced = Session::create(model, {.trace_residuals = true});
  ASSERT_TRUE(plain.ok() && traced.ok());
  for (int t : token_sequence(70, model->config.vocab_size, 6)) {
    auto a = plain->step(t);
    auto b = traced->step(t);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(same_bits(*a, *b));
  }
  EXPECT_EQ(traced->residual_trace().n_positions(), 70);
  EXPECT_EQ(plain->residual_trace().n_positions(), 0);
  traced->reset();
  EXPECT_EQ(traced->residual_trace().n_positions(), 0);
}

}  // namespace
}  // namespace glassbox
