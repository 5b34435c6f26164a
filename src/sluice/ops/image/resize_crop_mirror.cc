// resize_crop_mirror: resize, then crop, then flip, as one resize of the part of the image the
// crop keeps (DALI's back-projection of the crop window): the classes are resize's (resize.h),
// which take the narrowed window from resize_plan(); the GPU registration is in
// resize_gpu.cc.

#include <utility>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/crop_args.h"
#include "sluice/ops/image/resize.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(filter_args(resize_size_args(
    OpSchema("resize_crop_mirror")
        .doc("Resizes, crops and flips HWC images in one pass: the result equals resize followed "
             "by crop (crop / crop_h / crop_w at crop_pos_x / crop_pos_y of the resized image) "
             "and flip (`mirror`), computed as one resize of the cropped part. A crop reaching "
             "past the resized image repeats its edge pixels.")
        .num_inputs(1, 1)
        .input_doc("input", "HWC images.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("crop", ArgType::kFloatList,
                      "Crop size (height, width), or (depth, height, width): the last two are "
                      "used. An extent of 0 or less (after truncation) keeps the whole extent.",
                      true)
        .optional_arg("crop_h", ArgType::kFloat,
                      "Crop height in pixels (truncated; 0 or less: the whole height).", true)
        .optional_arg("crop_w", ArgType::kFloat,
                      "Crop width in pixels (truncated; 0 or less: the whole width).", true)
        .arg("crop_pos_x", ArgType::kFloat, 0.5,
             "Horizontal position of the crop in the resized image, in [0, 1].", true)
        .arg("crop_pos_y", ArgType::kFloat, 0.5,
             "Vertical position of the crop in the resized image, in [0, 1].", true)
        .arg("mirror", ArgType::kInt, int64_t{0},
             "Flips, bitwise: 1 horizontal, 2 vertical (4, depthwise, has no effect on images).",
             true))));

SLUICE_REGISTER_OPERATOR("resize_crop_mirror", OpDevice::kCPU, ResizeCpu);

// Maps the output range [lo, hi) of an axis resized from [src0, src1) onto `out` pixels back to
// source coordinates, as DALI does (ratio and offset in double), reversed when mirrored.
void narrow_axis(double& src0, double& src1, int64_t out, int64_t lo, int64_t hi, bool mirror) {
  const double ratio = (src1 - src0) / static_cast<double>(out);
  const double offset = src0;
  src0 = static_cast<double>(lo) * ratio + offset;
  src1 = static_cast<double>(hi) * ratio + offset;
  if (mirror) std::swap(src0, src1);
}

}  // namespace

void crop_and_mirror(const Workspace& ws, int sample, kernels::ResizeGeometry& g) {
  const CropWindow w =
      requested_window(ws, sample, g.out_h, g.out_w).value_or(CropWindow{0, 0, g.out_h, g.out_w});
  const int mirror = ws.arg<int>("mirror", sample);
  if (g.out_h > 0) narrow_axis(g.src_y0, g.src_y1, g.out_h, w.y, w.y + w.h, (mirror & 2) != 0);
  if (g.out_w > 0) narrow_axis(g.src_x0, g.src_x1, g.out_w, w.x, w.x + w.w, (mirror & 1) != 0);
  g.out_h = w.h;
  g.out_w = w.w;
}

}  // namespace sluice
