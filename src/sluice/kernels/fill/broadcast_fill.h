#pragma once
// Fills a tensor with a value tensor broadcast to its shape (full, full_like): the shapes align
// at their last dimension; a value extent of 1 repeats, and value dimensions beyond the output's
// take their first index, as DALI's do.

#include <cstddef>

#include "sluice/core/shape.h"

namespace sluice::kernels {

// True when every aligned pair of extents is equal or has a 1 (missing dimensions count as 1).
bool can_broadcast(const Shape& a, const Shape& b);

// `out` of shape `out_shape` from `value` of shape `value_shape` (can_broadcast), elements of
// `elem_size` bytes.
void broadcast_fill_cpu(void* out, const Shape& out_shape, const void* value,
                        const Shape& value_shape, size_t elem_size);

}  // namespace sluice::kernels
