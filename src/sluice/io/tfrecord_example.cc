#include "sluice/io/tfrecord_example.h"

#include <algorithm>
#include <cstring>

#include "sluice/core/error.h"

namespace sluice {
namespace {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kGroupStart = 3,
  kGroupEnd = 4,
  kFixed32 = 5
};
constexpr int kMaxGroupDepth = 64;

// A bounded reader over one message's bytes; `base` is the message's position in the payload,
// for errors.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, const uint8_t* origin)
      : p_(bytes.data()), end_(p_ + bytes.size()), origin_(origin) {}

  bool done() const { return p_ == end_; }
  size_t pos() const { return static_cast<size_t>(p_ - origin_); }

  [[noreturn]] void fail(const char* what) const {
    throw IOError(
        make_string("malformed tf.Example at byte ", pos(), " of the record's data: ", what));
  }

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ == end_) fail("truncated varint");
      uint8_t b = *p_++;
      if (shift == 63 && b > 1) fail("varint over 64 bits");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail("varint over 10 bytes");
  }

  // Reads a field key; returns false at the end of the message.
  bool key(uint32_t& field, uint32_t& wire) {
    if (done()) return false;
    uint64_t k = varint();
    field = static_cast<uint32_t>(k >> 3);
    wire = static_cast<uint32_t>(k & 7);
    if (field == 0 || (k >> 3) > 0x1FFFFFFF) fail("invalid field number");
    return true;
  }

  std::span<const uint8_t> bytes() {
    uint64_t n = varint();
    if (n > static_cast<uint64_t>(end_ - p_)) fail("length runs past the end of the message");
    std::span<const uint8_t> s(p_, static_cast<size_t>(n));
    p_ += n;
    return s;
  }

  const uint8_t* take(size_t n) {
    if (n > static_cast<size_t>(end_ - p_)) fail("fixed-size value runs past the end");
    const uint8_t* s = p_;
    p_ += n;
    return s;
  }

  Cursor sub(std::span<const uint8_t> s) const { return Cursor(s, origin_); }

  // Skips the value of a field of wire type `wire` (a group up to its end key).
  void skip(uint32_t field, uint32_t wire) {
    int depth = 0;
    uint32_t open[kMaxGroupDepth];
    for (;;) {
      switch (wire) {
        case kVarint:
          varint();
          break;
        case kFixed64:
          take(8);
          break;
        case kLen:
          bytes();
          break;
        case kFixed32:
          take(4);
          break;
        case kGroupStart:
          if (depth == kMaxGroupDepth) fail("groups nested too deeply");
          open[depth++] = field;
          break;
        case kGroupEnd:
          if (depth == 0 || open[depth - 1] != field) fail("unmatched end of group");
          --depth;
          break;
        default:
          fail("unknown wire type");
      }
      if (depth == 0) return;
      if (!key(field, wire)) fail("group not closed");
    }
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* origin_;
};

// One list message (BytesList, FloatList, Int64List) merged into `out`.
void parse_list(Cursor c, FeatureKind kind, FeatureValues& out) {
  uint32_t field, wire;
  while (c.key(field, wire)) {
    if (field != 1) {
      c.skip(field, wire);
      continue;
    }
    if (kind == FeatureKind::kBytes && wire == kLen) {
      out.bytes.push_back(c.bytes());
    } else if (kind == FeatureKind::kFloat && wire == kLen) {
      auto s = c.bytes();
      if (s.size() % 4 != 0) c.fail("packed floats not a multiple of 4 bytes");
      size_t n = out.floats.size();
      out.floats.resize(n + s.size() / 4);
      if (!s.empty()) std::memcpy(out.floats.data() + n, s.data(), s.size());
    } else if (kind == FeatureKind::kFloat && wire == kFixed32) {
      float f;
      std::memcpy(&f, c.take(4), 4);
      out.floats.push_back(f);
    } else if (kind == FeatureKind::kInt64 && wire == kLen) {
      Cursor packed = c.sub(c.bytes());
      while (!packed.done()) out.ints.push_back(static_cast<int64_t>(packed.varint()));
    } else if (kind == FeatureKind::kInt64 && wire == kVarint) {
      out.ints.push_back(static_cast<int64_t>(c.varint()));
    } else {
      c.skip(field, wire);
    }
  }
}

void parse_feature(Cursor c, FeatureValues& out) {
  uint32_t field, wire;
  while (c.key(field, wire)) {
    if (field >= 1 && field <= 3 && wire == kLen) {
      auto kind = static_cast<FeatureKind>(field);  // bytes_list = 1, float_list = 2, int64 = 3
      if (out.kind != kind) {  // another member of the oneof replaces the one set before
        out.bytes.clear();
        out.floats.clear();
        out.ints.clear();
        out.kind = kind;
      }
      parse_list(c.sub(c.bytes()), kind, out);
    } else {
      c.skip(field, wire);
    }
  }
}

}  // namespace

std::string_view feature_kind_name(FeatureKind k) {
  switch (k) {
    case FeatureKind::kBytes:
      return "bytes_list";
    case FeatureKind::kFloat:
      return "float_list";
    case FeatureKind::kInt64:
      return "int64_list";
    case FeatureKind::kNone:
      break;
  }
  return "no value";
}

void FeatureValues::clear() {
  present = false;
  kind = FeatureKind::kNone;
  bytes.clear();
  floats.clear();
  ints.clear();
}

