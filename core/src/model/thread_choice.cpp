#include "glassbox/thread_choice.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "glassbox/error.hpp"
#include "util/thread_pool.hpp"

namespace glassbox {
namespace {

// The cost model's figures (glassbox/thread_choice.hpp). R: stories260K's prompts ran at 4,000 (128 tokens,
// 15,000 tokens/s) to 7,400 (32 tokens, 31,000 tokens/s) multiply-adds per microsecond on one thread here
// (`glassbox bench`, AVX-512 kernels); the rule counts 4,000 (decode runs slower per multiply-add, so this
// errs toward threads). X: `glassbox bench --hand-off` measures 0.6 us for a hand-off of an empty loop
// to a spinning worker; a real one also moves the activations between the cores' caches and waits for the
// slower half, so the rule counts 5 us. In a browser the workers are Web Workers woken through the engine's
// futex emulation: the page (Chromium, stories260K, tests/peers/page-threads.mjs) took 0.9 to 71 ms per token
// on two threads against 0.12 to 0.2 on one, about 21 hand-offs per token, so 40 us to 3 ms each; the rule
// counts 50 us, the low end. R there: 0.12 ms for a token's 260,000 multiply-adds, about 2,000 per us with
// the step's other work; the rule counts 1,500 (SIMD128 has no FMA).
#if defined(__EMSCRIPTEN__)
constexpr ThreadCosts kCosts{.hand_off_microseconds = 50.0, .multiply_adds_per_microsecond = 1500.0};
#else
constexpr ThreadCosts kCosts{.hand_off_microseconds = 5.0, .multiply_adds_per_microsecond = 4000.0};
#endif

// Where forward.cpp splits a loop (each with its own threshold there): a layer's products (Q/K/V fused,
// output, feed-forward in, feed-forward down), the attention heads once they read 64 keys, and a prompt's
// token-by-token steps and input packing, which split from 8 tokens.
constexpr int kProductsPerLayer = 4;
constexpr int kAttentionSplitsFromKeys = 64;
constexpr int kPromptStepsPerLayer =
    8;  // norms, RoPE, activation, quantizing or packing each product's input
constexpr int kTokensToSplitSteps = 8;

std::string thread_words(int threads) {
  return threads == 1 ? "1 thread" : cat(threads, " threads");
}

}  // namespace

ThreadCosts thread_costs() {
  return kCosts;
}

PassWork pass_work(const ModelConfig& c, int tokens, int position) {
  tokens = std::max(tokens, 1);
  position = std::max(position, 0);
  const double dim = c.dim, q = c.q_dim(), kv = c.kv_dim(), hidden = c.hidden_dim;
  const double per_token_layer = dim * (q + 2 * kv) + q * dim + (c.gated_ffn ? 3 : 2) * dim * hidden;
  // Keys read by the pass's queries: position + 1 for the first, one more for each after it.
  const double keys = double(tokens) * position + double(tokens) * (tokens + 1) / 2;
  const double attention = 2 * keys * q;  // scores, then the weighted sum of values
  PassWork work;
  work.multiply_adds = c.n_layers * (tokens * per_token_layer + attention) + double(c.vocab_size) * dim;
  const int last_keys = position + tokens;
  const int per_layer = kProductsPerLayer + (last_keys >= kAttentionSplitsFromKeys ? 1 : 0) +
                        (tokens >= kTokensToSplitSteps ? kPromptStepsPerLayer : 0);
  work.hand_offs = c.n_layers * per_layer + 1;  // + the classifier
  return work;
}

int threads_for_pass(const ModelConfig& c, int tokens, int position, int max_threads) {
  const PassWork work = pass_work(c, tokens, position);
  const auto modelled_microseconds = [&](int threads) {
    return work.multiply_adds / (kCosts.multiply_adds_per_microsecond * threads) +
           work.hand_offs * kCosts.hand_off_microseconds * (threads - 1);
  };
  int best = 1;
  for (int t = 2; t <= max_threads; ++t)
    if (modelled_microseconds(t) < modelled_microseconds(best)) best = t;
  return best;
}

ThreadChoice choose_threads(const ModelConfig& c, int tokens, int position, int max_threads) {
  max_threads = std::max(max_threads, 1);
  const PassWork work = pass_work(c, tokens, position);
  const int best = threads_for_pass(c, tokens, position, max_threads);

  const bool prompt = tokens > 1;
  const auto per_hand_off = static_cast<long long>(work.multiply_adds / std::max(work.hand_offs, 1));
  ThreadChoice choice{.threads = best};
  if (max_threads == 1) {
    choice.why = "1 thread: the most this setting allows";
  } else if (best == 1) {
    choice.why =
        cat("1 thread: ", prompt ? "this prompt" : "each token", " is too small for threads to pay (",
            per_hand_off, " multiply-adds per hand-off to a thread, which costs about ",
            kCosts.hand_off_microseconds, " us)");
  } else {
    choice.why = cat(thread_words(best), ": ", prompt ? "this prompt" : "each token",
                     " has enough work for them (", per_hand_off, " multiply-adds per hand-off)",
                     best < max_threads ? cat("; more would cost more than they save") : std::string());
  }
  return choice;
}

double measure_hand_off_microseconds(int threads, int repeats) {
  if (threads < 2 || ThreadPool::max_threads() < 2) return 0;
  ThreadPool pool(threads);
  if (pool.size() < 2) return 0;
  constexpr int kHandOffsPerBatch = 2000;
  const auto nothing = [](std::size_t, std::size_t, int) {};
  for (int i = 0; i < kHandOffsPerBatch; ++i)  // the workers awake and spinning, as in a forward pass
    pool.parallel_for(static_cast<std::size_t>(pool.size()), nothing);
  std::vector<double> per_hand_off;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kHandOffsPerBatch; ++i)
      pool.parallel_for(static_cast<std::size_t>(pool.size()), nothing);
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    per_hand_off.push_back(took.count() / kHandOffsPerBatch);
  }
  std::sort(per_hand_off.begin(), per_hand_off.end());
  return per_hand_off[per_hand_off.size() / 2];
}

}  // namespace glassbox
