#include "sluice/core/mutex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace sluice {
namespace {

// A counter that threads hand on in turn: each waits for its number, then passes it on.
class Baton {
 public:
  void wait_for(int turn) SLUICE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (turn_ != turn) cv_.wait(mu_);
  }
  void pass() SLUICE_EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      ++turn_;
      order_.push_back(turn_);
    }
    cv_.notify_all();
  }
  std::vector<int> order() SLUICE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return order_;
  }
  bool wait_until(int turn, std::chrono::steady_clock::time_point deadline) SLUICE_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (turn_ != turn) {
      if (!cv_.wait_until(mu_, deadline)) return turn_ == turn;
    }
    return true;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  int turn_ SLUICE_GUARDED_BY(mu_) = 0;
  std::vector<int> order_ SLUICE_GUARDED_BY(mu_);
};

TEST(MutexConcurrency, CondVarHandsATurnAroundThreadsInOrder) {
  Baton baton;
  std::vector<std::thread> threads;
  for (int t = 7; t >= 0; --t) {
    threads.emplace_back([&baton, t] {
      baton.wait_for(t);
      baton.pass();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(baton.order(), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(MutexConcurrency, WaitUntilReturnsFalseAtTheDeadline) {
  Baton baton;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(baton.wait_until(1, start + std::chrono::milliseconds(20)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
  std::thread passer([&] { baton.pass(); });
  EXPECT_TRUE(baton.wait_until(1, std::chrono::steady_clock::now() + std::chrono::seconds(30)));
  passer.join();
}

}  // namespace
}  // namespace sluice
