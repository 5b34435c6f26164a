#include "sluice/memory/pool_resource.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "sluice/core/error.h"

namespace sluice {
namespace {

struct CountingUpstream {
  int allocs = 0, frees = 0;
  size_t limit = size_t(1) << 30, used = 0;
  std::vector<std::pair<void*, size_t>> live;
  PoolResource::Upstream make() {
    return {[this](size_t n) -> void* {
              if (used + n > limit) return nullptr;
              ++allocs;
              used += n;
              void* p = std::aligned_alloc(256, n);
              live.push_back({p, n});
              return p;
            },
            [this](void* p) {
              ++frees;
              for (auto& [q, n] : live) {
                if (q == p) used -= n, q = nullptr;
              }
              std::free(p);
            }};
  }
};

TEST(PoolResource, ReusesFreedBlocksWithoutUpstreamCalls) {
  CountingUpstream up;
  PoolResource pool(MemoryKind::kHost, -1, up.make(), 1 << 20);
  void* a = pool.allocate(1000);
  pool.deallocate(a, 1000, nullptr);
  void* b = pool.allocate(1000);
  EXPECT_EQ(a, b);
  pool.deallocate(b, 1000, nullptr);
  EXPECT_EQ(up.allocs, 1);
  EXPECT_EQ(pool.stats().upstream_allocations, 1u);
}

TEST(PoolResource, SplitsAndCoalesces) {
  CountingUpstream up;
  PoolResource pool(MemoryKind::kHost, -1, up.make(), 1 << 20);
  std::vector<void*> ps;
  for (int i = 0; i < 16; ++i) ps.push_back(pool.allocate(4096));
  EXPECT_EQ(up.allocs, 1);  // all from one 1 MiB segment
  for (void* p : ps) pool.deallocate(p, 4096, nullptr);
  void* big = pool.allocate(1 << 20);  // needs the whole segment: only possible if coalesced
  EXPECT_EQ(up.allocs, 1);
  pool.deallocate(big, 1 << 20, nullptr);
  pool.release_unused();
  EXPECT_EQ(up.frees, 1);
  EXPECT_EQ(pool.stats().reserved, 0u);
}

TEST(PoolResource, BuffersGrowingOneAfterAnotherDoNotKeepEverySmallerSegment) {
  CountingUpstream up;
  constexpr size_t kMiB = 1 << 20;
  PoolResource pool(MemoryKind::kHost, -1, up.make(), kMiB);
  void* held = pool.allocate(kMiB);
  for (size_t k = 2; k <= 8; ++k) {  // a buffer grows: the larger block, then the old one freed
    void* larger = pool.allocate(k * kMiB);
    pool.deallocate(held, 0, nullptr);
    held = larger;
  }
  EXPECT_LE(pool.stats().reserved, 15 * kMiB);  // the last two sizes, not 1 + 2 + ... + 8
  EXPECT_EQ(up.used, pool.stats().reserved);
  pool.deallocate(held, 0, nullptr);
}

TEST(PoolResource, RandomAllocationsKeepBlocksDisjoint) {
  CountingUpstream up;
  PoolResource pool(MemoryKind::kHost, -1, up.make(), 1 << 16);
  std::mt19937 rng(3);
  std::vector<std::pair<char*, size_t>> live;
  for (int it = 0; it < 5000; ++it) {
    if (live.empty() || rng() % 3) {
      size_t n = 1 + rng() % 50000;
      char* p = static_cast<char*>(pool.allocate(n));
      ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % MemoryResource::kAlignment, 0u);
      for (auto& [q, m] : live) ASSERT_TRUE(p + n <= q || q + m <= p);
      live.push_back({p, n});
    } else {
      size_t k = rng() % live.size();
      pool.deallocate(live[k].first, live[k].second, nullptr);
      live.erase(live.begin() + k);
    }
  }
  for (auto& [p, n] : live) pool.deallocate(p, n, nullptr);
  EXPECT_EQ(pool.stats().allocated, 0u);
}

TEST(PoolResource, ExhaustionIsOutOfMemoryWithSizes) {
  CountingUpstream up;
  up.limit = 4 << 20;
  PoolResource pool(MemoryKind::kDevice, -1, up.make(), 1 << 20);
  void* a = pool.allocate(3 << 20);
  try {
    pool.allocate(2 << 20);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("2097152 bytes"), std::string::npos) << e.what();
  }
  pool.deallocate(a, 3 << 20, nullptr);
  void* b = pool.allocate(2 << 20);  // works again after memory is freed
  pool.deallocate(b, 2 << 20, nullptr);
}

// device_memory_limit: growth past the limit first hands back unused segments, then fails with
// an error that names the limit; memory within it keeps working.
TEST(PoolResource, LimitIsAClearErrorAfterReleasingUnusedSegments) {
  CountingUpstream up;
  const size_t mb = size_t(1) << 20;
  PoolResource pool(MemoryKind::kDevice, -1, up.make(), mb);
  pool.set_limit(4 * mb);
  void* a = pool.allocate(3 * mb);
  try {
    pool.allocate(2 * mb);
    ADD_FAILURE() << "no error past the limit";
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("device_memory_limit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("4194304"), std::string::npos) << e.what();
  }
  pool.deallocate(a, 3 * mb, nullptr);
  void* b = pool.allocate(4 * mb);  // the 3 MB segment goes back first
  EXPECT_EQ(pool.stats().reserved, 4 * mb);
  EXPECT_EQ(pool.stats().limit, 4 * mb);
  pool.deallocate(b, 4 * mb, nullptr);
}

}  // namespace
}  // namespace sluice
