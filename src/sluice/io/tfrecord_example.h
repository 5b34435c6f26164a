#pragma once
// tf.train.Example, parsed from the protobuf wire format for the features a reader asks for.
//
// Example { Features features = 1; }  Features { map<string, Feature> feature = 1; }
// Feature { oneof { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; }
// } with each list a `repeated value = 1` (floats and int64s packed or not). Protobuf's rules
// apply: unknown fields are skipped, a repeated message field merges, a later map entry with
// the same key replaces an earlier one, and a later kind of the oneof replaces an earlier one.
// Malformed bytes (a length past the end, a varint over 10 bytes, field number 0, an unknown
// wire type, groups nested deeper than 64) are IOError naming the byte position.
//
// Thread safety: ExampleParser is immutable after construction; parse() may run concurrently
// with distinct outputs.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"

namespace sluice {

enum class FeatureKind : uint8_t { kNone, kBytes, kFloat, kInt64 };
std::string_view feature_kind_name(FeatureKind k);  // "bytes_list", "float_list", ...

// The values of one feature of one Example. `bytes` point into the parsed payload.
struct FeatureValues {
  bool present = false;  // the Example has an entry with this key
  FeatureKind kind = FeatureKind::kNone;
  std::vector<std::span<const uint8_t>> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  void clear();
};

class ExampleParser {
 public:
  explicit ExampleParser(std::vector<std::string> names);

  // Fills out[i] (resized to the number of names) with the feature named names[i].
  void parse(std::span<const uint8_t> payload, std::vector<FeatureValues>& out) const;

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string_view, int> index_;
};

// A feature as readers.tfrecord declares it (sluice.tfrecord.FixedLenFeature / VarLenFeature).
struct FeatureSpec {
  std::string name;
  FeatureKind kind = FeatureKind::kInt64;  // kBytes for tfrecord.string
  bool fixed = true;
  Shape shape;          // FixedLen: the output shape ([] gives [1])
  Shape partial_shape;  // VarLen: the trailing dimensions, the first one from the count
  std::string default_bytes;
  int64_t default_int = 0;
  float default_float = 0.f;
};

// Checks a declaration (InvalidArgument): strings only as a FixedLen of one value, shapes
// without negative extents, a partial shape of non-zero volume.
void validate_feature_spec(const FeatureSpec& spec);

// The output type: INT64, FLOAT, or UINT8 (the bytes of a string).
DType feature_dtype(const FeatureSpec& spec);

// The output shape of `values` under `spec`: FixedLen numbers have the declared shape (missing
// values are the default; more values than the shape holds is an error); VarLen numbers have
// [count] or [count / volume(partial), *partial]; a string is its first value's bytes (or the
// default's when there is none). InvalidArgument when the Example's list is of another kind
// than declared, or the count does not fit the shape.
Shape feature_shape(const FeatureSpec& spec, const FeatureValues& values);

// Writes the output of `values` (of feature_shape()) to dst.
void write_feature(const FeatureSpec& spec, const FeatureValues& values, const Shape& shape,
                   void* dst);

}  // namespace sluice