ExampleParser::ExampleParser(std::vector<std::string> names) : names_(std::move(names)) {
  for (size_t i = 0; i < names_.size(); ++i) index_[names_[i]] = static_cast<int>(i);
}

void ExampleParser::parse(std::span<const uint8_t> payload, std::vector<FeatureValues>& out) const {
  out.resize(names_.size());
  for (auto& f : out) f.clear();
  Cursor example(payload, payload.data());
  std::vector<std::span<const uint8_t>> values;
  FeatureValues unused;  // features not asked for are parsed too: malformed bytes are an error
  uint32_t field, wire;
  while (example.key(field, wire)) {
    if (field != 1 || wire != kLen) {
      example.skip(field, wire);
      continue;
    }
    Cursor features = example.sub(example.bytes());
    while (features.key(field, wire)) {
      if (field != 1 || wire != kLen) {
        features.skip(field, wire);
        continue;
      }
      // A map entry: its key and value fields may come in any order, and repeat.
      Cursor entry = features.sub(features.bytes());
      std::string_view key;
      values.clear();
      while (entry.key(field, wire)) {
        if (field == 1 && wire == kLen) {
          auto s = entry.bytes();
          key = std::string_view(reinterpret_cast<const char*>(s.data()), s.size());
        } else if (field == 2 && wire == kLen) {
          values.push_back(entry.bytes());
        } else {
          entry.skip(field, wire);
        }
      }
      auto it = index_.find(key);
      if (it == index_.end()) {
        unused.clear();
        for (auto v : values) parse_feature(entry.sub(v), unused);
        continue;
      }
      FeatureValues& f = out[it->second];
      f.clear();
      f.present = true;
      for (auto v : values) parse_feature(entry.sub(v), f);
    }
  }
}

void validate_feature_spec(const FeatureSpec& spec) {
  auto where = [&] { return make_string("feature '", spec.name, "': "); };
  for (int64_t d : spec.fixed ? spec.shape : spec.partial_shape) {
    SLUICE_CHECK(d >= 0, InvalidArgument, where(), "negative extent in shape ",
                 shape_to_string(spec.fixed ? spec.shape : spec.partial_shape));
  }
  if (spec.kind == FeatureKind::kBytes) {
    SLUICE_CHECK(spec.fixed && volume(spec.shape) <= 1, InvalidArgument, where(),
                 "Tensors of strings are not supported: a string feature is a FixedLenFeature "
                 "of shape [] or [1] (its first value's bytes)");
  }
  if (!spec.fixed && !spec.partial_shape.empty()) {
    SLUICE_CHECK(volume(spec.partial_shape) > 0, InvalidArgument, where(),
                 "the partial shape must not have a zero extent");
  }
}

DType feature_dtype(const FeatureSpec& spec) {
  switch (spec.kind) {
    case FeatureKind::kInt64:
      return DType::kInt64;
    case FeatureKind::kFloat:
      return DType::kFloat32;
    default:
      return DType::kUInt8;
  }
}

Shape feature_shape(const FeatureSpec& spec, const FeatureValues& values) {
  SLUICE_CHECK(values.kind == FeatureKind::kNone || values.kind == spec.kind, InvalidArgument,
               "feature '", spec.name, "' holds a ", feature_kind_name(values.kind),
               ", declared as ", feature_kind_name(spec.kind));
  if (spec.kind == FeatureKind::kBytes) {
    size_t n = values.bytes.empty() ? spec.default_bytes.size() : values.bytes[0].size();
    return {static_cast<int64_t>(n)};
  }
  int64_t count = static_cast<int64_t>(spec.kind == FeatureKind::kInt64 ? values.ints.size()
                                                                        : values.floats.size());
  if (spec.fixed) {
    Shape shape = spec.shape.empty() ? Shape{1} : spec.shape;
    SLUICE_CHECK(count <= volume(shape), InvalidArgument, "feature '", spec.name, "' has ", count,
                 " values, more than its shape ", shape_to_string(shape), " holds");
    return shape;
  }
  if (spec.partial_shape.empty()) return {count};
  int64_t m = volume(spec.partial_shape);
  SLUICE_CHECK(count % m == 0, InvalidArgument, "feature '", spec.name, "' has ", count,
               " values, not a multiple of its partial shape ",
               shape_to_string(spec.partial_shape));
  Shape shape{count / m};
  shape.insert(shape.end(), spec.partial_shape.begin(), spec.partial_shape.end());
  return shape;
}

void write_feature(const FeatureSpec& spec, const FeatureValues& values, const Shape& shape,
                   void* dst) {
  const size_t n = static_cast<size_t>(volume(shape));
  switch (spec.kind) {
    case FeatureKind::kBytes: {
      const uint8_t* src = values.bytes.empty()
                               ? reinterpret_cast<const uint8_t*>(spec.default_bytes.data())
                               : values.bytes[0].data();
      if (n > 0) std::memcpy(dst, src, n);
      break;
    }
    case FeatureKind::kInt64: {
      auto* out = static_cast<int64_t*>(dst);
      size_t k = std::min(n, values.ints.size());
      std::copy_n(values.ints.begin(), k, out);
      std::fill(out + k, out + n, spec.default_int);
      break;
    }
    case FeatureKind::kFloat: {
      auto* out = static_cast<float*>(dst);
      size_t k = std::min(n, values.floats.size());
      std::copy_n(values.floats.begin(), k, out);
      std::fill(out + k, out + n, spec.default_float);
      break;
    }
    case FeatureKind::kNone:
      break;
  }
}

}  // namespace sluice
