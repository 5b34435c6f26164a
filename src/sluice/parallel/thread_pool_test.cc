#include "sluice/parallel/thread_pool.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace sluice {
namespace {

TEST(ThreadPool, ParallelForVisitsEveryIndexOnce) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> hits(1000);
  pool.parallel_for(
      1000,
      [&](int64_t i, int t) {
        ASSERT_GE(t, 0);
        ASSERT_LT(t, pool.num_threads());
        hits[i]++;
      },
      pool.num_threads());
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPool, ErrorsReachTheCaller) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.parallel_for(
                   100,
                   [](int64_t i, int) {
                     if (i == 37) throw std::runtime_error("boom");
                   },
                   3),
               std::runtime_error);
  // The pool stays usable.
  std::atomic<int> n{0};
  pool.parallel_for(
      10, [&](int64_t, int) { n++; }, 3);
  EXPECT_EQ(n.load(), 10);
}

TEST(ThreadPool, InlineUsesCallerSlot) {
  ThreadPool pool(2);
  pool.parallel_for(
      1, [&](int64_t, int t) { EXPECT_EQ(t, 3); }, 3);
}

TEST(ThreadPool, ConcurrentCallersShareThePool) {
  ThreadPool pool(2);
  std::atomic<int> n{0};
  std::thread other([&] {
    pool.parallel_for(
        500, [&](int64_t, int) { n++; }, 2);
  });
  pool.parallel_for(
      500, [&](int64_t, int) { n++; }, 3);
  other.join();
  EXPECT_EQ(n.load(), 1000);
}

TEST(ThreadPool, RanksShareTheCoresInContiguousRunsDifferingByAtMostOne) {
  const std::vector<int> cpus = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(ThreadPool::share_of(cpus, 0, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(ThreadPool::share_of(cpus, 1, 3), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(ThreadPool::share_of(cpus, 2, 3), (std::vector<int>{6, 7, 8, 9}));
  EXPECT_EQ(ThreadPool::share_of({4, 5, 12, 13}, 1, 2), (std::vector<int>{12, 13}));
  EXPECT_EQ(ThreadPool::share_of({0, 1}, 3, 4), (std::vector<int>{1}));  // more ranks than cores
  EXPECT_TRUE(ThreadPool::share_of(cpus, 2, 2).empty());
  // The training loop keeps one core in eight of a rank's share.
  std::vector<int> sixteen(16);
  for (int i = 0; i < 16; ++i) sixteen[i] = 16 + i;
  EXPECT_EQ(ThreadPool::pipeline_part(sixteen),
            std::vector<int>(sixteen.begin(), sixteen.end() - 2));
  EXPECT_EQ(ThreadPool::pipeline_part({4, 5, 6, 7, 8, 9, 10, 11}).size(), 7u);
  EXPECT_EQ(ThreadPool::pipeline_part({4, 5, 6}), (std::vector<int>{4, 5, 6}));
}

// The CPUs a new thread may run on, after `setup` ran on it.
template <typename F>
std::vector<int> cpus_of_a_thread_after(F setup) {
  std::vector<int> cpus;
  std::thread([&] {
    setup();
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }).join();
  return cpus;
}

TEST(ThreadPool, AStageThreadKeepsToTheCpusOfPinnedWorkers) {
  const std::vector<int> all = ThreadPool::process_cpus();
  ASSERT_FALSE(all.empty());
  const std::vector<int> one = {all.back()};
  ThreadPool pinned(2, {one[0], one[0]});
  EXPECT_EQ(cpus_of_a_thread_after([&] { pinned.keep_this_thread_on_the_workers_cpus(); }), one);
  ThreadPool free(2);  // unpinned workers leave the thread where it was
  EXPECT_EQ(cpus_of_a_thread_after([&] { free.keep_this_thread_on_the_workers_cpus(); }), all);
}

}  // namespace
}  // namespace sluice
