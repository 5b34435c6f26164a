// random_bbox_crop: a random crop window that keeps the boxes consistent (the boxes that stay,
// mapped into the window, their labels and indices), for slice to apply. CPU only, as in DALI.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/bbox/bbox_crop.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("random_bbox_crop")
        .doc("Picks a random crop window whose overlap with the boxes passes a randomly chosen "
             "threshold, and gives the window (anchor, shape), the boxes kept in it mapped to its "
             "coordinates, their labels and (optionally) their indices.")
        .num_inputs(1, 2)
        .input_doc("boxes", "Boxes [N, 4] (2D) or [N, 6] (3D), float, relative coordinates.")
        .input_doc("labels", "Optional: a label (or a row of them) per box.")
        .num_outputs(3)
        .output_per_input_beyond(1)
        .output_if_arg("output_bbox_indices")
        .arg("thresholds", ArgType::kFloatList, std::vector<double>{0.0},
             "Minimum overlaps, one picked at random per sample.")
        .arg("threshold_type", ArgType::kString, std::string("iou"),
             "`iou`: intersection over union; `overlap`: the share of each box in the window.")
        .arg("all_boxes_above_threshold", ArgType::kBool, true,
             "Every box must pass the threshold (else at least one).")
        .arg("aspect_ratio", ArgType::kFloatList, std::vector<double>{1.0, 1.0},
             "Aspect ratio ranges [min, max] of the window (3D: x/y, x/z, y/z).")
        .arg("scaling", ArgType::kFloatList, std::vector<double>{1.0, 1.0},
             "Range [min, max] of the window's extents relative to the image.")
        .arg("ltrb", ArgType::kBool, true,
             "Deprecated: True for `xyXY` boxes, False for `xyWH` (see `bbox_layout`).")
        .optional_arg("bbox_layout", ArgType::kString,
                      "Order of the box coordinates: a permutation of `xyXY` or `xyWH` (3D: "
                      "`xyzXYZ`, `xyzWHD`).")
        .optional_arg("shape_layout", ArgType::kString,
                      "Order of `crop_shape` and `input_shape`: a permutation of `WH` (`WHD`).")
        .optional_arg("crop_shape", ArgType::kIntList,
                      "A fixed window shape (absolute), with `input_shape`.", /*per_sample=*/true)
        .optional_arg("input_shape", ArgType::kIntList,
                      "The image's shape: with `crop_shape` the outputs are absolute, without "
                      "it aspect ratios count in its units.",
                      /*per_sample=*/true)
        .arg("num_attempts", ArgType::kInt, int64_t{1},
             "Attempts at a window for one picked threshold.")
        .arg("total_num_attempts", ArgType::kInt, int64_t{-1},
             "Attempts in all before the best window so far is used (-1: no limit).")
        .arg("allow_no_crop", ArgType::kBool, true,
             "Not cropping is one more outcome, as if it were a threshold.")
        .optional_arg("bbox_prune_threshold", ArgType::kFloat,
                      "Keep the boxes with at least this share of their area in the window "
                      "(default: those whose centre is in it).")
        .arg("output_bbox_indices", ArgType::kBool, false,
             "One more output: the indices of the boxes kept.")
        .arg("quiet", ArgType::kBool, false, "No warning when the best window so far is used."));

std::string default_layout(int ndim, bool start_end) {
  if (ndim == 3) return start_end ? "xyzXYZ" : "xyzWHD";
  return start_end ? "xyXY" : "xyWH";
}

