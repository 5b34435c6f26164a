#include "sluice/ops/image/multi_paste_args.h"

#include <cmath>

namespace sluice {
namespace {

bool given(const Workspace& ws, const char* name) {
  return ws.spec().has_arg(name) || ws.arg_input(name) != nullptr;
}

// A region argument of output `i`: `count` rows of (y, x), from a per-sample (count, 2) tensor
// or a flat constant list of 2 * count values.
template <typename T>
std::vector<T> region_arg(const Workspace& ws, const char* name, int i, int64_t count) {
  std::vector<T> v = ws.arg_list<T>(name, i);
  bool ok = static_cast<int64_t>(v.size()) == 2 * count;
  if (const TensorList* t = ws.arg_input(name)) {
    const Shape& s = t->shape(i);
    ok = s.size() == 2 && s[0] == count && s[1] == 2;
  }
  SLUICE_CHECK(ok, InvalidArgument, "unexpected shape for argument `", name,
               "` for output sample at index ", i, ": it should be a 2-D tensor of shape ", count,
               " x 2 (number of pasted regions x 2)");
  return v;
}

void check_factor(float f, const char* name, int i, int64_t k) {
  SLUICE_CHECK(f >= 0.0f && f <= 1.0f, InvalidArgument, "the `", name,
               "` must be float in [0, 1] range, got ", f, " for region at index ", k,
               " pasted into output sample at index ", i);
}

void check_type(DType t, const char* what) {
  SLUICE_CHECK(
      t == DType::kUInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kFloat32,
      InvalidArgument, "unsupported ", what, " type ", dtype_name(t),
      "; supported types: UINT8, INT16, INT32, FLOAT");
}

}  // namespace

MultiPastePlan plan_multi_paste(const Workspace& ws) {
  const OpSpec& spec = ws.spec();
  const TensorList& first = ws.input(0);
  MultiPastePlan plan;
  plan.in_type = first.dtype();
  const int ndim = first.sample_ndim();
  for (int k = 1; k < ws.num_inputs(); ++k) {
    SLUICE_CHECK(ws.input(k).sample_ndim() == ndim, InvalidArgument,
                 "all input batches must have the same dimensionality; got ", ndim, " and ",
                 ws.input(k).sample_ndim(), " at indices 0 and ", k);
    SLUICE_CHECK(ws.input(k).dtype() == plan.in_type, InvalidArgument,
                 "all input batches must have the same data type; got ", dtype_name(plan.in_type),
                 " and ", dtype_name(ws.input(k).dtype()), " at indices 0 and ", k);
  }
  for (int k = 0; k < ws.num_inputs(); ++k) {
    const Layout& l = ws.input(k).layout();
    SLUICE_CHECK(l.empty() || l == "HWC", InvalidArgument, "input ", k, " has layout '", l,
                 "'; multi_paste takes HWC images");
  }
  SLUICE_CHECK(ndim == 3, InvalidArgument, "unsupported sample dimensionality, got ", ndim,
               ", expected 3 (2D data with channels - HWC)");
  plan.out_type =
      spec.has_arg("dtype") ? parse_dtype(spec.arg<std::string>("dtype")) : plan.in_type;
  check_type(plan.in_type, "input");
  check_type(plan.out_type, "output");

  const int n = ws.batch_size();
  const bool has_ids = given(ws, "in_ids");
  if (has_ids) {
    SLUICE_CHECK(ws.num_inputs() == 1, InvalidArgument,
                 "if `in_ids` is specified, the operator accepts exactly one positional input "
                 "batch; got ",
                 ws.num_inputs(), " inputs");
  }
  // The source of region k of output i: (input, sample).
  std::vector<std::vector<std::pair<int, int>>> sources(n);
  for (int i = 0; i < n; ++i) {
    if (has_ids) {
      for (int64_t id : ws.arg_list<int64_t>("in_ids", i)) {
        SLUICE_CHECK(id >= 0 && id < n, InvalidArgument,
                     "the `in_ids` must be in range [0, .., batch_size - 1]; got ", id,
                     ", the input batch size is ", n);
        sources[i].push_back({0, static_cast<int>(id)});
      }
    } else {
      for (int k = 0; k < ws.num_inputs(); ++k) sources[i].push_back({k, i});
    }
  }

  const bool has_size = given(ws, "output_size");
  if (!has_size && n > 0) {
    const Shape& ref = first.shape(0);
    for (int k = 0; k < ws.num_inputs(); ++k) {
      for (int i = 0; i < n; ++i) {
        const Shape& s = ws.input(k).shape(i);
        SLUICE_CHECK(s[0] == ref[0] && s[1] == ref[1], InvalidArgument,
                     "if `output_size` is not specified, all the input samples must have the "
                     "same shape; got samples of shapes ",
                     ref[0], " x ", ref[1], " and ", s[0], " x ", s[1]);
      }
    }
  }
  for (const char* name : {"out_anchors", "in_anchors", "shapes"}) {
    const std::string rel = std::string(name) + "_rel";
    SLUICE_CHECK(!given(ws, name) || !given(ws, rel.c_str()), InvalidArgument, "the `", name,
                 "` and `", rel, "` cannot be specified together");
  }

  plan.out_shapes.resize(n);
  plan.samples.resize(n);
  for (int i = 0; i < n; ++i) {
    int64_t out_h, out_w;
    if (has_size) {
      const std::vector<int64_t> size = ws.arg_list<int64_t>("output_size", i);
      SLUICE_CHECK(size.size() >= 2, InvalidArgument,
                   "the `output_size` should be a tuple (H, W), got ", size.size(),
                   " elements for a sample at index ", i);
      SLUICE_CHECK(size[0] >= 0 && size[1] >= 0, InvalidArgument,
                   "the `output_size` must be non-negative, got ", size[0], " x ", size[1],
                   " for a sample at index ", i);
      out_h = size[0], out_w = size[1];
    } else {
      out_h = first.shape(0)[0], out_w = first.shape(0)[1];
    }
    int64_t channels = -1;
    for (auto [k, j] : sources[i]) {
      const int64_t c = ws.input(k).shape(j)[2];
      SLUICE_CHECK(channels < 0 || channels == c, InvalidArgument,
                   "all regions pasted into given output sample must have the same number of "
                   "channels; got ",
                   channels, " and ", c, " for output sample at index ", i);
      channels = c;
    }
    if (channels < 0) channels = first.shape(i)[2];
    plan.out_shapes[i] = Shape{out_h, out_w, channels};

    const int64_t count = static_cast<int64_t>(sources[i].size());
    auto values = [&](const char* abs, const char* rel, std::vector<int>& a,
                      std::vector<float>& r) {
      if (given(ws, abs)) a = region_arg<int>(ws, abs, i, count);
      if (given(ws, rel)) r = region_arg<float>(ws, rel, i, count);
    };
    std::vector<int> in_a, shp, out_a;
    std::vector<float> in_r, shp_r, out_r;
    values("in_anchors", "in_anchors_rel", in_a, in_r);
    values("shapes", "shapes_rel", shp, shp_r);
    values("out_anchors", "out_anchors_rel", out_a, out_r);

    kernels::MultiPasteSample& s = plan.samples[i];
    s = {nullptr,
         out_h,
         out_w,
         channels,
         static_cast<int64_t>(plan.regions.size()),
         static_cast<int>(count)};
    for (int64_t k = 0; k < count; ++k) {
      const auto [input, j] = sources[i][k];
      const Shape& src = ws.input(input).shape(j);
      int64_t anchor[2] = {0, 0}, size[2] = {src[0], src[1]}, out[2] = {0, 0};
      const int64_t out_size[2] = {out_h, out_w};
      for (int d = 0; d < 2; ++d) {
        if (!shp.empty()) {
          size[d] = shp[2 * k + d];
        } else if (!shp_r.empty()) {
          check_factor(shp_r[2 * k + d], "shapes_rel", i, k);
          size[d] = static_cast<int64_t>(std::ceil(static_cast<float>(src[d]) * shp_r[2 * k + d]));
        }
        if (!in_a.empty()) {
          anchor[d] = in_a[2 * k + d];
        } else if (!in_r.empty()) {
          check_factor(in_r[2 * k + d], "in_anchor_rel", i, k);
          anchor[d] =
              static_cast<int64_t>(std::floor(static_cast<float>(src[d]) * in_r[2 * k + d]));
        }
        if (shp.empty() && shp_r.empty()) size[d] -= anchor[d];
        if (!out_a.empty()) {
          out[d] = out_a[2 * k + d];
        } else if (!out_r.empty()) {
          check_factor(out_r[2 * k + d], "out_anchor_rel", i, k);
          out[d] =
              static_cast<int64_t>(std::floor(static_cast<float>(out_size[d]) * out_r[2 * k + d]));
        }
      }
      for (int d = 0; d < 2; ++d) {
        SLUICE_CHECK(
            anchor[d] >= 0 && size[d] >= 0 && anchor[d] + size[d] <= src[d], InvalidArgument,
            "the pasted region must be within input sample; got input anchor ", anchor[0], " x ",
            anchor[1], ", region shape ", size[0], " x ", size[1], ", input shape ", src[0], " x ",
            src[1], ", for the region at index ", k, " pasted into output sample at index ", i);
        SLUICE_CHECK(out[d] >= 0 && out[d] + size[d] <= out_size[d], InvalidArgument,
                     "the pasted region must be within output bounds; got output anchor ", out[0],
                     " x ", out[1], ", region shape ", size[0], " x ", size[1], ", output shape ",
                     out_h, " x ", out_w, ", for the region at index ", k,
                     " pasted into output sample at index ", i);
      }
      plan.regions.push_back({ws.input(input).raw_sample(j), src[1], anchor[0], anchor[1], out[0],
                              out[1], size[0], size[1]});
    }
  }
  return plan;
}

}  // namespace sluice
