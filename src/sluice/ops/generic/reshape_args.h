#pragma once
// The arguments "reshape" and "reinterpret" share.

#include <string>

#include "sluice/graph/op_schema.h"

namespace sluice {

inline OpSchema reshape_args(OpSchema s) {
  s.num_inputs(1, 2)
      .input_doc("input", "Data of any type and shape.")
      .input_doc("shape", "The output shape per sample (1D, integer, CPU data).")
      .cpu_inputs_from(1)
      .devices({OpDevice::kCPU, OpDevice::kGPU})
      .optional_arg("shape", ArgType::kIntList,
                    "The output shape; one extent may be negative, inferred from the size.", true)
      .optional_arg("rel_shape", ArgType::kFloatList,
                    "The output shape relative to the input's (or the extents `src_dims` "
                    "selects); one may be negative, inferred.",
                    true)
      .optional_arg("src_dims", ArgType::kIntList,
                    "The input dimensions the output's are made of, in order; -1 inserts an "
                    "extent of 1.")
      .optional_arg("layout", ArgType::kString,
                    "The output layout (default: the input's when the number of dimensions is "
                    "kept, else none).");
  return s;
}

}  // namespace sluice
