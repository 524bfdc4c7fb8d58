// A fixed set of worker threads that split a loop into contiguous chunks. The caller's thread works on the
// first chunk, so a pool of size 1 is just a plain loop (and the only kind the single-threaded WASM build
// has). Handing out a loop allocates nothing: the job is a non-owning reference to the caller's lambda, and
// each chunk learns its worker index, so callers can give every worker its own preallocated scratch.
//
// The forward pass hands out several loops per layer per token, each only microseconds long, so a call must
// not cost a system call: workers spin on an atomic generation counter for a short while after each loop
// (the next one usually comes within microseconds) and only then go to sleep on a condition variable, so an
// idle session burns no core. The caller wakes sleepers only when there are any.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#if defined(__EMSCRIPTEN__)
#include <pthread.h>
#else
#include <thread>
#endif

namespace glassbox {

// A non-owning reference to a callable `void(begin, end, worker)`: unlike std::function it never copies the
// callable or allocates. Valid while the callable it was made from lives (parallel_for's whole call).
class ChunkFn {
 public:
  template <class F>
  ChunkFn(const F& f)  // NOLINT(google-explicit-constructor): pass lambdas straight in
      : callable_(&f), call_([](const void* c, std::size_t b, std::size_t e, int w) {
          (*static_cast<const F*>(c))(b, e, w);
        }) {}
  void operator()(std::size_t begin, std::size_t end, int worker) const {
    call_(callable_, begin, end, worker);
  }

 private:
  const void* callable_;
  void (*call_)(const void*, std::size_t, std::size_t, int);
};

class ThreadPool {
 public:
  // Starts threads - 1 workers (the caller is the first thread). Where a thread cannot be started (the WASM
  // build's pthread pool is used up) the pool runs with the threads it has: size() says how many.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // The threads parallel_for and parallel_pieces hand work to, 1..size() (size() unless set): a forward
  // pass too small for all of them runs on fewer (glassbox/thread_choice.hpp). Below 2 a loop is a plain
  // loop on the caller's thread, and the idle workers go to sleep after their spin.
  int active() const { return active_; }
  void set_active(int threads) { active_ = threads < 1 ? 1 : (threads > size() ? size() : threads); }

  // Calls fn(begin, end, worker) on disjoint chunks covering [0, n), worker in [0, size()) and distinct per
  // chunk (one chunk per worker), and returns when all chunks are done. Not reentrant: one caller at a time.
  // Below split_from items the whole loop runs on the caller's thread as fn(0, n, 0): the callers' one
  // rule for work too small to pay for waking the others (each states its own threshold and why).
  void parallel_for(std::size_t n, ChunkFn fn, std::size_t split_from = 2);

  // The same loop in pieces of `piece` items (the last one shorter), each handed to whichever thread is
  // free next: for loops whose equal chunks would not take equal time (a core slowed by other work, as on a
  // shared 2-core machine). A worker index may get many pieces, one after another, never two at once. Which
  // thread takes a piece varies from run to run, so each item's result must not depend on it. On one thread,
  // or below split_from items, the whole loop is one piece.
  void parallel_pieces(std::size_t n, std::size_t piece, ChunkFn fn, std::size_t split_from = 2);

  // Threads this build can run: the machine's cores natively; in the threaded WASM build the browser's cores
  // capped by the pthread pool the module was linked with; 1 in the single-threaded WASM build.
  static int max_threads();

 private:
#if defined(__EMSCRIPTEN__)
  using Thread = pthread_t;
#else
  using Thread = std::thread;
#endif
  struct Start;

  void work(int index);
  uint32_t wait_for_generation(uint32_t seen);

  std::vector<Thread> workers_;
  int active_ = 1;  // set to size() once the workers are started
  // The job of the current generation. Plain fields: written by the caller before it publishes a generation
  // (release) and read by workers after they see it (acquire); the caller writes again only after every
  // worker has reported done (pending_ reaches 0).
  const ChunkFn* job_ = nullptr;
  std::size_t job_size_ = 0;
  int job_parts_ = 0;
  // Bumped once per parallel_for (and once to stop); workers wait for it to change.
  std::atomic<uint32_t> generation_{0};
  std::atomic<int> pending_{0};   // workers that have not finished the current generation
  std::atomic<int> sleepers_{0};  // workers asleep (or about to be) on wake_
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;  // only for sleeping and waking
  std::condition_variable wake_;
};

}  // namespace glassbox
