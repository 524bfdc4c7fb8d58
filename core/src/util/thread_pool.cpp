#include "util/thread_pool.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#if defined(__EMSCRIPTEN__)
#include <emscripten/threading.h>
#endif

namespace glassbox {
namespace {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kHaveThreads = false;
#else
constexpr bool kHaveThreads = true;
#endif

#if defined(__EMSCRIPTEN_PTHREADS__)
// The threaded WASM build can only start as many threads as its pthread pool holds Web Workers: a thread
// started beyond it would wait for the event loop of the thread that is blocked waiting for it. The build
// sizes the pool for this many threads (CMakeLists.txt: GLASSBOX_WASM_MAX_THREADS).
#ifndef GLASSBOX_WASM_MAX_THREADS
#define GLASSBOX_WASM_MAX_THREADS 8
#endif
#endif

// How long an idle worker spins before it sleeps. The forward pass's loops follow each other within
// microseconds, and so do the tokens of a generation; a pause longer than this (the page waiting for the
// user) costs one wake-up, while spinning longer would keep a core busy for nothing.
constexpr auto kSpinFor = std::chrono::microseconds(500);

// Tells the core we are spinning (lets a hyper-threaded sibling run, saves power).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

std::pair<std::size_t, std::size_t> chunk(std::size_t n, int parts, int index) {
  const std::size_t begin = n * static_cast<std::size_t>(index) / static_cast<std::size_t>(parts);
  const std::size_t end = n * static_cast<std::size_t>(index + 1) / static_cast<std::size_t>(parts);
  return {begin, end};
}

}  // namespace

int ThreadPool::max_threads() {
  if (!kHaveThreads) return 1;
#if defined(__EMSCRIPTEN_PTHREADS__)
  return std::clamp(emscripten_num_logical_cores(), 1, GLASSBOX_WASM_MAX_THREADS);
#else
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
#endif
}

struct ThreadPool::Start {
  ThreadPool* pool;
  int index;
};

ThreadPool::ThreadPool(int threads) {
  const int count = kHaveThreads ? std::max(1, threads) : 1;
  workers_.reserve(static_cast<std::size_t>(count - 1));
  for (int i = 1; i < count; ++i) {
#if defined(__EMSCRIPTEN__)
    // pthread_create rather than std::thread: when the pool of Web Workers is used up it fails with EAGAIN
    // (PTHREAD_POOL_SIZE_STRICT=2), and the pool goes on with fewer threads instead of aborting.
    auto* start = new Start{this, i};
    pthread_t thread;
    const auto entry = [](void* arg) -> void* {
      const Start s = *static_cast<Start*>(arg);
      delete static_cast<Start*>(arg);
      s.pool->work(s.index);
      return nullptr;
    };
    if (pthread_create(&thread, nullptr, entry, start) != 0) {
      delete start;
      break;
    }
    workers_.push_back(thread);
#else
    workers_.emplace_back([this, i] { work(i); });
#endif
  }
  active_ = size();
}

ThreadPool::~ThreadPool() {
  stopping_.store(true, std::memory_order_relaxed);  // published by the generation's release below
  generation_.fetch_add(1, std::memory_order_seq_cst);
  {
    std::lock_guard lock(mutex_);
    wake_.notify_all();
  }
  for (Thread& t : workers_) {
#if defined(__EMSCRIPTEN__)
    pthread_join(t, nullptr);
#else
    t.join();
#endif
  }
}

void ThreadPool::parallel_for(std::size_t n, ChunkFn fn, std::size_t split_from) {
  const int parts = static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(active_)));
  if (parts < 2 || n < split_from) {
    if (n > 0) fn(0, n, 0);
    return;
  }
  job_ = &fn;
  job_size_ = n;
  job_parts_ = parts;
  // Every worker reports, with or without a chunk: the caller may write the next job only once none of them
  // can still be reading this one.
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  // seq_cst, paired with the sleeper's increment of sleepers_ then load of generation_: either the caller
  // sees the sleeper and wakes it, or the sleeper sees the new generation and does not sleep.
  generation_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard lock(mutex_);
    wake_.notify_all();
  }

  const auto [begin, end] = chunk(n, parts, 0);
  fn(begin, end, 0);

  // The workers' chunks are as long as ours, so this wait is short; yield now and then in case a worker
  // shares our core.
  for (unsigned spins = 0; pending_.load(std::memory_order_acquire) != 0; ++spins) {
    cpu_relax();
    if ((spins & 1023u) == 1023u) std::this_thread::yield();
  }
}

void ThreadPool::parallel_pieces(std::size_t n, std::size_t piece, ChunkFn fn, std::size_t split_from) {
  piece = std::max<std::size_t>(piece, 1);
  if (active_ == 1 || n < split_from || n <= piece) {
    if (n > 0) fn(0, n, 0);
    return;
  }
  std::atomic<std::size_t> next{0};
  // One chunk per thread, each taking pieces until none are left.
  parallel_for(static_cast<std::size_t>(active_), [&](std::size_t, std::size_t, int worker) {
    for (;;) {
      const std::size_t begin = next.fetch_add(piece, std::memory_order_relaxed);
      if (begin >= n) return;
      fn(begin, std::min(n, begin + piece), worker);
    }
  });
}

uint32_t ThreadPool::wait_for_generation(uint32_t seen) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinFor;
  for (unsigned spins = 0;; ++spins) {
    const uint32_t now = generation_.load(std::memory_order_acquire);
    if (now != seen) return now;
    cpu_relax();
    if ((spins & 255u) == 255u && std::chrono::steady_clock::now() > deadline) break;
  }
  std::unique_lock lock(mutex_);
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  uint32_t now = seen;
  wake_.wait(lock, [&] {
    now = generation_.load(std::memory_order_seq_cst);
    return now != seen;
  });
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
  return now;
}

void ThreadPool::work(int index) {
  uint32_t seen = 0;
  for (;;) {
    seen = wait_for_generation(seen);
    if (stopping_.load(std::memory_order_relaxed)) return;
    const int parts = job_parts_;
    if (index < parts) {
      const auto [begin, end] = chunk(job_size_, parts, index);
      (*job_)(begin, end, index);
    }
    pending_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace glassbox
