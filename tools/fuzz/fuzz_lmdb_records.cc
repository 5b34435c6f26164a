// libFuzzer target: the Caffe / Caffe2 LMDB record parsers (io/lmdb_records.h).
//
// Every input is parsed as a caffe.Datum and as caffe2.TensorProtos. Each may only raise
// DecodeError; what parses must point into the input only (the views of data, byte_data and
// string_data), and a Datum written back in canonical form must parse to the same fields.

#include <cstring>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/io/lmdb_records.h"

namespace {

using namespace sluice;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

void check_inside(std::string_view v, const std::vector<uint8_t>& in, const char* what) {
  if (v.empty()) return;
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  if (p < in.data() || p + v.size() > in.data() + in.size()) fuzz_fail(what, "points outside");
}

void varint(std::string& out, uint64_t v) {
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    out.push_back(static_cast<char>(b | (v ? 0x80 : 0)));
  } while (v);
}

std::string encode(const CaffeDatum& d) {
  std::string out;
  auto vint = [&](int field, int64_t v) {
    varint(out, static_cast<uint64_t>(field) << 3);
    varint(out, static_cast<uint64_t>(v));
  };
  vint(1, d.channels);
  vint(2, d.height);
  vint(3, d.width);
  if (d.has_data) {
    varint(out, 4 << 3 | 2);
    varint(out, d.data.size());
    out.append(d.data);
  }
  if (d.has_label) vint(5, d.label);
  if (!d.float_data.empty()) {
    varint(out, 6 << 3 | 2);
    varint(out, d.float_data.size() * 4);
    out.append(reinterpret_cast<const char*>(d.float_data.data()), d.float_data.size() * 4);
  }
  if (d.has_encoded) vint(7, d.encoded ? 1 : 0);
  return out;
}

bool same(const CaffeDatum& a, const CaffeDatum& b) {
  return a.channels == b.channels && a.height == b.height && a.width == b.width &&
         a.has_data == b.has_data && a.data == b.data && a.has_label == b.has_label &&
         a.label == b.label && a.has_encoded == b.has_encoded && a.encoded == b.encoded &&
         a.float_data.size() == b.float_data.size() &&
         (a.float_data.empty() ||
          std::memcmp(a.float_data.data(), b.float_data.data(), a.float_data.size() * 4) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size heap copy, so that ASan catches a read one byte past the end.
  const std::vector<uint8_t> in(data, data + size);
  const std::string source = "fuzz at key k";
  try {
    const CaffeDatum d = parse_caffe_datum(in, source);
    check_inside(d.data, in, "Datum.data");
    const std::string again = encode(d);
    const CaffeDatum back =
        parse_caffe_datum({reinterpret_cast<const uint8_t*>(again.data()), again.size()}, source);
    if (!same(d, back)) fuzz_fail("a Datum does not survive encode + parse");
  } catch (const DecodeError& e) {
    sluice::fuzz::note_expected("parse_caffe_datum", e);
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_caffe_datum", e);
  }
  try {
    for (const Caffe2Tensor& t : parse_caffe2_protos(in, source)) {
      check_inside(t.byte_data, in, "TensorProto.byte_data");
      for (std::string_view s : t.string_data) check_inside(s, in, "TensorProto.string_data");
      if (t.float_data.size() + t.int32_data.size() + t.int64_data.size() + t.dims.size() > size) {
        fuzz_fail("more values than input bytes");
      }
    }
  } catch (const DecodeError& e) {
    sluice::fuzz::note_expected("parse_caffe2_protos", e);
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_caffe2_protos", e);
  }
  return 0;
}
