#include "sluice/memory/buffer_policy.h"

#include <mutex>
#include <string>

#include "sluice/core/env.h"
#include "sluice/core/error.h"

namespace sluice {
namespace {

struct State {
  std::mutex mu;
  BufferPolicy policy;
  State() {
    policy.host_shrink_threshold = env_double("SLUICE_HOST_BUFFER_SHRINK_THRESHOLD", 0.9, 0, 1);
    double both = env_double("SLUICE_BUFFER_GROWTH_FACTOR", 1.0, 1.0, 1e6);
    policy.host_growth_factor = env_double("SLUICE_HOST_BUFFER_GROWTH_FACTOR", both, 1.0, 1e6);
    policy.device_growth_factor = env_double("SLUICE_DEVICE_BUFFER_GROWTH_FACTOR", both, 1.0, 1e6);
    policy.regrowth_factor = env_double("SLUICE_BUFFER_REGROWTH_FACTOR", 1.25, 1.0, 16.0);
  }
};

State& state() {
  static State s;
  return s;
}

void check_growth(double f) {
  SLUICE_CHECK(f >= 1.0, InvalidArgument, "buffer growth factor must be >= 1, got ", f);
}

// Applies fn to the policy under the lock.
template <typename Fn>
void update(Fn&& fn) {
  State& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  fn(s.policy);
}

}  // namespace

BufferPolicy buffer_policy() {
  State& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  return s.policy;
}

void set_host_buffer_shrink_threshold(double t) {
  SLUICE_CHECK(t >= 0 && t <= 1, InvalidArgument,
               "host buffer shrink threshold must be in [0, 1], got ", t);
  update([t](BufferPolicy& p) { p.host_shrink_threshold = t; });
}

void set_buffer_growth_factor(double f) {
  check_growth(f);
  update([f](BufferPolicy& p) { p.host_growth_factor = p.device_growth_factor = f; });
}

void set_host_buffer_growth_factor(double f) {
  check_growth(f);
  update([f](BufferPolicy& p) { p.host_growth_factor = f; });
}

void set_device_buffer_growth_factor(double f) {
  check_growth(f);
  update([f](BufferPolicy& p) { p.device_growth_factor = f; });
}

}  // namespace sluice
