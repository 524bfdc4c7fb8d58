#include "util/thread_pool.hpp"

#include <algorithm>

namespace glassbox {
namespace {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kHaveThreads = false;
#else
constexpr bool kHaveThreads = true;
#endif

std::pair<std::size_t, std::size_t> chunk(std::size_t n, int parts, int index) {
  const std::size_t begin = n * static_cast<std::size_t>(index) / static_cast<std::size_t>(parts);
  const std::size_t end = n * static_cast<std::size_t>(index + 1) / static_cast<std::size_t>(parts);
  return {begin, end};
}

}  // namespace

int ThreadPool::max_threads() {
  if (!kHaveThreads) return 1;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

ThreadPool::ThreadPool(int threads) {
  const int count = kHaveThreads ? std::max(1, threads) : 1;
  for (int i = 1; i < count; ++i)
    workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_)
    t.join();
}

void ThreadPool::parallel_for(std::size_t n, ChunkFn fn) {
  if (workers_.empty() || n < 2) {
    if (n > 0) fn(0, n, 0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    job_size_ = n;
    pending_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  const auto [begin, end] = chunk(n, size(), 0);
  if (begin < end) fn(begin, end, 0);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  job_ = nullptr;
}

void ThreadPool::work(int index) {
  uint64_t seen = 0;
  for (;;) {
    const ChunkFn* job;
    std::size_t n;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
      n = job_size_;
    }
    const auto [begin, end] = chunk(n, size(), index);
    if (begin < end) (*job)(begin, end, index);
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

}  // namespace glassbox
