#pragma once
// The channel counts the resize kernels specialise for, dispatched in one place for the CPU
// loops, the vectorised fixed-point kernel and the CUDA passes.

#include <cstdint>
#include <type_traits>

namespace sluice::kernels::detail {

// Calls fn(std::integral_constant<int, C>{}) with C = channels when it is 1 to 4 and returns
// true; returns false for any other count.
template <typename Fn>
bool dispatch_channels(int64_t channels, Fn&& fn) {
  auto with = [&](auto c) {
    if (channels != decltype(c)::value) return false;
    fn(c);
    return true;
  };
  return with(std::integral_constant<int, 1>{}) || with(std::integral_constant<int, 2>{}) ||
         with(std::integral_constant<int, 3>{}) || with(std::integral_constant<int, 4>{});
}

}  // namespace sluice::kernels::detail
