#pragma once
// What noise.gaussian, noise.salt_and_pepper and noise.shot share: argument handling and the
// operator classes (each operator's file registers the CPU one, noise_op_gpu.cc the GPU one for
// all three).

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/noise/noise.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

// The kind of noise of the operator and each sample's parameters (inputs and outputs set);
// sizes the output like the input.
kernels::NoiseKind plan_noise(const OpSpec& spec, Workspace& ws,
                              std::vector<kernels::NoiseSample>& samples);

class NoiseCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override;
};

// The same values as NoiseCpu, in one launch (CUDA builds only).
class NoiseGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override;
};

}  // namespace sluice
