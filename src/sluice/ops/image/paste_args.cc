#include "sluice/ops/image/paste_args.h"

#include <algorithm>

namespace sluice {

std::vector<uint8_t> paste_fill(const OpSpec& spec) {
  const int n = spec.arg<int>("n_channels");
  SLUICE_CHECK(n <= 1024, InvalidArgument, "n_channels of more than 1024 is not supported");
  const auto v = spec.arg<std::vector<int64_t>>("fill_value");
  SLUICE_CHECK(v.size() == 1 || static_cast<int>(v.size()) == n, InvalidArgument,
               "argument `fill_value` expects either a single value or a list of ", n,
               " elements; ", v.size(), " given");
  std::vector<uint8_t> fill(std::max(n, 0));
  for (size_t c = 0; c < fill.size(); ++c) fill[c] = static_cast<uint8_t>(v[v.size() == 1 ? 0 : c]);
  return fill;
}

void check_paste_input(const TensorList& in, int64_t n_channels) {
  SLUICE_CHECK(in.layout().empty() || in.layout() == "HWC", InvalidArgument, "the layout '",
               in.layout(), "' does not match the allowed layout HWC");
  SLUICE_CHECK(in.num_samples() == 0 || in.sample_ndim() == 3, InvalidArgument,
               "expects 3-dimensional image input");
  SLUICE_CHECK(in.dtype() == DType::kUInt8, InvalidArgument, "unsupported input type ",
               dtype_name(in.dtype()), "; paste takes UINT8");
  for (int i = 0; i < in.num_samples(); ++i) {
    SLUICE_CHECK(in.shape(i)[2] == n_channels, InvalidArgument, "sample ", i, " has ",
                 in.shape(i)[2], " channels and `n_channels` is ", n_channels);
  }
}

kernels::PasteSample paste_sample(const Workspace& ws, const TensorList& in, int i) {
  const Shape& s = in.shape(i);
  const float ratio = ws.arg<float>("ratio", i);
  SLUICE_CHECK(ratio >= 1.0f, InvalidArgument, "ratio of less than 1 is not supported");
  const float min_canvas = ws.arg<float>("min_canvas_size", i);
  SLUICE_CHECK(min_canvas >= 0.0f, InvalidArgument,
               "min_canvas_size of less than 0 is not supported");
  // DALI's int arithmetic: products truncated, the minimum canvas truncated first.
  const int h = static_cast<int>(s[0]), w = static_cast<int>(s[1]);
  const int min_size = static_cast<int>(min_canvas);
  const int out_h = std::max(static_cast<int>(ratio * static_cast<float>(h)), min_size);
  const int out_w = std::max(static_cast<int>(ratio * static_cast<float>(w)), min_size);
  const float px = ws.arg<float>("paste_x", i), py = ws.arg<float>("paste_y", i);
  SLUICE_CHECK(px >= 0.0f && px <= 1.0f, InvalidArgument, "paste_x must be in range [0, 1]");
  SLUICE_CHECK(py >= 0.0f && py <= 1.0f, InvalidArgument, "paste_y must be in range [0, 1]");
  kernels::PasteSample p{};
  p.in_height = h;
  p.in_width = w;
  p.out_height = out_h;
  p.out_width = out_w;
  p.channels = s[2];
  p.x = static_cast<int>(px * static_cast<float>(out_w - w));
  p.y = static_cast<int>(py * static_cast<float>(out_h - h));
  return p;
}

}  // namespace sluice
