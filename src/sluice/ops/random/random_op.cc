#include "sluice/ops/random/random_op.h"

#include "sluice/ops/op_policy.h"

namespace sluice {

void RandomCpu::run(Workspace& ws) {
  RandomPlan plan = plan_random(spec_, ws);
  TensorList& out = ws.output(0);
  out.resize(plan.shapes, plan.dtype);
  ws.for_each_sample(
      [&](int i, int) {
        kernels::RandomSample s{out.raw_sample(i), volume(plan.shapes[i]), ws.rng(i), plan.p0[i],
                                plan.p1[i]};
        kernels::random_cpu(plan.dist, s, plan.dtype, plan.values.data(),
                            static_cast<int>(plan.values.size()));
      },
      inline_below(out));
}

RandomPlan plan_random(const OpSpec& spec, Workspace& ws) {
  RandomPlan plan;
  const int n = ws.batch_size();
  plan.dtype = parse_dtype(spec.arg<std::string>("dtype"));
  plan.shapes.resize(n);
  Shape fixed;
  if (spec.has_arg("shape")) {
    fixed = spec.arg<std::vector<int64_t>>("shape");
    for (auto d : fixed) {
      SLUICE_CHECK(d >= 0, InvalidArgument, "negative extent in shape");
    }
  }
  for (int i = 0; i < n; ++i) plan.shapes[i] = ws.num_inputs() ? ws.input(0).shape(i) : fixed;
  plan.p0.resize(n);
  plan.p1.resize(n);
  if (spec.type == "random.coin_flip") {
    plan.dist = kernels::RandomDist::kCoinFlip;
    for (int i = 0; i < n; ++i) {
      float p = ws.arg<float>("probability", i);
      SLUICE_CHECK(p >= 0 && p <= 1, InvalidArgument, "probability ", p, " of sample ", i,
                   " is not in [0, 1]");
      plan.p0[i] = p;
    }
  } else if (spec.has_arg("values")) {
    plan.dist = kernels::RandomDist::kDiscrete;
    plan.values = spec.arg<std::vector<float>>("values");
    SLUICE_CHECK(!plan.values.empty(), InvalidArgument, "`values` is empty");
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
