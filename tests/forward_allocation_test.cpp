// "The forward pass allocates nothing": counted, not assumed. Every global operator new of this test binary
// goes through the counter below; while a forward pass runs (threads 1 and 3, tracing on, float32 and
// quantized weights, one token or a chunk of a prompt per pass) it must stay at zero. What the forward pass
// writes is sized before it runs: the session's RunState when it is created, the attention trace's block for
// a position by AttentionTrace::begin_position just before that position's pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "glassbox/glassbox.hpp"
#include "model/forward.hpp"
#include "model/run_state.hpp"
#include "test_support.hpp"
#include "util/thread_pool.hpp"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

void* counted(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) {
  return counted(size);
}
void* operator new[](std::size_t size) {
  return counted(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

namespace glassbox {
namespace {

// A random llama-shaped model (context 96: attention splits heads across threads past 64 keys).
Model random_model() {
  test::Llama2cHeader h;
  h.dim = 64;
  h.hidden_dim = 96;
  h.n_heads = 8;
  h.n_kv_heads = 4;
  h.vocab_size = 64;
  h.seq_len = 96;
  auto model = read_llama2c_checkpoint(bytes_from_buffer(test::make_llama2c_checkpoint(h, 9), "r.bin"));
  EXPECT_TRUE(model.ok());
  return std::move(*model);
}

// The same model with its matrices as Q8_0 (through glassbox's own GGUF writer and reader).
Model quantized(const Model& model) {
  Vocabulary v;
  for (int i = 0; i < model.config.vocab_size; ++i) {
    v.pieces.push_back("t" + std::to_string(i));
    v.scores.push_back(0.0f);
    v.types.push_back(TokenType::Normal);
  }
  auto tokenizer = Tokenizer::create(std::move(v), "test");
  EXPECT_TRUE(tokenizer.ok());
  const std::string path = ::testing::TempDir() + "forward_allocation_q8_0.gguf";
  auto written = export_gguf(model, *tokenizer, ExportType::Q8_0, "q8", path);
  EXPECT_TRUE(written.ok()) << (written ? "" : written.error().message);
  auto loaded = load_model(path);
  EXPECT_TRUE(loaded.ok()) << (loaded ? "" : loaded.error().message);
  std::remove(path.c_str());
  return std::move(*loaded);
}

// Runs the whole context through the forward pass, `batch` tokens a pass (the last pass takes what is left).
long allocations_in_forward(const Model& model, int threads, int batch = 1) {
  ThreadPool pool(threads);
  RunState state(model.config, model.config.max_seq_len, pool.size(), batch);
  AttentionTrace trace(model.config.n_layers, model.config.n_heads);
  // A budget of 5 positions, so the residual ring wraps around during the run.
  ResidualTrace residuals(model.config.n_layers, model.config.dim,
                          5 * (model.config.n_layers + 1) * model.config.dim * 4);
  std::vector<int> tokens(static_cast<std::size_t>(batch));
  long total = 0;
  for (int position = 0; position < model.config.max_seq_len; position += batch) {
    const int n = std::min(batch, model.config.max_seq_len - position);
    for (int t = 0; t < n; ++t) {
      tokens[static_cast<std::size_t>(t)] = ((position + t) * 7 + 3) % model.config.vocab_size;
      trace.begin_position(position + t);
      residuals.begin_position(position + t);
    }
    counting = true;
    forward(model, state, std::span<const int>(tokens.data(), static_cast<std::size_t>(n)), position, &trace,
            &residuals, pool);
    counting = false;
    total += allocations.exchange(0);
  }
  return total;
}

TEST(ForwardAllocation, NoneWithFloat32Weights) {
  const Model model = random_model();
  EXPECT_EQ(allocations_in_forward(model, 1), 0);
  EXPECT_EQ(allocations_in_forward(model, 3), 0);
}

TEST(ForwardAllocation, NoneWithQuantizedWeights) {
  const Model model = quantized(random_model());
  ASSERT_EQ(model.weights.layers[0].wq.type, DType::Q8_0);
  EXPECT_EQ(allocations_in_forward(model, 1), 0);
  EXPECT_EQ(allocations_in_forward(model, 3), 0);
}

// Prompts in chunks: 7 tokens a pass (the context of 96 ends with a shorter pass) and 32.
TEST(ForwardAllocation, NoneInBatchedPasses) {
  const Model model = random_model();
  const Model q8 = quantized(model);
  for (int batch : {7, 32}) {
    EXPECT_EQ(allocations_in_forward(model, 1, batch), 0);
    EXPECT_EQ(allocations_in_forward(model, 3, batch), 0);
    EXPECT_EQ(allocations_in_forward(q8, 1, batch), 0);
    EXPECT_EQ(allocations_in_forward(q8, 3, batch), 0);
  }
}

TEST(ForwardAllocation, TheCounterSeesAllocations) {
  counting = true;
  auto* p = new std::vector<int>(100);
  counting = false;
  delete p;
  EXPECT_GE(allocations.exchange(0), 2);  // the vector and its buffer: the counter can fail
}

}  // namespace
}  // namespace glassbox