bool is_permutation_of(const std::string& a, const std::string& b) {
  std::string x = a, y = b;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

class RandomBBoxCropCpu : public Operator {
 public:
  using Operator::Operator;

  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const int n = ws.batch_size();
    SLUICE_CHECK(in.dtype() == DType::kFloat32, InvalidArgument,
                 "random_bbox_crop takes float boxes, got ", dtype_name(in.dtype()));
    for (int i = 0; i < n; ++i) {
      SLUICE_CHECK(
          in.shape(i).size() == 2, InvalidArgument,
          "Unexpected number of dimensions for bounding boxes input: ", in.shape(i).size());
      SLUICE_CHECK(in.shape(i)[1] == in.shape(0)[1], InvalidArgument,
                   "Unexpected number of coordinates for sample ", i, ". Expected ", in.shape(0)[1],
                   ", got ", in.shape(i)[1]);
    }
    const int64_t ncoords = n ? in.shape(0)[1] : 4;
    SLUICE_CHECK(ncoords % 2 == 0, InvalidArgument,
                 "Unexpected number of coordinates for bounding boxes: ", ncoords);
    SLUICE_CHECK(ncoords == 4 || ncoords == 6, InvalidArgument,
                 "Unexpected number of dimensions: ", ncoords / 2);
    const int ndim = static_cast<int>(ncoords / 2);
    const kernels::BBoxCropParams p = params(ndim);
    const std::string layout = box_layout(ndim);
    const bool start_end = is_permutation_of(layout, default_layout(ndim, true));
    const std::string internal = default_layout(ndim, start_end);
    const bool fixed = spec_.has_arg("crop_shape") || ws.arg_input("crop_shape");
    const bool has_input_shape = spec_.has_arg("input_shape") || ws.arg_input("input_shape");
    const bool has_labels = ws.num_inputs() == 2;

    std::vector<kernels::BBoxCropResult> results(n);
    ws.for_each_sample(
        [&](int i, int) {
          kernels::BBoxCropSample s;
          const auto* data = static_cast<const float*>(in.raw_sample(i));
          s.boxes.resize(in.shape(i)[0]);
          for (size_t b = 0; b < s.boxes.size(); ++b) {
            const float* c = data + b * ncoords;
            for (int k = 0; k < ncoords; ++k) {
              const auto pos = static_cast<int>(internal.find(layout[k]));
              (pos < ndim ? s.boxes[b].lo[pos] : s.boxes[b].hi[pos - ndim]) = c[k];
            }
            if (!start_end) {
              for (int d = 0; d < ndim; ++d) s.boxes[b].hi[d] += s.boxes[b].lo[d];
            }
          }
          s.fixed_shape = fixed;
          s.has_input_shape = has_input_shape;
          if (has_input_shape) read_shape(ws, "input_shape", i, ndim, s.input_shape);
          if (fixed) read_shape(ws, "crop_shape", i, ndim, s.crop_shape);
          results[i] = kernels::random_bbox_crop(p, s, ws.rng(i));
        },
        1);

    write_outputs(ws, results, ndim, layout, internal, start_end, has_labels);
    if (!spec_.arg<bool>("quiet")) {
      for (const auto& r : results) {
        if (r.found) continue;
        std::fprintf(stderr,
                     "random_bbox_crop: Could not find a valid cropping window to satisfy the "
                     "specified requirements (attempted %d times). Using the best cropping window "
                     "so far (best_metric=%g)\n",
                     r.attempts, r.best_metric);
      }
    }
  }

 private:
  kernels::BBoxCropParams params(int ndim) const {
    kernels::BBoxCropParams p;
    p.ndim = ndim;
    const auto scaling = spec_.arg<std::vector<float>>("scaling");
    SLUICE_CHECK(scaling.size() == 2, InvalidArgument,
                 "`scaling` must be a range `[min, max]`. Got ", scaling.size(), " values");
    SLUICE_CHECK(scaling[0] >= 0 && scaling[0] <= scaling[1], InvalidArgument,
                 "`scaling` range must be positive and min <= max. Got: ", scaling[0], ", ",
                 scaling[1]);
    p.scale_min = scaling[0], p.scale_max = scaling[1];
    p.aspect_ratio = spec_.arg<std::vector<float>>("aspect_ratio");
    SLUICE_CHECK(p.aspect_ratio.size() == 2 || p.aspect_ratio.size() == 6, InvalidArgument,
                 "`aspect_ratio` range argument should have 2 elements, or 6 elements in case of "
                 "3D bounding boxes. Got ",
                 p.aspect_ratio.size(), " elements");
    for (size_t k = 0; k < p.aspect_ratio.size(); k += 2) {
      SLUICE_CHECK(p.aspect_ratio[k] >= 0 && p.aspect_ratio[k] <= p.aspect_ratio[k + 1],
                   InvalidArgument,
                   "`aspect_ratio` range must be positive and min <= max. Got: ", p.aspect_ratio[k],
                   ", ", p.aspect_ratio[k + 1]);
    }
    const bool fixed = spec_.has_arg("crop_shape") || has_arg_input_("crop_shape");
    SLUICE_CHECK(!fixed || spec_.has_arg("input_shape") || has_arg_input_("input_shape"),
                 InvalidArgument, "``input_shape`` must be provided when providing ``crop_shape``");
    SLUICE_CHECK(!(spec_.has_arg("ltrb") && spec_.has_arg("bbox_layout")), InvalidArgument,
                 "`ltrb` and `bbox_layout` can't be provided at the same time. `ltrb` was "
                 "deprecated in favor of `bbox_layout`.");
    p.allow_no_crop = spec_.arg<bool>("allow_no_crop");
    if (fixed) {
      if (!spec_.has_arg("allow_no_crop")) p.allow_no_crop = false;
      SLUICE_CHECK(!p.allow_no_crop, InvalidArgument,
                   "`allow_no_crop` is incompatible with providing the crop shape explicitly");
      SLUICE_CHECK(!spec_.has_arg("aspect_ratio"), InvalidArgument,
                   "`aspect_ratio` is incompatible with providing the crop shape explicitly");
      SLUICE_CHECK(!spec_.has_arg("scaling"), InvalidArgument,
                   "`scaling` is incompatible with providing the crop shape explicitly");
    }
    p.thresholds = spec_.arg<std::vector<float>>("thresholds");
    SLUICE_CHECK(!p.thresholds.empty(), InvalidArgument,
                 "At least one threshold value must be provided");
    p.num_attempts = spec_.arg<int>("num_attempts");
    SLUICE_CHECK(p.num_attempts > 0, InvalidArgument,
                 "Minimum number of attempts must be greater than zero");
    for (float t : p.thresholds) {
      SLUICE_CHECK(t >= 0 && t <= 1, InvalidArgument,
                   "Threshold value must be within the range [0.0, 1.0]. Received: ", t);
    }
    const std::string type = spec_.arg<std::string>("threshold_type");
    SLUICE_CHECK(type == "iou" || type == "overlap", InvalidArgument,
                 "Not supported ``threshold_type`` value: \"", type,
                 "\". Supported values are: \"iou\", \"overlap\".");
    p.overlap_metric = type == "overlap";
    if (spec_.has_arg("total_num_attempts")) {
      p.total_num_attempts = spec_.arg<int>("total_num_attempts");
      SLUICE_CHECK(p.total_num_attempts > 0, InvalidArgument,
                   "Minimum total number of attempts must be greater than zero");
    }
    p.all_boxes_above_threshold = spec_.arg<bool>("all_boxes_above_threshold");
    if (spec_.has_arg("bbox_prune_threshold")) {
      p.prune_threshold = spec_.arg<float>("bbox_prune_threshold");
    }
    return p;
  }

  bool has_arg_input_(const char* name) const { return spec_.arg_inputs.count(name) > 0; }

  std::string box_layout(int ndim) const {
    std::string layout = spec_.has_arg("bbox_layout") ? spec_.arg<std::string>("bbox_layout") : "";
    if (layout.empty()) layout = default_layout(ndim, spec_.arg<bool>("ltrb"));
    SLUICE_CHECK(is_permutation_of(layout, default_layout(ndim, true)) ||
                     is_permutation_of(layout, default_layout(ndim, false)),
                 InvalidArgument, "`bbox_layout` should be a permutation of `",
                 default_layout(ndim, true), "` or `", default_layout(ndim, false), "`. Got: `",
                 layout, "`");
    return layout;
  }

  // `crop_shape` / `input_shape` of a sample as W, H(, D).
  void read_shape(Workspace& ws, const char* name, int i, int ndim, float* out) const {
    const std::vector<int64_t> v = ws.arg_list<int64_t>(name, i);
    SLUICE_CHECK(static_cast<int>(v.size()) == ndim, InvalidArgument, "Argument `", name,
                 "` must be a ", ndim, "D vector");
    const std::string internal = ndim == 3 ? "WHD" : "WH";
    std::string sl = spec_.has_arg("shape_layout") ? spec_.arg<std::string>("shape_layout") : "";
    if (sl.empty()) sl = internal;
    SLUICE_CHECK(is_permutation_of(sl, internal), InvalidArgument,
                 "`shape_layout` should be a permutation of `", internal,
                 "` for the provided inputs");
    for (int d = 0; d < ndim; ++d) out[d] = static_cast<float>(v[sl.find(internal[d])]);
  }

  void write_outputs(Workspace& ws, const std::vector<kernels::BBoxCropResult>& results, int ndim,
                     const std::string& layout, const std::string& internal, bool start_end,
                     bool has_labels) {
    const int n = ws.batch_size();
    const int ncoords = 2 * ndim;
    std::vector<Shape> vec_shapes(n, Shape{ndim}), box_shapes(n), index_shapes(n);
    for (int i = 0; i < n; ++i) {
      box_shapes[i] = {static_cast<int64_t>(results[i].boxes.size()), ncoords};
      index_shapes[i] = {static_cast<int64_t>(results[i].indices.size())};
    }
    TensorList& anchor = ws.output(0);
    TensorList& shape = ws.output(1);
    TensorList& boxes = ws.output(2);
    anchor.resize(vec_shapes, DType::kFloat32);
    shape.resize(vec_shapes, DType::kFloat32);
    boxes.resize(box_shapes, DType::kFloat32);
    for (int i = 0; i < n; ++i) {
      const auto& r = results[i];
      auto* a = static_cast<float*>(anchor.raw_sample(i));
      auto* s = static_cast<float*>(shape.raw_sample(i));
      for (int d = 0; d < ndim; ++d) a[d] = r.window.lo[d], s[d] = r.window.hi[d] - r.window.lo[d];
      auto* out = static_cast<float*>(boxes.raw_sample(i));
      for (size_t b = 0; b < r.boxes.size(); ++b) {
        for (int k = 0; k < ncoords; ++k) {
          const auto pos = static_cast<int>(internal.find(layout[k]));
          const kernels::CropBox& box = r.boxes[b];
          out[b * ncoords + k] = pos < ndim  ? box.lo[pos]
                                 : start_end ? box.hi[pos - ndim]
                                             : box.hi[pos - ndim] - box.lo[pos - ndim];
        }
      }
    }
    int next = 3;
    if (has_labels) {
      const TensorList& labels = ws.input(1);
      SLUICE_CHECK(labels.dtype() == DType::kInt32, InvalidArgument,
                   "random_bbox_crop takes int32 labels, got ", dtype_name(labels.dtype()));
      std::vector<Shape> label_shapes(n);
      for (int i = 0; i < n; ++i) {
        const Shape& ls = labels.shape(i);
        SLUICE_CHECK(!ls.empty() && ls[0] == ws.input(0).shape(i)[0], InvalidArgument,
                     "Unexpected number of labels. Expected: ", ws.input(0).shape(i)[0], ", got ",
                     ls.empty() ? 0 : ls[0], " for sample ", i);
        label_shapes[i] = ls;
        label_shapes[i][0] = static_cast<int64_t>(results[i].indices.size());
      }
      TensorList& out = ws.output(next++);
      out.resize(label_shapes, DType::kInt32);
      for (int i = 0; i < n; ++i) {
        const Shape& ls = labels.shape(i);
        const int64_t row = volume(Shape(ls.begin() + 1, ls.end()));
        const auto* src = static_cast<const int32_t*>(labels.raw_sample(i));
        auto* dst = static_cast<int32_t*>(out.raw_sample(i));
        for (int idx : results[i].indices) {
          std::copy(src + idx * row, src + (idx + 1) * row, dst);
          dst += row;
        }
      }
    }
    if (spec_.arg<bool>("output_bbox_indices")) {
      TensorList& out = ws.output(next);
      out.resize(index_shapes, DType::kInt32);
      for (int i = 0; i < n; ++i) {
        std::copy(results[i].indices.begin(), results[i].indices.end(),
                  static_cast<int32_t*>(out.raw_sample(i)));
      }
    }
  }
};

SLUICE_REGISTER_OPERATOR("random_bbox_crop", OpDevice::kCPU, RandomBBoxCropCpu);

}  // namespace
}  // namespace sluice
