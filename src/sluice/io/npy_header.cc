#include "sluice/io/npy_header.h"

#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/core/error.h"

namespace sluice {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

[[noreturn]] void bad(const std::string& what) {
  throw DecodeError("not a valid .npy file: " + what);
}

// A cursor over the dict text; positions in messages are file offsets.
class Cursor {
 public:
  Cursor(std::string_view text, size_t base) : text_(text), base_(base) {}

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  bool try_take(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void take(char c, const char* what) {
    if (!try_take(c)) fail(make_string("expected ", what));
  }
  bool try_word(std::string_view w) {
    skip_space();
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  std::string string_literal() {
    skip_space();
    char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    ++pos_;
    std::string out;
    while (!at_end() && text_[pos_] != q) {
      if (text_[pos_] == '\\') fail("escape sequences are not supported");
      out += text_[pos_++];
    }
    if (at_end()) fail("unterminated string");
    ++pos_;
    return out;
  }
  int64_t integer() {
    skip_space();
    bool neg = false;
    if (peek() == '-' || peek() == '+') neg = text_[pos_++] == '-';
    if (peek() < '0' || peek() > '9') fail("expected a number");
    uint64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      v = v * 10 + static_cast<uint64_t>(text_[pos_++] - '0');
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) fail("number too large");
    }
    if (peek() == 'L' || peek() == 'l') ++pos_;  // Python 2 long
    if (neg && v != 0) fail(make_string("negative dimension -", v));
    return static_cast<int64_t>(v);
  }
  [[noreturn]] void fail(const std::string& what) const {
    bad(make_string("in the header at byte ", base_ + pos_, ": ", what));
  }

 private:
  std::string_view text_;
  size_t base_;
  size_t pos_ = 0;
};

std::optional<DType> dtype_from_descr(const std::string& d) {
  if (d.size() < 2) return std::nullopt;
  char order = d[0];
  std::string_view code(d);
  if (order == '<' || order == '>' || order == '|' || order == '=') code.remove_prefix(1);
  struct Entry {
    std::string_view code;
    DType type;
  };
  static constexpr Entry kTypes[] = {
      {"b1", DType::kBool},    {"?", DType::kBool},     {"i1", DType::kInt8},
      {"i2", DType::kInt16},   {"i4", DType::kInt32},   {"i8", DType::kInt64},
      {"u1", DType::kUInt8},   {"u2", DType::kUInt16},  {"u4", DType::kUInt32},
      {"u8", DType::kUInt64},  {"f2", DType::kFloat16}, {"f4", DType::kFloat32},
      {"f8", DType::kFloat64},
  };
  for (const Entry& e : kTypes) {
    if (e.code == code) {
      if (order == '>' && dtype_size(e.type) > 1) {
        bad(make_string("big-endian data ('", d, "') is not supported"));
      }
      return e.type;
    }
  }
  return std::nullopt;
}

}  // namespace

size_t npy_header_size(std::span<const uint8_t> prelude) {
  if (prelude.size() < 10) bad(make_string("the file is only ", prelude.size(), " bytes long"));
  if (std::memcmp(prelude.data(), kMagic, kMagicSize) != 0) {
    bad("the magic string \\x93NUMPY is missing");
  }
  const int major = prelude[6];
  if (major < 1 || major > 3) {
    bad(make_string("unsupported format version ", major, ".", int{prelude[7]}));
  }
  size_t len_bytes = major == 1 ? 2 : 4;
  if (prelude.size() < 8 + len_bytes) {
    bad(make_string("the file is only ", prelude.size(), " bytes long"));
  }
  uint64_t len = 0;
  for (size_t i = 0; i < len_bytes; ++i) len |= uint64_t{prelude[8 + i]} << (8 * i);
  uint64_t total = 8 + len_bytes + len;
  if (total > kMaxNpyHeaderSize) {
    bad(make_string("the header is ", total, " bytes, more than the limit of ", kMaxNpyHeaderSize));
  }
  return static_cast<size_t>(total);
}

NpyHeader parse_npy_header(std::span<const uint8_t> bytes) {
  const size_t total = npy_header_size(bytes);
  if (bytes.size() < total) {
    bad(make_string("the header needs ", total, " bytes but the file has ", bytes.size()));
  }
  const size_t start = bytes[6] == 1 ? 10 : 12;
  std::string_view text(reinterpret_cast<const char*>(bytes.data()) + start, total - start);
  Cursor c(text, start);
  NpyHeader h;
  h.data_offset = static_cast<int64_t>(total);
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<int64_t>> shape;

  c.take('{', "'{'");
  while (!c.try_take('}')) {
    std::string key = c.string_literal();
    c.take(':', "':'");
    if (key == "descr") {
      c.skip_space();
      if (c.peek() == '[') c.fail("structured dtypes are not supported");
      descr = c.string_literal();
    } else if (key == "fortran_order") {
      if (c.try_word("True")) {
        fortran = true;
      } else if (c.try_word("False")) {
        fortran = false;
      } else {
        c.fail("expected True or False for 'fortran_order'");
      }
    } else if (key == "shape") {
      c.take('(', "'(' starting the shape");
      std::vector<int64_t> dims;
      while (!c.try_take(')')) {
        if (static_cast<int>(dims.size()) == kMaxNpyDims) {
          c.fail(make_string("shape with more than ", kMaxNpyDims, " dimensions"));
        }
        dims.push_back(c.integer());
        if (!c.try_take(',')) {
          c.take(')', "',' or ')' in the shape");
          break;
        }
      }
      shape = std::move(dims);
    } else {
      c.fail(make_string("unexpected key '", key, "'"));
    }
    if (!c.try_take(',')) {
      c.take('}', "',' or '}'");
      break;
    }
  }
  if (!descr) bad("the header has no 'descr'");
  if (!fortran) bad("the header has no 'fortran_order'");
  if (!shape) bad("the header has no 'shape'");
  std::optional<DType> type = dtype_from_descr(*descr);
  if (!type) bad(make_string("unsupported data type '", *descr, "'"));
  h.dtype = *type;
  h.fortran_order = *fortran;
  h.shape = std::move(*shape);
  const auto limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t n = 1;
  for (int64_t d : h.shape) {
    if (d != 0 && n > limit / static_cast<uint64_t>(d)) bad("the array size overflows");
    n *= static_cast<uint64_t>(d);
  }
  if (n > limit / dtype_size(h.dtype)) bad("the array size overflows");
  h.num_elements = static_cast<int64_t>(n);
  h.data_bytes = static_cast<int64_t>(n * dtype_size(h.dtype));
  return h;
}

}  // namespace sluice
