#include "sluice/io/lmdb_records.h"

#include <bit>
#include <cstring>

#include "sluice/core/error.h"

namespace sluice {
namespace {

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// A cursor over protobuf wire-format bytes; every read is bounds-checked.
class Wire {
 public:
  Wire(std::span<const uint8_t> bytes, const std::string& source, const char* message,
       size_t base = 0)
      : p_(bytes.data()), n_(bytes.size()), source_(source), message_(message), base_(base) {}

  bool done() const { return pos_ >= n_; }

  [[noreturn]] void fail(const std::string& why) const {
    throw DecodeError(make_string("'", source_, "': malformed ", message_, " record at byte ",
                                  base_ + pos_, ": ", why));
  }

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= n_) fail("truncated varint");
      const uint8_t b = p_[pos_++];
      if (shift == 63 && (b & 0x7E)) fail("varint overflows 64 bits");
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("varint longer than 10 bytes");
  }

  template <typename T>
  T fixed() {
    if (n_ - pos_ < sizeof(T)) fail("truncated fixed-size field");
    T v;
    std::memcpy(&v, p_ + pos_, sizeof(T));  // protobuf is little-endian, as the hosts here
    pos_ += sizeof(T);
    return v;
  }

  // The bytes of a length-delimited field, and the offset where they start.
  std::span<const uint8_t> bytes(size_t* at = nullptr) {
    const uint64_t len = varint();
    if (len > n_ - pos_) fail(make_string("field length ", len, " exceeds the record"));
    if (at != nullptr) *at = base_ + pos_;
    std::span<const uint8_t> out(p_ + pos_, static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
    return out;
  }

  // The next field's number and wire type.
  uint32_t tag(int* type) {
    const uint64_t t = varint();
    *type = static_cast<int>(t & 7);
    if ((t >> 3) == 0 || (t >> 3) > 0x1FFFFFFF) fail("invalid field number");
    if (*type != kVarint && *type != kFixed64 && *type != kLengthDelimited && *type != kFixed32) {
      fail(make_string("unsupported wire type ", *type));
    }
    return static_cast<uint32_t>(t >> 3);
  }

  void skip(int type) {
    switch (type) {
      case kVarint:
        varint();
        break;
      case kFixed64:
        fixed<uint64_t>();
        break;
      case kFixed32:
        fixed<uint32_t>();
        break;
      default:
        bytes();
        break;
    }
  }

  // A repeated number field, packed (one length-delimited run) or not (one value).
  template <typename T, typename Read>
  void repeated(int type, int scalar_type, std::vector<T>& out, Read read_one) {
    if (type == kLengthDelimited) {
      size_t at = 0;
      const std::span<const uint8_t> packed = bytes(&at);  // before `at` is read
      Wire run(packed, source_, message_, at);
      while (!run.done()) out.push_back(read_one(run));
    } else if (type == scalar_type) {
      out.push_back(read_one(*this));
    } else {
      skip(type);
    }
  }

  std::string_view view(std::span<const uint8_t> b) const {
    return std::string_view(reinterpret_cast<const char*>(b.data()), b.size());
  }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
  const std::string& source_;
  const char* message_;
  size_t base_;
};

float read_float(Wire& w) {
  return std::bit_cast<float>(w.fixed<uint32_t>());
}
int32_t read_int32(Wire& w) {
  return static_cast<int32_t>(w.varint());
}
int64_t read_int64(Wire& w) {
  return static_cast<int64_t>(w.varint());
}

Caffe2Tensor parse_tensor(std::span<const uint8_t> bytes, const std::string& source, size_t base) {
  Wire w(bytes, source, "Caffe2 TensorProto", base);
  Caffe2Tensor t;
  while (!w.done()) {
    int type = 0;
    switch (w.tag(&type)) {
      case 1:
        w.repeated(type, kVarint, t.dims, read_int64);
        break;
      case 2:
        if (type == kVarint)
          t.data_type = read_int32(w);
        else
          w.skip(type);
        break;
      case 3:
        w.repeated(type, kFixed32, t.float_data, read_float);
        break;
      case 4:
        w.repeated(type, kVarint, t.int32_data, read_int32);
        break;
      case 5:
        if (type == kLengthDelimited)
          t.byte_data = w.view(w.bytes());
        else
          w.skip(type);
        break;
      case 6:
        if (type == kLengthDelimited)
          t.string_data.push_back(w.view(w.bytes()));
        else
          w.skip(type);
        break;
      case 10:
        w.repeated(type, kVarint, t.int64_data, read_int64);
        break;
      default:
        w.skip(type);
        break;
    }
  }
  return t;
}

}  // namespace

CaffeDatum parse_caffe_datum(std::span<const uint8_t> record, const std::string& source) {
  Wire w(record, source, "Caffe Datum");
  CaffeDatum d;
  while (!w.done()) {
    int type = 0;
    const uint32_t field = w.tag(&type);
    const bool varint = type == kVarint;
    switch (field) {
      case 1:
        if (varint) {
          d.channels = read_int32(w);
          continue;
        }
        break;
      case 2:
        if (varint) {
          d.height = read_int32(w);
          continue;
        }
        break;
      case 3:
        if (varint) {
          d.width = read_int32(w);
          continue;
        }
        break;
      case 4:
        if (type == kLengthDelimited) {
          d.data = w.view(w.bytes());
          d.has_data = true;
          continue;
        }
        break;
      case 5:
        if (varint) {
          d.label = read_int32(w);
          d.has_label = true;
          continue;
        }
        break;
      case 6:
        w.repeated(type, kFixed32, d.float_data, read_float);
        continue;
      case 7:
        if (varint) {
          d.encoded = w.varint() != 0;
          d.has_encoded = true;
          continue;
        }
        break;
      default:
        break;
    }
    w.skip(type);
  }
  return d;
}

std::vector<Caffe2Tensor> parse_caffe2_protos(std::span<const uint8_t> record,
                                              const std::string& source) {
  Wire w(record, source, "Caffe2 TensorProtos");
  std::vector<Caffe2Tensor> out;
  while (!w.done()) {
    int type = 0;
    if (w.tag(&type) == 1 && type == kLengthDelimited) {
      size_t at = 0;
      auto b = w.bytes(&at);
      out.push_back(parse_tensor(b, source, at));
    } else {
      w.skip(type);
    }
  }
  return out;
}

}  // namespace sluice
