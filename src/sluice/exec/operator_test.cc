// operator_batch_size: how many samples an operator runs on, inside and outside conditional
// branches.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/exec/operator.h"

namespace sluice {
namespace {

TensorList batch(int n) {
  TensorList t;
  t.resize_uniform(n, {2}, DType::kUInt8);
  return t;
}

OpSpec spec_of(const OpSchema& schema) {
  OpSpec s;
  s.type = schema.name();
  s.name = "op";
  s.schema = &schema;
  return s;
}

TEST(OperatorBatchSize, InputsDecideElseTheIteration) {
  const OpSchema plain("plain");
  const OpSpec s = spec_of(plain);
  TensorList three = batch(3), none = batch(0);
  EXPECT_EQ(operator_batch_size(s, {}, {}, 8), 8);  // a source, or an operator without inputs
  EXPECT_EQ(operator_batch_size(s, {&three}, {{"arg", &three}}, 8), 3);  // a branch's share
  EXPECT_EQ(operator_batch_size(s, {}, {{"arg", &three}}, 8), 3);
  EXPECT_EQ(operator_batch_size(s, {&none}, {}, 8), 0);  // an empty branch
}

TEST(OperatorBatchSize, InputsOfDifferentCountsAreRefusedUnlessTheSchemaTakesThem) {
  const OpSchema plain("plain");
  TensorList three = batch(3), five = batch(5);
  try {
    operator_batch_size(spec_of(plain), {&three}, {{"predicate", &five}}, 8);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("input 0 has 3 samples, argument 'predicate' has 5"),
              std::string::npos)
        << e.what();
  }
  OpSchema merge("merge");
  merge.uneven_inputs();
  EXPECT_EQ(operator_batch_size(spec_of(merge), {&three, &five}, {{"predicate", &five}}, 8), 5);
}

}  // namespace
}  // namespace sluice
