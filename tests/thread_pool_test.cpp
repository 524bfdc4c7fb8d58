// The thread pool the forward pass splits its loops with: every index covered exactly once, distinct worker
// indices, many back-to-back loops (the forward pass hands out several per layer per token), loops shorter
// than the pool or below its split_from, and starting and stopping pools that are idle, asleep or never
// used. scripts/test.sh runs these under ThreadSanitizer too, which checks the pool's atomics publish each
// job and its results.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "util/thread_pool.hpp"

namespace glassbox {
namespace {

// Runs one loop over [0, n) and checks each index was visited once and each chunk had its own worker.
void expect_covers_once(ThreadPool& pool, std::size_t n) {
  std::vector<int> visits(n, 0);
  std::vector<int> chunks_per_worker(static_cast<std::size_t>(pool.size()), 0);
  pool.parallel_for(n, [&](std::size_t begin, std::size_t end, int worker) {
    ASSERT_GE(worker, 0);
    ASSERT_LT(worker, pool.size());
    ASSERT_LE(begin, end);
    ASSERT_LE(end, n);
    ++chunks_per_worker[static_cast<std::size_t>(worker)];  // each worker writes only its own slot
    for (std::size_t i = begin; i < end; ++i)
      ++visits[i];  // chunks are disjoint, so no two threads write one element
  });
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(visits[i], 1) << "index " << i << " of " << n;
  for (int c : chunks_per_worker)
    EXPECT_LE(c, 1) << "a worker index was handed two chunks";
}

TEST(ThreadPool, SizeCountsTheCaller) {
  EXPECT_EQ(ThreadPool(1).size(), 1);
  EXPECT_EQ(ThreadPool(0).size(), 1);
  EXPECT_EQ(ThreadPool(-3).size(), 1);
#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
  EXPECT_EQ(ThreadPool(3).size(), 3);
#else
  EXPECT_EQ(ThreadPool(3).size(), 1);  // the single-threaded WASM build has no threads to start
#endif
  EXPECT_GE(ThreadPool::max_threads(), 1);
}

TEST(ThreadPool, CoversEveryIndexOnce) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    for (std::size_t n : {0u, 1u, 2u, 3u, 5u, 7u, 64u, 1000u, 4097u})
      expect_covers_once(pool, n);
  }
}

TEST(ThreadPool, FewerItemsThanThreads) {
  ThreadPool pool(4);
  for (std::size_t n : {1u, 2u, 3u}) {
    std::vector<int> workers;
    std::mutex m;
    pool.parallel_for(n, [&](std::size_t begin, std::size_t end, int worker) {
      EXPECT_LT(begin, end) << "no empty chunks when there are fewer items than threads";
      std::lock_guard lock(m);
      workers.push_back(worker);
    });
    std::sort(workers.begin(), workers.end());
    EXPECT_EQ(std::adjacent_find(workers.begin(), workers.end()), workers.end());
    EXPECT_LE(workers.size(), n);
    expect_covers_once(pool, n);
  }
}

// Below split_from items the loop is one chunk on the caller's thread; from it on, the threads share it.
TEST(ThreadPool, SmallLoopsStayOnTheCallersThread) {
  ThreadPool pool(2);
  if (pool.size() < 2) GTEST_SKIP() << "this build starts no threads";
  for (std::size_t n : {2u, 7u, 8u, 40u}) {
    std::vector<std::thread::id> threads;
    std::mutex m;
    pool.parallel_for(
        n,
        [&](std::size_t begin, std::size_t end, int worker) {
          if (n < 8) {
            EXPECT_EQ(begin, 0u);
            EXPECT_EQ(end, n);
            EXPECT_EQ(worker, 0);
          }
          std::lock_guard lock(m);
          threads.push_back(std::this_thread::get_id());
        },
        8);
    if (n < 8) {
      ASSERT_EQ(threads.size(), 1u) << n << " items";
      EXPECT_EQ(threads[0], std::this_thread::get_id());
    } else {
      ASSERT_EQ(threads.size(), 2u) << n << " items";
      EXPECT_NE(threads[0], threads[1]);
    }
  }
}

