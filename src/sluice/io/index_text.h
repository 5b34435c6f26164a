#pragma once
// The text index files of the record readers (MXNet .idx, TFRecord .idx): whole numbers
// separated by blanks and newlines, read one at a time with the line each stands on.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace sluice {

class IndexNumbers {
 public:
  // `name` names the index in errors; `expected` says what a line holds (e.g. "offset size").
  IndexNumbers(std::string_view text, std::string name, std::string_view expected)
      : text_(text), name_(std::move(name)), expected_(expected) {}

  // The next number and its (1-based) line; false at the end of the text. Anything but digits
  // and blanks, or a number past int64, is an IOError naming the index and the line.
  bool next(int64_t* value, int* line);

 private:
  std::string_view text_;
  std::string name_;
  std::string_view expected_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace sluice
