#pragma once
// Scratch layout shared by the CPU resize (resize_cpu.cc), its vectorised fixed-point kernel
// (resample_fixed_point_tables.cc) and the GPU batch planner (resize_gpu_batch.cc): aligned
// pieces one after another, the coefficient tables of both axes first.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "sluice/core/error.h"
#include "sluice/kernels/resize/resample_filter.h"

namespace sluice::kernels::detail {

// Bytes of a x b elements of `elem` bytes. The factors are validated int32 extents and tap
// counts; this refuses the few products of two such values that could wrap.
inline size_t checked_bytes(int64_t a, int64_t b, int64_t elem, std::string_view what = {}) {
  constexpr int64_t kLimit = int64_t{1} << 50;
  SLUICE_CHECK(a >= 0 && b >= 0 && (a == 0 || b <= kLimit / elem / a), InvalidArgument, what,
               "scratch for ", a, " x ", b, " elements of ", elem, " bytes is too large");
  return static_cast<size_t>(a * b * elem);
}

// Places pieces one after another from offset 0, each starting at a multiple of kAlign bytes.
template <size_t kAlign>
class ScratchLayout {
 public:
  static size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
  // Offset of a new piece of `bytes` bytes.
  size_t take(size_t bytes) {
    const size_t at = off_;
    off_ = align_up(off_ + bytes);
    return at;
  }
  size_t bytes() const { return off_; }

 private:
  size_t off_ = 0;
};

// Offsets of the coefficient tables of both axes as compute_axis_coeffs writes them: for each
// computed output its first input and its tap count (int32), and max_taps 4-byte weights.
struct CoeffTableOffsets {
  size_t h_first = 0, h_count = 0, h_weights = 0;
  size_t v_first = 0, v_count = 0, v_weights = 0;
};

template <size_t kAlign>
CoeffTableOffsets take_coeff_tables(ScratchLayout<kAlign>& s, const AxisResampling& h,
                                    const AxisResampling& v, std::string_view what = {}) {
  CoeffTableOffsets t;
  t.h_first = s.take(checked_bytes(h.out_count, 1, 4, what));
  t.h_count = s.take(checked_bytes(h.out_count, 1, 4, what));
  t.h_weights = s.take(checked_bytes(h.out_count, h.max_taps, 4, what));
  t.v_first = s.take(checked_bytes(v.out_count, 1, 4, what));
  t.v_count = s.take(checked_bytes(v.out_count, 1, 4, what));
  t.v_weights = s.take(checked_bytes(v.out_count, v.max_taps, 4, what));
  return t;
}

// The tables in scratch starting at `base`; W is the weight type (int32_t: fixed point, float;
// std::byte where only the addresses matter).
template <typename W>
struct CoeffTables {
  int32_t* h_first;
  int32_t* h_count;
  W* h_weights;
  int32_t* v_first;
  int32_t* v_count;
  W* v_weights;

  CoeffTables(std::byte* base, const CoeffTableOffsets& o)
      : h_first(reinterpret_cast<int32_t*>(base + o.h_first)),
        h_count(reinterpret_cast<int32_t*>(base + o.h_count)),
        h_weights(reinterpret_cast<W*>(base + o.h_weights)),
        v_first(reinterpret_cast<int32_t*>(base + o.v_first)),
        v_count(reinterpret_cast<int32_t*>(base + o.v_count)),
        v_weights(reinterpret_cast<W*>(base + o.v_weights)) {}

  // Fills the tables of both axes (in Pillow's fixed point for int32_t weights).
  void compute(const AxisResampling& h, const AxisResampling& v) const {
    if constexpr (std::is_same_v<W, int32_t>) {
      compute_axis_coeffs_fixed(h, h_first, h_count, h_weights);
      compute_axis_coeffs_fixed(v, v_first, v_count, v_weights);
    } else {
      compute_axis_coeffs(h, h_first, h_count, h_weights);
      compute_axis_coeffs(v, v_first, v_count, v_weights);
    }
  }
};

}  // namespace sluice::kernels::detail
