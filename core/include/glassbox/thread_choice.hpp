// How many threads a forward pass should use: the one rule, for the CLI, the Session's "auto" threads and
// the page (through the WebAssembly bindings). Threads only change the speed, never the bits: every kernel
// gives the same results for any thread count.
//
// The cost model. A pass makes a number of hand-offs (each parallel loop: a layer's fused Q/K/V product, its
// attention heads, its output product, its feed-forward products, and the classifier), and each hand-off
// to T threads costs about (T - 1) x kHandOffMicroseconds of waking the workers and waiting for the
// slowest. What a hand-off saves is the work the other threads take off the caller. So a pass of W
// multiply-adds over H hand-offs takes about
//     W / (R x T) + H x X x (T - 1)  microseconds   (R: multiply-adds per microsecond on one thread,
//                                                    X: one hand-off's cost)
// and the rule picks the T in 1..max_threads with the least of it. With two threads that means: a second
// thread pays only where its half of the average hand-off's work is more than X x R multiply-adds
// (natively 5 us x 4,000 = 20,000). stories260K's decode has about 12,000 multiply-adds per hand-off, 6,000
// per thread: one thread; its prompts from about 12 tokens, and every decode of a model from 15M parameters
// up (600,000 per hand-off), use two.
//
// X and R are this build's figures (thread_choice.cpp says where they come from; `glassbox bench --hand-off`
// measures X on the machine at hand). The WebAssembly build has its own: a browser wakes a Web Worker far
// more slowly than Linux wakes a thread. What no size rule can see is a machine whose cores are busy with
// other work: there a hand-off waits for the scheduler, and threads lose on every model.
#pragma once

#include <string>

#include "glassbox/config.hpp"

namespace glassbox {

// One forward pass's work, as the rule sees it.
struct PassWork {
  double multiply_adds = 0;  // the matrix products' and the attention's, for all the pass's tokens
  int hand_offs = 0;         // parallel loops that can split across threads
};

// The work of a pass over `tokens` tokens that starts at `position` (the keys attention reads grow with it).
PassWork pass_work(const ModelConfig& config, int tokens, int position);

// The thread count for one forward pass: the least modelled time among 1..max_threads (max_threads < 1
// counts as 1). Deterministic, and allocates nothing (the Session asks before every pass).
int threads_for_pass(const ModelConfig& config, int tokens, int position, int max_threads);

// The same choice with its reason in plain words, for the user: "1 thread: each token is too small for
// threads to pay (...)".
struct ThreadChoice {
  int threads = 1;
  std::string why;
};
ThreadChoice choose_threads(const ModelConfig& config, int tokens, int position, int max_threads);

// The cost model's figures for this build (see the top of this file).
struct ThreadCosts {
  double hand_off_microseconds;          // X
  double multiply_adds_per_microsecond;  // R, one thread
};
ThreadCosts thread_costs();

// Measures X here: the median microseconds one hand-off of an empty loop to `threads` threads takes, back
// to back as a forward pass makes them, over `repeats` batches of hand-offs. 0 for threads < 2 or where the
// build has no threads.
double measure_hand_off_microseconds(int threads, int repeats);

}  // namespace glassbox
