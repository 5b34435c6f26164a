#include "sluice/kernels/resize/resize_cpu.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "sluice/core/error.h"
#include "sluice/kernels/resize/detail/channel_dispatch.h"
#include "sluice/kernels/resize/detail/resample_fixed_point.h"
#include "sluice/kernels/resize/detail/resize_cpu_reference.h"
#include "sluice/kernels/resize/detail/resize_pixel.h"
#include "sluice/kernels/resize/detail/resize_scratch.h"

namespace sluice::kernels {
namespace {

constexpr size_t kAlign = 64;
using Scratch = detail::ScratchLayout<kAlign>;

// Validated arguments and the scratch layout of one call.
struct Plan {
  bool empty = false;
  bool fixed = false;       // uint8 -> uint8 in Pillow's fixed point
  bool vectorised = false;  // fixed, run by resample_fixed_point (job, isa); else the loops here
  detail::FixedPointJob job;
  detail::FixedPointIsa isa = detail::FixedPointIsa::kSse2;
  AxisResampling h, v;
  SourceRange rows;  // input rows the vertical pass reads
  int64_t channels = 0;
  detail::CoeffTableOffsets tables;
  size_t tmp = 0, acc = 0;
  size_t bytes = 0;  // total, including slack to align the start
};

int64_t row_stride_of(int64_t stride, int64_t width, int64_t channels) {
  return stride != 0 ? stride : width * channels;
}

// `reference`: plan the scalar loops even where the vectorised kernels apply.
Plan make_plan(const ConstHwcImage& in, const HwcImage& out, const ResizeSampleParams& p,
               bool reference) {
  const ResizeGeometry& g = p.geometry;
  SLUICE_CHECK(in.type == DType::kUInt8 || in.type == DType::kFloat32, InvalidArgument,
               "resize: input type must be UINT8 or FLOAT, got ", dtype_name(in.type));
  SLUICE_CHECK(out.type == DType::kUInt8 || out.type == DType::kFloat32, InvalidArgument,
               "resize: output type must be UINT8 or FLOAT, got ", dtype_name(out.type));
  SLUICE_CHECK(in.channels >= 1 && in.channels == out.channels, InvalidArgument,
               "resize: channel counts must be equal and >= 1, got input ", in.channels,
               " and output ", out.channels);
  SLUICE_CHECK(out.height == g.out_h && out.width == g.out_w, InvalidArgument,
               "resize: output image is ", out.height, "x", out.width,
               " but the geometry asks for ", g.out_h, "x", g.out_w);
  SLUICE_CHECK(in.height >= 0 && in.width >= 0 && out.height >= 0 && out.width >= 0,
               InvalidArgument, "resize: negative extent (input ", in.height, "x", in.width,
               ", output ", out.height, "x", out.width, ")");
  Plan plan;
  plan.channels = in.channels;
  if (out.height == 0 || out.width == 0) {
    plan.empty = true;
    return plan;
  }
  SLUICE_CHECK(in.height > 0 && in.width > 0, InvalidArgument, "resize: cannot produce a ",
               out.height, "x", out.width, " output from an empty ", in.height, "x", in.width,
               " input");
  SLUICE_CHECK(row_stride_of(in.row_stride, in.width, in.channels) >= in.width * in.channels,
               InvalidArgument, "resize: input row_stride ", in.row_stride,
               " is shorter than a row (", in.width * in.channels, " elements)");
  SLUICE_CHECK(row_stride_of(out.row_stride, out.width, out.channels) >= out.width * out.channels,
               InvalidArgument, "resize: output row_stride ", out.row_stride,
               " is shorter than a row (", out.width * out.channels, " elements)");

  plan.h = make_axis_resampling(in.width, g.src_x0, g.src_x1, g.out_w, p.filters, 0, -1,
                                "resize (x axis)");
  plan.v = make_axis_resampling(in.height, g.src_y0, g.src_y1, g.out_h, p.filters, 0, -1,
                                "resize (y axis)");
  plan.rows = axis_source_range(plan.v);
  plan.fixed = in.type == DType::kUInt8 && out.type == DType::kUInt8;
  const int64_t ow = g.out_w, oh = g.out_h, c = in.channels;
  const int64_t tmp_elem = plan.fixed ? 1 : 4;
  Scratch scratch;
  plan.tables = detail::take_coeff_tables(scratch, plan.h, plan.v, "resize: ");
  plan.tmp = scratch.take(
      detail::checked_bytes(plan.rows.end - plan.rows.begin, ow * c, tmp_elem, "resize: "));
  plan.acc = scratch.take(detail::checked_bytes(ow, c, 4, "resize: "));
  plan.bytes = scratch.bytes() + kAlign;

  // The vectorised kernels keep byte offsets within a row in int32.
  plan.vectorised = plan.fixed && !reference &&
                    detail::fixed_point_resampler_supports(in.channels) &&
                    in.width * in.channels <= std::numeric_limits<int32_t>::max() / 2;
  if (plan.vectorised) {
    // Their larger tables (at most 16 bytes per tap and 64 per pixel; 24 bytes per row tap) and
    // padded intermediate rows, against wrapping (checked_bytes).
    detail::checked_bytes(ow, plan.h.max_taps + 4, 16, "resize: ");
    detail::checked_bytes(oh, plan.v.max_taps + 1, 24, "resize: ");
    detail::checked_bytes(plan.rows.end - plan.rows.begin, ow * c + 64, 1, "resize: ");
    detail::FixedPointJob& job = plan.job;
    job.in_stride = row_stride_of(in.row_stride, in.width, in.channels);
    job.in_width = in.width;
    job.out_stride = row_stride_of(out.row_stride, out.width, out.channels);
    job.channels = in.channels;
    job.h = plan.h;
    job.v = plan.v;
    job.rows = plan.rows;
    plan.isa = detail::fixed_point_best_isa();
    plan.bytes = detail::fixed_point_scratch_bytes(job, plan.isa) + kAlign;
  }
  return plan;
}

template <typename Acc, typename T>
inline Acc to_acc(T v) {
  return static_cast<Acc>(v);
}

// Horizontal pass over input rows [row_begin, row_begin + rows): tmp row r, pixel x is the
// filtered input row row_begin + r around output column x. kC > 0 fixes the channel count.
template <int kC, typename In, typename Tmp, typename W, typename Acc>
void horizontal_pass(const In* in, int64_t in_stride, int64_t channels, int32_t row_begin,
                     int32_t rows, Tmp* tmp, int32_t ow, const int32_t* first, const int32_t* count,
                     const W* weights, int32_t max_taps) {
  const int64_t C = kC > 0 ? kC : channels;
  const int64_t tmp_stride = ow * C;
  for (int32_t r = 0; r < rows; r++) {
    const In* src = in + static_cast<int64_t>(row_begin + r) * in_stride;
    Tmp* dst = tmp + r * tmp_stride;
    for (int32_t x = 0; x < ow; x++) {
      const In* px = src + first[x] * C;
      const W* k = weights + static_cast<int64_t>(x) * max_taps;
      const int32_t n = count[x];
      if constexpr (kC > 0) {
        Acc acc[kC];
        // Unrolled channel loops keep the accumulators in registers (GCC does not unroll them at
        // -O2 and would accumulate through memory).
#pragma GCC unroll 4
        for (int c = 0; c < kC; c++) acc[c] = detail::accumulator_init<Acc>();
        for (int32_t j = 0; j < n; j++) {
#pragma GCC unroll 4
          for (int c = 0; c < kC; c++) {
            acc[c] = detail::accumulate(acc[c], to_acc<Acc>(px[j * kC + c]), k[j]);
          }
        }
#pragma GCC unroll 4
        for (int c = 0; c < kC; c++) dst[x * kC + c] = detail::to_intermediate(acc[c], dst);
      } else {
        for (int64_t c = 0; c < C; c++) {
          Acc acc = detail::accumulator_init<Acc>();
          for (int32_t j = 0; j < n; j++) {
            acc = detail::accumulate(acc, to_acc<Acc>(px[j * C + c]), k[j]);
          }
          dst[x * C + c] = detail::to_intermediate(acc, dst);
        }
      }
    }
  }
}

inline uint8_t to_output(int32_t acc, uint8_t*) {
  return detail::fixed_to_u8(acc);
}
inline uint8_t to_output(float acc, uint8_t*) {
  return detail::float_to_u8(acc);
}
inline float to_output(float acc, float*) {
  return acc;
}

// acc[e] += src[e] * k over a row. Blocks of a fixed 16 elements with restrict pointers let
// GCC's -O2 vectoriser (very-cheap cost model: no runtime checks, no epilogue) take the blocks;
// the per-element order of the taps is unchanged, so results are those of the plain loop.
template <typename Tmp, typename Acc>
void accumulate_row(Acc* __restrict acc, const Tmp* __restrict src, Acc k, int64_t n) {
  constexpr int64_t kBlock = 16;
  int64_t e = 0;
  for (; e + kBlock <= n; e += kBlock) {
    Acc* __restrict a = acc + e;
    const Tmp* __restrict s = src + e;
    for (int64_t i = 0; i < kBlock; i++) a[i] = detail::accumulate(a[i], to_acc<Acc>(s[i]), k);
  }
  for (; e < n; e++) acc[e] = detail::accumulate(acc[e], to_acc<Acc>(src[e]), k);
}

// Vertical pass: output row y is the filtered tmp rows around it, a whole row at a time (the
// inner loop runs along the row, so it vectorises; the per-element order of taps is unchanged).
template <typename Tmp, typename W, typename Acc, typename Out>
void vertical_pass(const Tmp* tmp, int32_t row_begin, int64_t row_len, int32_t oh,
                   const int32_t* first, const int32_t* count, const W* weights, int32_t max_taps,
                   Acc* acc, Out* out, int64_t out_stride) {
  for (int32_t y = 0; y < oh; y++) {
    const W* k = weights + static_cast<int64_t>(y) * max_taps;
    const Tmp* rows = tmp + static_cast<int64_t>(first[y] - row_begin) * row_len;
    for (int64_t e = 0; e < row_len; e++) acc[e] = detail::accumulator_init<Acc>();
    for (int32_t j = 0; j < count[y]; j++) {
      accumulate_row(acc, rows + j * row_len, static_cast<Acc>(k[j]), row_len);
    }
    Out* dst = out + y * out_stride;
    for (int64_t e = 0; e < row_len; e++) dst[e] = to_output(acc[e], dst);
  }
}

template <typename Out, typename In>
inline Out gather_convert(In v) {
  if constexpr (std::is_same_v<Out, uint8_t> && std::is_same_v<In, float>) {
    return detail::float_to_u8(v);
  } else {
    return static_cast<Out>(v);
  }
}

template <typename In, typename Out, typename Tmp, typename W, typename Acc>
void run(const Plan& plan, const ConstHwcImage& in, const HwcImage& out, std::byte* base) {
  auto at = [base](size_t off) { return reinterpret_cast<void*>(base + off); };
  const detail::CoeffTables<W> t(base, plan.tables);
  auto* tmp = static_cast<Tmp*>(at(plan.tmp));
  auto* acc = static_cast<Acc*>(at(plan.acc));
  t.compute(plan.h, plan.v);
  const int64_t C = plan.channels;
  const int32_t ow = plan.h.out_count, oh = plan.v.out_count;
  const int64_t out_stride = row_stride_of(out.row_stride, out.width, C);
  if (plan.h.filter == ResampleFilter::kNearest && plan.v.filter == ResampleFilter::kNearest) {
    // Nearest neighbour on both axes: a gather. The two passes would compute the same values
    // (one tap of weight 1: v * 2^22 + 2^21 >> 22 = v; 0 + v * 1.0f = v).
    const auto* src = static_cast<const In*>(in.data);
    const int64_t in_stride = row_stride_of(in.row_stride, in.width, C);
    for (int32_t y = 0; y < oh; y++) {
      const In* row = src + t.v_first[y] * in_stride;
      Out* dst = static_cast<Out*>(out.data) + y * out_stride;
      for (int32_t x = 0; x < ow; x++) {
        const In* px = row + t.h_first[x] * C;
        for (int64_t c = 0; c < C; c++) dst[x * C + c] = gather_convert<Out>(px[c]);
      }
    }
    return;
  }
  const int32_t rows = plan.rows.end - plan.rows.begin;
  const auto* src = static_cast<const In*>(in.data);
  const int64_t in_stride = row_stride_of(in.row_stride, in.width, C);
  auto h_pass = [&](auto channels_tag) {
    constexpr int kC = decltype(channels_tag)::value;
    horizontal_pass<kC, In, Tmp, W, Acc>(src, in_stride, C, plan.rows.begin, rows, tmp, ow,
                                         t.h_first, t.h_count, t.h_weights, plan.h.max_taps);
  };
  if (!detail::dispatch_channels(C, h_pass)) h_pass(std::integral_constant<int, 0>{});
  vertical_pass<Tmp, W, Acc, Out>(tmp, plan.rows.begin, ow * C, oh, t.v_first, t.v_count,
                                  t.v_weights, plan.v.max_taps, acc, static_cast<Out*>(out.data),
                                  out_stride);
}

// Checks data pointers and scratch; returns the aligned start of the scratch, or null when the
// output is empty (nothing to do).
std::byte* prepare(const Plan& plan, const ConstHwcImage& in, const HwcImage& out,
                   std::span<std::byte> scratch) {
  if (plan.empty) return nullptr;
  SLUICE_CHECK(in.data != nullptr && out.data != nullptr, InvalidArgument, "resize: null ",
               in.data == nullptr ? "input" : "output", " data");
  SLUICE_CHECK(scratch.size() >= plan.bytes, InvalidArgument, "resize: scratch holds ",
               scratch.size(), " bytes, ", plan.bytes, " needed (resize_cpu_scratch_size)");
  const auto addr = reinterpret_cast<uintptr_t>(scratch.data());
  return scratch.data() + (kAlign - addr % kAlign) % kAlign;
}

void run_loops(const Plan& plan, const ConstHwcImage& in, const HwcImage& out, std::byte* base) {
  const bool in_u8 = in.type == DType::kUInt8;
  const bool out_u8 = out.type == DType::kUInt8;
  if (plan.fixed) {
    run<uint8_t, uint8_t, uint8_t, int32_t, int32_t>(plan, in, out, base);
  } else if (in_u8) {
    run<uint8_t, float, float, float, float>(plan, in, out, base);
  } else if (out_u8) {
    run<float, uint8_t, float, float, float>(plan, in, out, base);
  } else {
    run<float, float, float, float, float>(plan, in, out, base);
  }
}

}  // namespace

size_t resize_cpu_scratch_size(const ConstHwcImage& in, const HwcImage& out,
                               const ResizeSampleParams& params) {
  return make_plan(in, out, params, false).bytes;
}

void resize_cpu(const ConstHwcImage& in, const HwcImage& out, const ResizeSampleParams& params,
                std::span<std::byte> scratch) {
  Plan plan = make_plan(in, out, params, false);
  std::byte* base = prepare(plan, in, out, scratch);
  if (base == nullptr) return;
  if (plan.vectorised) {
    plan.job.in = static_cast<const uint8_t*>(in.data);
    plan.job.out = static_cast<uint8_t*>(out.data);
    detail::resample_fixed_point(plan.job, plan.isa, base);
    return;
  }
  run_loops(plan, in, out, base);
}

namespace detail {

size_t resize_cpu_reference_scratch_size(const ConstHwcImage& in, const HwcImage& out,
                                         const ResizeSampleParams& params) {
  return make_plan(in, out, params, true).bytes;
}

void resize_cpu_reference(const ConstHwcImage& in, const HwcImage& out,
                          const ResizeSampleParams& params, std::span<std::byte> scratch) {
  const Plan plan = make_plan(in, out, params, true);
  std::byte* base = prepare(plan, in, out, scratch);
  if (base != nullptr) run_loops(plan, in, out, base);
}

}  // namespace detail

}  // namespace sluice::kernels
