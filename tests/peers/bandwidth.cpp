// Memory bandwidth probe for the benchmark's roofline: how many bytes per second this machine streams from
// memory into the cores, reading a buffer far larger than the caches with 1..N threads (each sums its own
// slice, so nothing but the reads costs). Prints one JSON object: {"threads": [1, 2], "gb_per_s": [..]},
// each the median of 7 passes.
//   g++ -O2 -march=native -pthread tests/peers/bandwidth.cpp -o build-peers/bandwidth && build-peers/bandwidth 2
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kBytes = std::size_t{1} << 30;  // 1 GiB: far past any last-level cache here

uint64_t sum(const uint64_t* begin, const uint64_t* end) {
  uint64_t a = 0, b = 0, c = 0, d = 0;  // four chains, so the adds do not limit the reads
  for (const uint64_t* p = begin; p + 4 <= end; p += 4) {
    a += p[0];
    b += p[1];
    c += p[2];
    d += p[3];
  }
  return a + b + c + d;
}

double gb_per_s(const std::vector<uint64_t>& buffer, int threads) {
  std::vector<double> passes;
  volatile uint64_t sink = 0;
  for (int pass = 0; pass < 7; ++pass) {
    std::vector<uint64_t> partial(static_cast<std::size_t>(threads));
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    const std::size_t slice = buffer.size() / static_cast<std::size_t>(threads);
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        const uint64_t* begin = buffer.data() + static_cast<std::size_t>(t) * slice;
        partial[static_cast<std::size_t>(t)] = sum(begin, begin + slice);
      });
    for (auto& w : workers)
      w.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (uint64_t p : partial)
      sink = sink + p;
    passes.push_back(static_cast<double>(kBytes) / seconds / 1e9);
  }
  std::sort(passes.begin(), passes.end());
  return passes[passes.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int max_threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
  std::vector<uint64_t> buffer(kBytes / sizeof(uint64_t));
  for (std::size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = i;  // touch every page, so the passes read memory rather than fault it in
  std::printf("{\"threads\": [");
  for (int t = 1; t <= max_threads; ++t)
    std::printf("%s%d", t > 1 ? ", " : "", t);
  std::printf("], \"gb_per_s\": [");
  for (int t = 1; t <= max_threads; ++t)
    std::printf("%s%.2f", t > 1 ? ", " : "", gb_per_s(buffer, t));
  std::printf("]}\n");
}
