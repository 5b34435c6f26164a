#pragma once
// What the GPU crop and flip share: every output sample is a window of its input, possibly
// flipped, written by one batched launch of the crop kernel (kernels/crop/crop_gpu.h).

#include <vector>

#include "sluice/memory/param_upload.h"
#include "sluice/ops/image/crop_args.h"

namespace sluice {

// Allocates output 0 (the input's type and layout; sample i of win[i]'s size) and launches the
// kernel: output i = window win[i] of input i (geometry geo[i]), transformed by tf[i], with
// `fill` for pixels outside the image. The descriptors go up through `upload`.
void crop_transform_batch_gpu(Workspace& ws, ParamUpload& upload,
                              const std::vector<ImageGeometry>& geo,
                              const std::vector<CropWindow>& win,
                              const std::vector<ImageTransform>& tf,
                              const std::vector<float>& fill);

}  // namespace sluice
