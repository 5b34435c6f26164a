#pragma once
// What the conditional operators share: the predicate of a split or merge (one truth value per
// sample) and DALI's texts about the inputs logical expressions and conditions accept, which
// users match on.

#include <string>
#include <string_view>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/gather/sample_gather.h"

namespace sluice {

// DALI's explanation after a refused condition or logical operand.
inline constexpr std::string_view kLogicalRestriction =
    "\n\nThis input restriction allows the logical expressions to always return scalar boolean "
    "outputs and to be used in unambiguous way in DALI conditionals (`if` statements). You can "
    "set the `dtype` parameter of some operators to `nvidia.dali.types.BOOL` or use comparison "
    "operators which always return booleans.\nIf you need to process inputs of higher "
    "dimensionality, different type, or device placement, you may use bitwise arithmetic "
    "operators `&`, `|` or comparison operator (`== 0`) to emulate logical `and`, `or` and `not` "
    "expressions.  Those operations performed on boolean inputs are equivalent to logical "
    "expressions. Keep in mind that, in contrast to using logical operators, all subexpressions "
    "of elementwise arithmetic operators are always evaluated.";

// A type as DALI's messages name it: "int32", "float", "double", "bool".
std::string dali_type_name(DType t);

// The number of dimensions of `t`'s samples; throws `what` (a message) unless they are 0-d.
void check_scalar_samples(const TensorList& t, const std::string& what_if_not);

// The predicate argument input: one truth value per sample (non-zero is true, as Python's).
std::vector<bool> read_predicate(const Workspace& ws);

// The shapes of `in`'s samples whose predicate equals `side`.
std::vector<Shape> shapes_where(const TensorList& in, const std::vector<bool>& pred, bool side);

// The sample copies of a split (`merge` false) or a merge: sample i of the whole batch goes to,
// or comes from, position k of its branch's batch. `branch[0]` is the true branch's batch.
std::vector<kernels::SampleCopy> branch_copies(const std::vector<bool>& pred,
                                               const TensorList& whole, const TensorList* branch[2],
                                               bool merge);

// What the CPU and GPU split share: reads the predicate, sizes the two branches (outputs 0 and 1)
// and returns the copies that fill them, one per input sample.
std::vector<kernels::SampleCopy> prepare_split(Workspace& ws);

}  // namespace sluice
