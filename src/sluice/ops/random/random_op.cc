#include "sluice/ops/random/random_op.h"

#include <cmath>

#include "sluice/ops/op_policy.h"

namespace sluice {

void RandomCpu::run(Workspace& ws) {
  RandomPlan plan = plan_random(spec_, ws);
  TensorList& out = ws.output(0);
  out.resize(plan.shapes, plan.dtype);
  ws.for_each_sample(
      [&](int i, int) {
        kernels::random_cpu(plan.dist, plan.sample(i, out.raw_sample(i), ws.rng(i)), plan.dtype,
                            plan.values.data());
      },
      inline_below(out));
}

RandomPlan plan_random(const OpSpec& spec, Workspace& ws) {
  RandomPlan plan;
  const int n = ws.batch_size();
  plan.dtype = parse_dtype(spec.arg<std::string>("dtype"));
  plan.shapes.resize(n);
  const bool has_shape = spec.has_arg("shape") || ws.arg_input("shape");
  if (const TensorList* t = ws.arg_input("shape")) {
    SLUICE_CHECK(dtype_is_integral(t->dtype()), InvalidArgument,
                 "`shape` takes integers, got an argument input of type ", dtype_name(t->dtype()));
  }
  SLUICE_CHECK(!(has_shape && ws.num_inputs()), InvalidArgument,
               "Providing argument \"shape\" is incompatible with providing a shape-like input");
  for (int i = 0; i < n; ++i) {
    if (ws.num_inputs()) {
      plan.shapes[i] = ws.input(0).shape(i);
    } else if (has_shape) {  // a constant, or per sample from an argument input
      plan.shapes[i] = ws.arg_list<int64_t>("shape", i);
      for (auto d : plan.shapes[i]) {
        SLUICE_CHECK(d >= 0, InvalidArgument, "negative extent in shape ",
                     shape_to_string(plan.shapes[i]), " of sample ", i);
      }
      SLUICE_CHECK(plan.shapes[i].size() == plan.shapes[0].size(), InvalidArgument,
                   "every sample's shape must have as many extents as the first's (",
                   plan.shapes[0].size(), "), sample ", i, " has ", plan.shapes[i].size());
    }
  }
  plan.p0.resize(n);
  plan.p1.resize(n);
  plan.first_value.assign(n, 0);
  plan.num_values.assign(n, 0);
  if (spec.type == "random.coin_flip") {
    plan.dist = kernels::RandomDist::kCoinFlip;
    for (int i = 0; i < n; ++i) {
      float p = ws.arg<float>("probability", i);
      SLUICE_CHECK(p >= 0 && p <= 1, InvalidArgument, "probability ", p, " of sample ", i,
                   " is not in [0, 1]");
      plan.p0[i] = p;
    }
  } else if (spec.type == "random.normal") {
    plan.dist = kernels::RandomDist::kNormal;
    SLUICE_CHECK(plan.dtype != DType::kFloat16 && plan.dtype != DType::kBFloat16 &&
                     plan.dtype != DType::kBool,
                 InvalidArgument, "Data type ", dtype_name(plan.dtype),
                 " is currently not supported: random.normal gives integers, FLOAT or FLOAT64");
    for (int i = 0; i < n; ++i) {
      plan.p0[i] = ws.arg<float>("mean", i);
      plan.p1[i] = ws.arg<float>("stddev", i);
    }
  } else if (spec.type == "random.beta") {
    plan.dist = kernels::RandomDist::kBeta;
    SLUICE_CHECK(plan.dtype == DType::kFloat32 || plan.dtype == DType::kFloat64, InvalidArgument,
                 "Data type ", dtype_name(plan.dtype),
                 " is not supported. Supported types are : float, double");
    for (int i = 0; i < n; ++i) {
      for (const char* name : {"alpha", "beta"}) {
        const float v = ws.arg<float>(name, i);
        SLUICE_CHECK(v > 0 && std::isfinite(v), InvalidArgument, "The `", name,
                     "` must be a positive float32, got `", v, "` for sample at index ", i);
      }
      plan.p0[i] = ws.arg<float>("alpha", i);
      plan.p1[i] = ws.arg<float>("beta", i);
    }
  } else if (spec.has_arg("values") || ws.arg_input("values")) {
    plan.dist = kernels::RandomDist::kDiscrete;
    for (int i = 0; i < n; ++i) {
      std::vector<float> v = ws.arg_list<float>("values", i);
      SLUICE_CHECK(!v.empty(), InvalidArgument, "`values` is empty for sample ", i);
      plan.first_value[i] = static_cast<int32_t>(plan.values.size());
      plan.num_values[i] = static_cast<int32_t>(v.size());
      plan.values.insert(plan.values.end(), v.begin(), v.end());
    }
  } else {
    plan.dist = kernels::RandomDist::kUniform;
    for (int i = 0; i < n; ++i) {
      auto r = ws.arg_list<float>("range", i);
      SLUICE_CHECK(r.size() == 2, InvalidArgument, "range must be [min, max], got ", r.size(),
                   " values for sample ", i);
      SLUICE_CHECK(r[0] < r[1], InvalidArgument, "Invalid range [", r[0], ", ", r[1],
                   ") for sample ", i, ": the range is half-open and needs min < max");
      plan.p0[i] = r[0];
      plan.p1[i] = r[1];
    }
  }
  return plan;
}

}  // namespace sluice
