#include "sluice/io/index_text.h"

#include <algorithm>

#include "sluice/core/error.h"

namespace sluice {

bool IndexNumbers::next(int64_t* value, int* line) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++line_;
      ++pos_;
      continue;
    }
    if (blank(c)) {
      ++pos_;
      continue;
    }
    if (c < '0' || c > '9') {
      throw IOError(
          make_string("index '", name_, "' line ", line_, ": expected '", expected_, "', found '",
                      text_.substr(pos_, std::min<size_t>(20, text_.size() - pos_)), "'"));
    }
    int64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (v > (INT64_MAX - 9) / 10) {
        throw IOError(make_string("index '", name_, "' line ", line_, ": number too large"));
      }
      v = v * 10 + (text_[pos_++] - '0');
    }
    *value = v;
    *line = line_;
    return true;
  }
  return false;
}

}  // namespace sluice
