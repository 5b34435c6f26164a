#include "sluice/kernels/resize/detail/resize_gpu_batch.h"

#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "sluice/core/error.h"
#include "sluice/kernels/resize/detail/resize_checks.h"
#include "sluice/kernels/resize/detail/resize_pixel.h"
#include "sluice/kernels/resize/detail/resize_scratch.h"

namespace sluice::kernels::detail {
namespace {

constexpr size_t kAlign = 16;
constexpr int64_t kMaxBlocks = std::numeric_limits<int32_t>::max();
using Scratch = ScratchLayout<kAlign>;

// One sample as the planner sees it (both public sample types map onto this).
struct GpuPlanSample {
  const uint8_t* in = nullptr;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t in_row_stride = 0;
  void* out = nullptr;
  const ResizeSampleParams* params = nullptr;
  ResizeCrop crop;  // the whole output unless the fused path says otherwise
  bool mirror = false;
  const ResizeNormalizeParams* norm = nullptr;  // fused path only
};

template <typename Sample>
GpuPlanSample plan_sample(const Sample& s) {
  GpuPlanSample p;
  p.in = s.in;
  p.in_h = s.in_h;
  p.in_w = s.in_w;
  p.in_row_stride = s.in_row_stride;
  p.out = s.out;
  p.params = &s.params;
  if constexpr (std::is_same_v<Sample, ResizeNormalizeGpuSample>) {
    p.crop = s.crop;
    p.mirror = s.mirror;
    p.norm = &s.norm;
  }
  return p;
}

int64_t div_up(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Geometry and scratch needs of one sample; offsets are relative to the sample's first byte.
struct SampleLayout {
  bool empty = true;
  AxisResampling h, v;
  SourceRange rows;
  int64_t in_stride = 0;
  CoeffTableOffsets tables;
  size_t tmp = 0;
  size_t bytes = 0;
  int64_t coef_blocks = 0, h_blocks = 0, v_blocks = 0;
  int32_t tiles_x = 1;
};

// Messages do not name the sample; plan_gpu_batch prefixes them (building that prefix for
// every sample up front would allocate on every call).
SampleLayout layout_sample(const GpuPlanSample& s, int64_t C, bool fixed, bool fused) {
  SampleLayout l;
  SLUICE_CHECK(s.params != nullptr, InvalidArgument, "no resize parameters");
  const ResizeGeometry& g = s.params->geometry;
  SLUICE_CHECK(g.out_h >= 0 && g.out_w >= 0, InvalidArgument, "negative output extent ", g.out_h,
               "x", g.out_w);
  if (fused) {
    SLUICE_CHECK(s.norm != nullptr, InvalidArgument, "no normalisation parameters");
    check_normalize_params(*s.norm, C, "normalisation");
  }
  const ResizeCrop c = resolve_crop(s.crop, g.out_h, g.out_w, "crop");
  if (c.height == 0 || c.width == 0) return l;
  SLUICE_CHECK(s.in_h >= 1 && s.in_w >= 1, InvalidArgument, "cannot produce a ", c.height, "x",
               c.width, " output from an empty ", s.in_h, "x", s.in_w, " input");
  SLUICE_CHECK(s.in != nullptr && s.out != nullptr, InvalidArgument, "null ",
               s.in == nullptr ? "input" : "output", " pointer");
  l.in_stride = s.in_row_stride != 0 ? s.in_row_stride : s.in_w * C;
  SLUICE_CHECK(l.in_stride >= s.in_w * C, InvalidArgument, "in_row_stride ", s.in_row_stride,
               " is shorter than a row (", s.in_w * C, " bytes)");
  l.h = make_axis_resampling(s.in_w, g.src_x0, g.src_x1, g.out_w, s.params->filters, c.x, c.width,
                             "x axis");
  l.v = make_axis_resampling(s.in_h, g.src_y0, g.src_y1, g.out_h, s.params->filters, c.y, c.height,
                             "y axis");
  l.rows = axis_source_range(l.v);
  l.empty = false;

  const int64_t cw = c.width, ch = c.height, rows = l.rows.end - l.rows.begin;
  Scratch scratch;
  l.tables = take_coeff_tables(scratch, l.h, l.v);
  l.tmp = scratch.take(checked_bytes(rows, cw * C, fixed ? 1 : 4));
  l.bytes = scratch.bytes();
  l.tiles_x = static_cast<int32_t>(div_up(cw, kTileW));
  l.coef_blocks = div_up(cw + ch, kCoefBlock);
  l.h_blocks = l.tiles_x * div_up(rows, kTileRows);
  l.v_blocks = l.tiles_x * div_up(ch, kTileRows);
  return l;
}

GpuSampleDesc make_desc(const GpuPlanSample& s, const SampleLayout& l, int64_t C,
                        GpuEpilogue epilogue, std::byte* base) {
  GpuSampleDesc d{};
  d.h_tiles_x = d.v_tiles_x = 1;
  if (l.empty) return d;
  const int64_t cw = l.h.out_count, ch = l.v.out_count;
  d.in = s.in;
  d.in_stride = l.in_stride;
  d.out = s.out;
  const bool chw = epilogue == GpuEpilogue::kNormChwF32 || epilogue == GpuEpilogue::kNormChwF16;
  d.out_stride = chw ? cw : cw * C;
  d.out_plane_stride = chw ? cw * ch : 0;
  d.tmp = base + l.tmp;
  d.tmp_stride = cw * C;
  const CoeffTables<std::byte> t(base, l.tables);
  d.h_first = t.h_first;
  d.h_count = t.h_count;
  d.h_weights = t.h_weights;
  d.v_first = t.v_first;
  d.v_count = t.v_count;
  d.v_weights = t.v_weights;
  d.h = l.h;
  d.v = l.v;
  d.tmp_row_begin = l.rows.begin;
  d.tmp_rows = l.rows.end - l.rows.begin;
  d.h_tiles_x = d.v_tiles_x = l.tiles_x;
  if (s.norm != nullptr) {
    for (int64_t c = 0; c < C; c++) {
      d.mean[c] = s.norm->mean[c];
      d.mul[c] = normalize_multiplier(s.norm->scale, s.norm->stddev[c]);
    }
    d.shift = s.norm->shift;
  }
  d.mirror = s.mirror ? 1 : 0;
  return d;
}

template <typename Sample>
GpuPlan plan_batch(std::span<const Sample> samples, int channels, GpuEpilogue epilogue,
                   const GpuScratch& scratch, std::string_view what) {
  void* host_scratch = scratch.host;
  void* device_scratch = scratch.device;
  const size_t host_bytes = scratch.host_bytes;
  const size_t device_bytes = scratch.device_bytes;
  SLUICE_CHECK(channels >= 1 && channels <= 4, InvalidArgument, what,
               ": channels must be 1 to 4, got ", channels);
  SLUICE_CHECK(samples.size() < (size_t{1} << 24), InvalidArgument, what, ": ", samples.size(),
               " samples in one batch are too many");
  const bool fixed = epilogue_is_fixed(epilogue);
  const bool fused = epilogue != GpuEpilogue::kU8 && epilogue != GpuEpilogue::kF32;
  const int64_t n = static_cast<int64_t>(samples.size());

  // Header: descriptors, then the three block maps.
  const size_t descs_bytes = Scratch::align_up(sizeof(GpuSampleDesc) * n);
  const size_t map_bytes = Scratch::align_up(sizeof(int32_t) * (n + 1));
  GpuPlan plan;
  plan.epilogue = epilogue;
  plan.host_bytes = descs_bytes + 3 * map_bytes;
  size_t total = plan.host_bytes;
  const bool fill = host_scratch != nullptr || device_scratch != nullptr;
  if (fill) {
    SLUICE_CHECK(host_scratch != nullptr && device_scratch != nullptr, InvalidArgument, what,
                 ": both host and device scratch are needed");
    SLUICE_CHECK(reinterpret_cast<uintptr_t>(host_scratch) % kAlign == 0 &&
                     reinterpret_cast<uintptr_t>(device_scratch) % kAlign == 0,
                 InvalidArgument, what, ": scratch must be 16-byte aligned");
    SLUICE_CHECK(host_bytes >= plan.host_bytes, InvalidArgument, what, ": host scratch holds ",
                 host_bytes, " bytes, ", plan.host_bytes, " needed");
  }
  auto* host = static_cast<std::byte*>(host_scratch);
  auto* dev = static_cast<std::byte*>(device_scratch);
  int32_t* maps[3] = {};
  if (fill) {
    for (int k = 0; k < 3; k++) {
      maps[k] = reinterpret_cast<int32_t*>(host + descs_bytes + k * map_bytes);
    }
  }

  // Two passes over the samples when filling (sizes first, so that a short scratch is refused
  // before anything is written), without allocating.
  for (int pass = fill ? 0 : 1; pass < 2; pass++) {
    total = plan.host_bytes;
    plan.coef_blocks = plan.h_blocks = plan.v_blocks = 0;
    for (int64_t i = 0; i < n; i++) {
      SampleLayout l;
      try {
        l = layout_sample(plan_sample(samples[i]), channels, fixed, fused);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(make_string(what, " sample ", i, ": ", e.what()));
      }
      if (pass == 1 && fill) {
        maps[0][i] = static_cast<int32_t>(plan.coef_blocks);
        maps[1][i] = static_cast<int32_t>(plan.h_blocks);
        maps[2][i] = static_cast<int32_t>(plan.v_blocks);
        const GpuSampleDesc d =
            make_desc(plan_sample(samples[i]), l, channels, epilogue, dev + total);
        std::memcpy(host + i * sizeof(GpuSampleDesc), &d, sizeof d);
      }
      total += l.bytes;
      plan.coef_blocks += l.coef_blocks;
      plan.h_blocks += l.h_blocks;
      plan.v_blocks += l.v_blocks;
      SLUICE_CHECK(plan.coef_blocks <= kMaxBlocks && plan.h_blocks <= kMaxBlocks &&
                       plan.v_blocks <= kMaxBlocks,
                   InvalidArgument, what, ": the batch needs more than 2^31 - 1 blocks per pass");
    }
    if (pass == 0) {
      SLUICE_CHECK(device_bytes >= total, InvalidArgument, what, ": device scratch holds ",
                   device_bytes, " bytes, ", total, " needed");
    }
  }
  plan.device_bytes = total;
  if (fill) {
    maps[0][n] = static_cast<int32_t>(plan.coef_blocks);
    maps[1][n] = static_cast<int32_t>(plan.h_blocks);
    maps[2][n] = static_cast<int32_t>(plan.v_blocks);
    plan.batch.samples = reinterpret_cast<const GpuSampleDesc*>(dev);
    plan.batch.coef_block_begin = reinterpret_cast<const int32_t*>(dev + descs_bytes);
    plan.batch.h_block_begin = reinterpret_cast<const int32_t*>(dev + descs_bytes + map_bytes);
    plan.batch.v_block_begin = reinterpret_cast<const int32_t*>(dev + descs_bytes + 2 * map_bytes);
    plan.batch.num_samples = static_cast<int32_t>(n);
  }
  return plan;
}

}  // namespace

GpuPlan plan_gpu_batch(std::span<const ResizeGpuSample> samples, int channels, DType out_type,
                       const GpuScratch& scratch, std::string_view what) {
  SLUICE_CHECK(out_type == DType::kUInt8 || out_type == DType::kFloat32, InvalidArgument, what,
               ": output type must be UINT8 or FLOAT, got ", dtype_name(out_type));
  const GpuEpilogue e = out_type == DType::kUInt8 ? GpuEpilogue::kU8 : GpuEpilogue::kF32;
  return plan_batch(samples, channels, e, scratch, what);
}

GpuPlan plan_gpu_batch(std::span<const ResizeNormalizeGpuSample> samples, int channels,
                       ResizeOutputLayout layout, DType out_type, const GpuScratch& scratch,
                       std::string_view what) {
  check_normalized_type(out_type, what);
  SLUICE_CHECK(layout == ResizeOutputLayout::kHWC || layout == ResizeOutputLayout::kCHW,
               InvalidArgument, what, ": invalid layout ", static_cast<int>(layout));
  const bool f16 = out_type == DType::kFloat16;
  GpuEpilogue e;
  if (layout == ResizeOutputLayout::kHWC) {
    e = f16 ? GpuEpilogue::kNormHwcF16 : GpuEpilogue::kNormHwcF32;
  } else {
    e = f16 ? GpuEpilogue::kNormChwF16 : GpuEpilogue::kNormChwF32;
  }
  return plan_batch(samples, channels, e, scratch, what);
}

}  // namespace sluice::kernels::detail

namespace sluice::kernels {

GpuScratchSizes resize_gpu_scratch_sizes(std::span<const ResizeGpuSample> samples, int channels,
                                         DType out_type) {
  detail::GpuPlan p = detail::plan_gpu_batch(samples, channels, out_type, {}, "resize_gpu");
  return {p.host_bytes, p.device_bytes};
}

GpuScratchSizes resize_normalize_gpu_scratch_sizes(
    std::span<const ResizeNormalizeGpuSample> samples, int channels, ResizeOutputLayout layout,
    DType out_type) {
  detail::GpuPlan p =
      detail::plan_gpu_batch(samples, channels, layout, out_type, {}, "resize_normalize_gpu");
  return {p.host_bytes, p.device_bytes};
}

}  // namespace sluice::kernels