// Pieces handed to whichever thread is free: every index once, no piece longer than asked (where there are
// threads to share them), and a worker
// index never in two pieces at once (each piece marks its worker busy, and no other may find it so).
// set_active(k): loops and pieces go to the first k threads only (the thread rule's fewer threads for a small
// pass), and back to all of them after set_active(size()).
TEST(ThreadPool, ActiveThreadsBoundTheWorkersUsed) {
  ThreadPool pool(4);
  if (pool.size() < 4) GTEST_SKIP() << "this build starts fewer threads";
  for (int active : {1, 2, 4}) {
    pool.set_active(active);
    EXPECT_EQ(pool.active(), active);
    std::atomic<int> highest{0}, chunks{0};
    const auto note = [&](std::size_t, std::size_t, int worker) {
      int seen = highest.load();
      while (worker > seen && !highest.compare_exchange_weak(seen, worker)) {
      }
      ++chunks;
    };
    pool.parallel_for(100, note);
    EXPECT_EQ(chunks.load(), active);
    EXPECT_LT(highest.load(), active);
    highest = 0;
    pool.parallel_pieces(100, 5, note);
    EXPECT_LT(highest.load(), active);
  }
  pool.set_active(0);
  EXPECT_EQ(pool.active(), 1);
  pool.set_active(9);
  EXPECT_EQ(pool.active(), 4);
}

TEST(ThreadPool, PiecesCoverEveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (std::size_t n : {0u, 1u, 5u, 48u, 1001u})
      for (std::size_t piece : {1u, 6u, 64u}) {
        std::vector<int> visits(n, 0);
        std::vector<std::atomic<int>> busy(static_cast<std::size_t>(pool.size()));
        std::atomic<int> overlaps{0};
        pool.parallel_pieces(n, piece, [&](std::size_t begin, std::size_t end, int worker) {
          ASSERT_LT(begin, end);
          ASSERT_LE(end, n);
          if (pool.size() > 1) {  // one thread: the whole loop at once
            EXPECT_LE(end - begin, piece);
          }
          if (busy[static_cast<std::size_t>(worker)].exchange(1) != 0) ++overlaps;
          for (std::size_t i = begin; i < end; ++i)
            ++visits[i];
          busy[static_cast<std::size_t>(worker)].store(0);
        });
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(visits[i], 1) << "index " << i << " of " << n << ", pieces of " << piece;
        EXPECT_EQ(overlaps.load(), 0);
      }
  }
}

TEST(ThreadPool, ManyBackToBackLoops) {
  // Far more loops than a generation of many tokens issues; each one's results must be visible to the next.
  ThreadPool pool(3);
  std::vector<long> data(97, 0);
  for (int round = 0; round < 20000; ++round) {
    pool.parallel_for(data.size(), [&](std::size_t begin, std::size_t end, int) {
      for (std::size_t i = begin; i < end; ++i)
        data[i] += static_cast<long>(i) + round;
    });
  }
  const long rounds_sum = 20000L * 19999L / 2;
  for (std::size_t i = 0; i < data.size(); ++i)
    ASSERT_EQ(data[i], 20000L * static_cast<long>(i) + rounds_sum);
}

TEST(ThreadPool, LoopsAfterTheWorkersFellAsleep) {
  // Idle workers stop spinning and sleep; the next loop must wake them (and each later one too).
  ThreadPool pool(3);
  for (int round = 0; round < 5; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    expect_covers_once(pool, 300);
  }
}

TEST(ThreadPool, UnevenChunksAllFinishBeforeReturning) {
  ThreadPool pool(4);  // 1 thread where the build has none (single-threaded WebAssembly): one chunk then
  std::atomic<int> done{0};
  pool.parallel_for(4, [&](std::size_t, std::size_t end, int) {
    if (end == 4) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the last chunk is slow
    done.fetch_add(1, std::memory_order_relaxed);
  });
  EXPECT_EQ(done.load(), std::min(4, pool.size()));
}

TEST(ThreadPool, DestroyedWhileIdleOrAsleep) {
  for (int threads : {2, 4}) {
    { ThreadPool never_used(threads); }  // workers may not even have started yet
    {
      ThreadPool used(threads);
      expect_covers_once(used, 10);  // destroyed right after a loop, workers still spinning
    }
    {
      ThreadPool asleep(threads);
      expect_covers_once(asleep, 10);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the spinning, workers asleep
    }
  }
}

TEST(ThreadPool, TwoPoolsAtOnce) {
  // A session is created before the one it replaces is gone (wasm/bindings.cpp), so two pools coexist.
  ThreadPool a(2);
  ThreadPool b(2);
  for (int round = 0; round < 100; ++round) {
    expect_covers_once(a, 50);
    expect_covers_once(b, 50);
  }
}

}  // namespace
}  // namespace glassbox
