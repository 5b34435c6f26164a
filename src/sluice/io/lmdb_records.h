#pragma once
// The records of Caffe and Caffe2 LMDB databases: caffe.Datum and caffe2.TensorProtos, read by a
// small protobuf wire-format reader (proto2: varints, fixed32/64, length-delimited fields, packed
// and unpacked repeated numbers; unknown fields are skipped).
//
// Every length is checked against the bytes left before it is used, so a corrupted record can
// only raise DecodeError naming `source` (the database and key) and the byte offset.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// caffe.Datum.
struct CaffeDatum {
  int32_t channels = 0, height = 0, width = 0;
  std::string_view data;  // points into the record
  bool has_data = false;
  int32_t label = 0;
  bool has_label = false;
  bool encoded = false;
  bool has_encoded = false;
  std::vector<float> float_data;
};
CaffeDatum parse_caffe_datum(std::span<const uint8_t> record, const std::string& source);

// caffe2.TensorProto (the fields the reader uses) and TensorProtos.
struct Caffe2Tensor {
  enum DataType : int32_t {
    kUndefined = 0,
    kFloat = 1,
    kInt32 = 2,
    kByte = 3,
    kString = 4,
    kInt64 = 10
  };
  std::vector<int64_t> dims;
  int32_t data_type = kFloat;  // proto2 default
  std::vector<float> float_data;
  std::vector<int32_t> int32_data;
  std::vector<int64_t> int64_data;
  std::string_view byte_data;
  std::vector<std::string_view> string_data;
};
std::vector<Caffe2Tensor> parse_caffe2_protos(std::span<const uint8_t> record,
                                              const std::string& source);

}  // namespace sluice
