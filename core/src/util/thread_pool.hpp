// A fixed set of worker threads that split a loop into contiguous chunks. The caller's thread works on the
// first chunk, so a pool of size 1 is just a plain loop (and the only kind the single-threaded WASM build
// has). Handing out a loop allocates nothing: the job is a non-owning reference to the caller's lambda, and
// each chunk learns its worker index, so callers can give every worker its own preallocated scratch.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

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
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end, worker) on disjoint chunks covering [0, n), worker in [0, size()) and distinct per
  // chunk, and returns when all chunks are done.
  void parallel_for(std::size_t n, ChunkFn fn);

  // Threads this build can run (1 where there are no threads, as in the WASM build).
  static int max_threads();

 private:
  void work(int index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const ChunkFn* job_ = nullptr;
  std::size_t job_size_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stopping_ = false;
};

}  // namespace glassbox
