// box_encoder: encodes boxes and labels against a set of anchors, as SSD does. The GPU class is
// in box_encoder_gpu.cc.

#include "sluice/ops/bbox/box_encoder.h"

#include <algorithm>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

kernels::BoxEncoderParams box_encoder_params(const OpSpec& spec, std::vector<float>& anchors) {
  kernels::BoxEncoderParams p{};
  anchors = spec.arg<std::vector<float>>("anchors");
  SLUICE_CHECK(anchors.size() % 4 == 0, InvalidArgument,
               "Anchors size must be divisible by 4, actual value = ", anchors.size());
  p.num_anchors = static_cast<int>(anchors.size() / 4);
  p.criteria = spec.arg<float>("criteria");
  SLUICE_CHECK(p.criteria >= 0.0f, InvalidArgument,
               "Expected criteria >= 0, actual value = ", p.criteria);
  SLUICE_CHECK(p.criteria <= 1.0f, InvalidArgument,
               "Expected criteria <= 1, actual value = ", p.criteria);
  p.offset = spec.arg<bool>("offset");
  p.scale = spec.arg<float>("scale");
  const auto means = spec.arg<std::vector<float>>("means");
  const auto stds = spec.arg<std::vector<float>>("stds");
  SLUICE_CHECK(means.size() == 4, InvalidArgument, "means size must be a list of 4 values.");
  SLUICE_CHECK(stds.size() == 4, InvalidArgument, "stds size must be a list of 4 values.");
  SLUICE_CHECK(std::find(stds.begin(), stds.end(), 0.0f) == stds.end(), InvalidArgument,
               "stds values must be != 0.");
  std::copy(means.begin(), means.end(), p.means);
  std::copy(stds.begin(), stds.end(), p.stds);
  return p;
}

std::vector<int> box_encoder_outputs(Workspace& ws, int num_anchors) {
  const TensorList& boxes = ws.input(0);
  const TensorList& labels = ws.input(1);
  SLUICE_CHECK(boxes.dtype() == DType::kFloat32, InvalidArgument,
               "box_encoder takes float boxes, got ", dtype_name(boxes.dtype()));
  SLUICE_CHECK(labels.dtype() == DType::kInt32, InvalidArgument,
               "box_encoder takes int32 labels, got ", dtype_name(labels.dtype()));
  const int n = ws.batch_size();
  std::vector<int> num_boxes(n);
  for (int i = 0; i < n; ++i) {
    const Shape& s = boxes.shape(i);
    SLUICE_CHECK(s.size() == 2 && s[1] == 4, InvalidArgument,
                 "box_encoder takes boxes of shape [N, 4], sample ", i, " has ",
                 shape_to_string(s));
    num_boxes[i] = static_cast<int>(s[0]);
    SLUICE_CHECK(volume(labels.shape(i)) >= s[0], InvalidArgument, "sample ", i, " has ", s[0],
                 " boxes but ", volume(labels.shape(i)), " labels");
  }
  ws.output(0).resize(std::vector<Shape>(n, Shape{num_anchors, 4}), DType::kFloat32);
  ws.output(1).resize(std::vector<Shape>(n, Shape{num_anchors}), DType::kInt32);
  return num_boxes;
}

namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("box_encoder")
        .doc("Encodes boxes and their labels against a set of anchors (SSD): each anchor takes the "
             "box it overlaps most when the IoU exceeds `criteria`, and each box its best anchor.")
        .num_inputs(2, 2)
        .input_doc("boxes", "Boxes [N, 4], float, ltrb.")
        .input_doc("labels", "Labels [N], int32.")
        .num_outputs(2)
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("anchors", ArgType::kFloatList, "The anchors, ltrb, 4 floats each.")
        .arg("criteria", ArgType::kFloat, 0.5, "The IoU above which a box matches an anchor.")
        .arg("offset", ArgType::kBool, false,
             "Output ((box * scale - anchor * scale) - mean) / stds (centres relative to the "
             "anchor's size, log of the size ratio) instead of the boxes.")
        .arg("scale", ArgType::kFloat, 1.0, "Rescales boxes and anchors before the offsets.")
        .arg("means", ArgType::kFloatList, std::vector<double>{0, 0, 0, 0},
             "[x y w h] means of the offsets.")
        .arg("stds", ArgType::kFloatList, std::vector<double>{1, 1, 1, 1},
             "[x y w h] standard deviations of the offsets."));

class BoxEncoderCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override {
    params_ = box_encoder_params(spec_, anchors_);
    params_.anchors = anchors_.data();
    scratch_.resize(ctx.num_slots);
  }
  void run(Workspace& ws) override {
    const std::vector<int> num_boxes = box_encoder_outputs(ws, params_.num_anchors);
    const TensorList& boxes = ws.input(0);
    const TensorList& labels = ws.input(1);
    ws.for_each_sample(
        [&](int i, int thread) {
          std::vector<int>& scratch = scratch_[thread];
          scratch.resize(num_boxes[i]);
          kernels::box_encoder_cpu(params_,
                                   {static_cast<const float*>(boxes.raw_sample(i)),
                                    static_cast<const int32_t*>(labels.raw_sample(i)), num_boxes[i],
                                    static_cast<float*>(ws.output(0).raw_sample(i)),
                                    static_cast<int32_t*>(ws.output(1).raw_sample(i))},
                                   scratch.data());
        },
        1);
  }

 private:
  std::vector<float> anchors_;
  kernels::BoxEncoderParams params_{};
  std::vector<std::vector<int>> scratch_;  // per thread: each box's best anchor
};

SLUICE_REGISTER_OPERATOR("box_encoder", OpDevice::kCPU, BoxEncoderCpu);

}  // namespace
}  // namespace sluice
