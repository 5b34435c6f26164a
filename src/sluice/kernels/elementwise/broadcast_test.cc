// Broadcast output shapes and errors as DALI gives them, and the merging of dimensions that
// broadcast alike.

#include "sluice/kernels/elementwise/broadcast.h"

#include <gtest/gtest.h>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

Shape bcast(std::vector<Shape> shapes) {
  std::vector<const Shape*> p;
  for (auto& s : shapes) p.push_back(&s);
  return broadcast_shape(p, 0);
}

TEST(Broadcast, ShapesAlignAtTheLastDimension) {
  EXPECT_EQ(bcast({{2, 3}, {3}}), (Shape{2, 3}));
  EXPECT_EQ(bcast({{2, 1}, {1, 3}}), (Shape{2, 3}));
  EXPECT_EQ(bcast({{2, 1, 3}, {4, 1}}), (Shape{2, 4, 3}));
  EXPECT_EQ(bcast({{2, 3}, {}}), (Shape{2, 3}));
  EXPECT_EQ(bcast({{0, 3}, {1, 3}}), (Shape{0, 3}));
  EXPECT_EQ(bcast({{2, 3}, {4, 1, 1}, {3}}), (Shape{4, 2, 3}));
  const Shape a{2, 3};
  const Shape* with_scalar[] = {&a, nullptr};
  EXPECT_EQ(broadcast_shape(with_scalar, 0), a);
}

TEST(Broadcast, IncompatibleShapesGiveDalisMessage) {
  const Shape a{2, 3}, b{2};
  const Shape* p[] = {&a, &b};
  try {
    broadcast_shape(p, 4);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(),
                 "Can't broadcast shapes: \n2 x 3 (d=1, belonging to sample_idx=4)\n2 (d=0, "
                 "belonging to sample_idx=4)\n");
  }
  EXPECT_THROW(bcast({{0, 3}, {2, 3}}), InvalidArgument);
}

TEST(Broadcast, MergesDimensionsThatBroadcastAlike) {
  const Shape a{4, 5, 6}, b{1, 1, 6}, out{4, 5, 6};
  const Shape* shapes[] = {&a, &b};
  const void* data[] = {nullptr, nullptr};
  ArithSampleDesc d;
  describe_arith_sample(d, nullptr, out, data, shapes);
  ASSERT_EQ(d.ndim, 2);
  EXPECT_EQ(d.shape[0], 20);
  EXPECT_EQ(d.shape[1], 6);
  EXPECT_EQ(d.in[0].stride[0], 6);
  EXPECT_EQ(d.in[0].stride[1], 1);
  EXPECT_EQ(d.in[1].stride[0], 0);
  EXPECT_EQ(d.in[1].stride[1], 1);

  const Shape same{3, 4, 5};
  const Shape* two_same[] = {&same, &same};
  describe_arith_sample(d, nullptr, same, data, two_same);
  EXPECT_EQ(d.ndim, 1);
  EXPECT_EQ(d.shape[0], 60);

  const Shape x{1, 2, 1, 2, 1, 2, 1}, y{2, 1, 2, 1, 2, 1, 2}, o{2, 2, 2, 2, 2, 2, 2};
  const Shape* alternating[] = {&x, &y};
  EXPECT_THROW(describe_arith_sample(d, nullptr, o, data, alternating), InvalidArgument);
}

}  // namespace
}  // namespace sluice::kernels
