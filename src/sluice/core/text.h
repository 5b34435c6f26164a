#pragma once
// Small text helpers shared by the parsers of list, index and config files.

#include <string_view>

namespace sluice {

// Space, tab and the other blanks a line of a text file may carry (not '\n').
constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

// `s` without leading and trailing blanks.
constexpr std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace sluice
