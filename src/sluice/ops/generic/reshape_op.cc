// The reshape / reinterpret class: computes each sample's new shape and makes the output view
// the input's buffers (the input's storage is kept alive and, being shared, never rewritten).

#include <cmath>
#include <memory>

#include "sluice/graph/schema_registry.h"
#include "sluice/memory/buffer.h"
#include "sluice/ops/generic/reshape.h"

namespace sluice {

void view_as(const TensorList& in, TensorList& out, std::vector<Shape> shapes, DType type) {
  const int n = in.num_samples();
  // `out` views the input's memory; `owner` keeps the input's buffers alive, and while it
  // does the input's producer writes its next batch to fresh ones (TensorList's copy-on-write).
  auto owner = std::make_shared<const TensorList>(in);
  std::vector<std::shared_ptr<Buffer>> buffers;
  if (in.is_contiguous()) {
    buffers.push_back(Buffer::borrow(in.total_bytes() ? in.raw_data() : nullptr, in.total_bytes(),
                                     in.kind(), in.device(), owner));
  } else {
    for (int i = 0; i < n; ++i) {
      buffers.push_back(Buffer::borrow(in.sample_bytes(i) ? in.raw_sample(i) : nullptr,
                                       in.sample_bytes(i), in.kind(), in.device(), owner));
    }
  }
  out.share(std::move(shapes), type, std::move(buffers));
}

void ReshapeOp::setup(const OpContext&) {
  const bool shape_arg = spec_.has_arg("shape") || spec_.arg_inputs.count("shape");
  const bool rel_arg = spec_.has_arg("rel_shape") || spec_.arg_inputs.count("rel_shape");
  const bool shape_in = spec_.inputs.size() > 1;
  retype_ = spec_.type == "reinterpret" && spec_.has_arg("dtype");
  if (retype_) out_type_ = parse_dtype(spec_.arg<std::string>("dtype"));
  SLUICE_CHECK(shape_in + shape_arg + rel_arg <= 1, InvalidArgument,
               "Shape input, `shape` argument and `rel_shape` argument are mutually exclusive");
  const bool src_dims = spec_.has_arg("src_dims");
  SLUICE_CHECK(shape_in || shape_arg || rel_arg || src_dims || retype_ || spec_.has_arg("layout"),
               InvalidArgument, "`", spec_.type,
               "` is no-op: arguments specify neither new shape nor layout.");
  if (spec_.has_arg("shape")) {
    int negative = 0;
    for (int64_t e : spec_.arg<std::vector<int64_t>>("shape")) {
      SLUICE_CHECK(e != 0, InvalidArgument, "Extent of 0 is illegal");
      SLUICE_CHECK(e > 0 || ++negative == 1, InvalidArgument,
                   "Only one negative extent is allowed");
    }
  }
  if (spec_.has_arg("rel_shape")) {
    for (double e : spec_.arg<std::vector<double>>("rel_shape")) {
      SLUICE_CHECK(e != 0, InvalidArgument, "Extent of 0 is illegal");
    }
  }
}

Shape ReshapeOp::sample_shape(const Workspace& ws, const TensorList* shape_in, int i,
                              size_t out_elem) const {
  const TensorList& in = ws.input(0);
  const Shape& in_shape = in.shape(i);
  const int in_ndim = static_cast<int>(in_shape.size());
  // The extents `src_dims` selects (-1: a new extent of 1), else the input's.
  Shape src = in_shape;
  const bool has_src_dims = spec_.has_arg("src_dims");
  if (has_src_dims) {
    src.clear();
    const auto dims = spec_.arg<std::vector<int64_t>>("src_dims");
    for (size_t d = 0; d < dims.size(); ++d) {
      SLUICE_CHECK(dims[d] >= -1 && dims[d] < in_ndim, InvalidArgument, "`src_dims[", d,
                   "] == ", dims[d], "` is out of bounds.");
      src.push_back(dims[d] == -1 ? 1 : in_shape[dims[d]]);
    }
  }
  // The requested extents; a negative one is inferred from the size in bytes.
  std::vector<int64_t> req;
  if (shape_in) {
    SLUICE_CHECK(dtype_is_integral(shape_in->dtype()) && shape_in->dtype() != DType::kBool,
                 InvalidArgument, "Shape input must have integral type; got ",
                 dtype_name(shape_in->dtype()));
    SLUICE_CHECK(shape_in->shape(i).size() == 1, InvalidArgument,
                 "Shape input must be a list of 1D tensors");
    SLUICE_CHECK(shape_in->shape(i)[0] == shape_in->shape(0)[0], InvalidArgument,
                 "All samples must have the same number of dimensions");
    req = tensor_values<int64_t>(*shape_in, i);
  } else if (spec_.has_arg("shape") || ws.arg_input("shape")) {
    req = ws.arg_list<int64_t>("shape", i);
  } else if (spec_.has_arg("rel_shape") || ws.arg_input("rel_shape")) {
    const auto rel = ws.arg_list<double>("rel_shape", i);
    SLUICE_CHECK(!has_src_dims || rel.size() == src.size(), InvalidArgument,
                 "`src_dims` and `rel_shape` have different lengths: ", src.size(), " vs ",
                 rel.size());
    SLUICE_CHECK(rel.size() <= src.size(), InvalidArgument, "`rel_shape` has ", rel.size(),
                 " elements; the input has ", src.size(), " dimensions");
    for (size_t d = 0; d < rel.size(); ++d) {
      SLUICE_CHECK(rel[d] != 0, InvalidArgument, "Extent of 0 is illegal");
      req.push_back(rel[d] < 0 ? -1 : static_cast<int64_t>(std::round(rel[d] * src[d])));
    }
  } else if (retype_ && !has_src_dims) {
    // Only a new type: the innermost extent absorbs the change of element size.
    req.assign(in_shape.begin(), in_shape.end());
    if (!req.empty()) {
      const size_t inner = static_cast<size_t>(req.back()) * dtype_size(in.dtype());
      SLUICE_CHECK(inner % out_elem == 0, InvalidArgument,
                   "The size, in bytes, of the innermost dimension is not divisible by the "
                   "sizes of the requested output type.");
      req.back() = static_cast<int64_t>(inner / out_elem);
    }
  } else {
    req.assign(src.begin(), src.end());
  }
  const size_t in_bytes = in.sample_bytes(i);
  int wildcard = -1, negative = 0;
  size_t known = 1;
  for (size_t d = 0; d < req.size(); ++d) {
    SLUICE_CHECK(req[d] != 0, InvalidArgument, "Extent of 0 is illegal");
    if (req[d] < 0) {
      SLUICE_CHECK(++negative == 1, InvalidArgument, "Only one negative extent is allowed");
      wildcard = static_cast<int>(d);
    } else {
      known *= static_cast<size_t>(req[d]);
    }
  }
  if (wildcard >= 0) {
    SLUICE_CHECK(in_bytes % (known * out_elem) == 0, InvalidArgument,
                 "Input and output samples must occupy the same size in bytes: cannot infer "
                 "extent ",
                 wildcard, " of sample ", i, " (", in_bytes, " bytes)");
    req[wildcard] = static_cast<int64_t>(in_bytes / (known * out_elem));
    known *= static_cast<size_t>(req[wildcard]);
  }
  SLUICE_CHECK(known * out_elem == in_bytes, InvalidArgument,
               "Input and output samples must occupy the same size in bytes: the input has ",
               in_bytes, ", the requested shape ", known * out_elem);
  return Shape(req.begin(), req.end());
}

Layout ReshapeOp::output_layout(const TensorList& in, int out_ndim) const {
  if (spec_.has_arg("layout")) {
    Layout l = spec_.arg<std::string>("layout");
    SLUICE_CHECK(l.empty() || static_cast<int>(l.size()) == out_ndim, InvalidArgument,
                 "Requested layout '", l, "' is not compatible with a ", out_ndim, "D shape");
    return l;
  }
  return out_ndim == in.sample_ndim() ? in.layout() : Layout();
}

void ReshapeOp::run(Workspace& ws) {
  const TensorList& in = ws.input(0);
  const TensorList* shape_in = ws.num_inputs() > 1 ? &ws.input(1) : nullptr;
  const DType type = retype_ ? out_type_ : in.dtype();
  const int n = in.num_samples();
  std::vector<Shape> shapes(n);
  for (int i = 0; i < n; ++i) shapes[i] = sample_shape(ws, shape_in, i, dtype_size(type));
  const int out_ndim = n ? static_cast<int>(shapes[0].size()) : in.sample_ndim();
  for (int i = 1; i < n; ++i) {
    SLUICE_CHECK(static_cast<int>(shapes[i].size()) == out_ndim, InvalidArgument,
                 "All samples must have the same number of dimensions");
  }
  TensorList& out = ws.output(0);
  view_as(in, out, std::move(shapes), type);
  out.set_layout(output_layout(in, out_ndim));
}

}  // namespace sluice
