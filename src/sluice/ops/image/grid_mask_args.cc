#include "sluice/ops/image/grid_mask_args.h"

namespace sluice {

void check_grid_mask_input(const TensorList& in) {
  const DType t = in.dtype();
  SLUICE_CHECK(
      t == DType::kUInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kFloat32,
      InvalidArgument, "unsupported input type ", dtype_name(t),
      "; use UINT8, INT16, INT32 or FLOAT");
  SLUICE_CHECK(in.num_samples() == 0 || in.sample_ndim() == 3, InvalidArgument,
               "grid_mask takes 3-D images (HWC), got ", in.sample_ndim(), " dimensions");
}

kernels::GridMaskSample grid_mask_sample(const Workspace& ws, const TensorList& in, TensorList& out,
                                         int i) {
  const int tile = ws.arg<int>("tile", i);
  SLUICE_CHECK(tile > 0, InvalidArgument, "`tile` must be positive, got ", tile);
  const Shape& s = in.shape(i);
  return kernels::make_grid_mask_sample(out.raw_sample(i), in.raw_sample(i), s[0], s[1], s[2], tile,
                                        ws.arg<float>("ratio", i), ws.arg<float>("angle", i),
                                        ws.arg<float>("shift_x", i), ws.arg<float>("shift_y", i));
}

}  // namespace sluice
