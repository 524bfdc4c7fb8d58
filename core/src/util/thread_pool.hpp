// A fixed set of worker threads that split a loop into contiguous chunks. The caller's thread works on the
// first chunk, so a pool of size 1 is just a plain loop (and the only kind the single-threaded WASM build
// has).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace glassbox {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on disjoint chunks covering [0, n) and returns when all chunks are done.
  void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn);

  // Threads this build can run (1 where there are no threads, as in the WASM build).
  static int max_threads();

 private:
  void work(int index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(std::size_t, std::size_t)>* job_ = nullptr;
  std::size_t job_size_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stopping_ = false;
};

}  // namespace glassbox
