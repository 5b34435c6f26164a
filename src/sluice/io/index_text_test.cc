#include "sluice/io/index_text.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"

namespace sluice {
namespace {

using io_detail::expect_error;

std::vector<std::pair<int64_t, int>> all_numbers(std::string_view text) {
  IndexNumbers numbers(text, "n.idx", "a b");
  std::vector<std::pair<int64_t, int>> out;
  int64_t v;
  int line;
  while (numbers.next(&v, &line)) out.emplace_back(v, line);
  return out;
}

TEST(IndexNumbers, ReadsNumbersWithTheirLines) {
  using P = std::pair<int64_t, int>;
  EXPECT_EQ(all_numbers("1 2\n\t30\r\n\n\v\f1099511627776"),
            (std::vector<P>{{1, 1}, {2, 1}, {30, 2}, {1099511627776, 4}}));
  EXPECT_TRUE(all_numbers("").empty());
  EXPECT_TRUE(all_numbers(" \n\n").empty());
}

TEST(IndexNumbers, NamesTheIndexAndLineOfBadText) {
  expect_error<IOError>([] { all_numbers("1 2\n3 x4\n"); },
                        {"index 'n.idx' line 2", "expected 'a b'", "found 'x4"});
  expect_error<IOError>([] { all_numbers("0 -1"); }, {"line 1", "found '-1'"});
  expect_error<IOError>([] { all_numbers("\n\n99999999999999999999"); },
                        {"index 'n.idx' line 3: number too large"});
}

}  // namespace
}  // namespace sluice
