#pragma once
// water, sphere and jitter: the displacement filters share their arguments (interp_type,
// fill_value, mask), their checks and their classes; each operator's file declares its schema
// and registers the CPU class for its kind. The GPU class and its registrations are in
// displace_op_gpu.cc.

#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/displace/displace.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

// interp_type, fill_value and mask.
OpSchema displace_args(OpSchema s);

// The kernel's parameters; refuses what DALI refuses (interpolations other than nearest and
// linear, types other than uint8 and float, input that is not HWC).
kernels::DisplaceParams displace_params(const OpSpec& spec, const TensorList& in,
                                        kernels::DisplaceKind kind);

// Sample `i`'s descriptor.
kernels::DisplaceSample displace_sample(const Workspace& ws, const TensorList& in, TensorList& out,
                                        int i, kernels::DisplaceKind kind);

template <kernels::DisplaceKind Kind>
class DisplaceCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const kernels::DisplaceParams p = displace_params(spec_, in, Kind);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    ws.for_each_sample(
        [&](int i, int) { kernels::displace_cpu(displace_sample(ws, in, out, i, Kind), p); },
        inline_below(in));
  }
};

}  // namespace sluice
