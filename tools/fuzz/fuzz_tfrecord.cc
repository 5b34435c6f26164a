// libFuzzer target: TFRecord framing and tf.train.Example parsing (io/tfrecord.h,
// io/tfrecord_example.h), as readers.tfrecord runs them on one record.
//
// The input is the record's bytes as the index gives them. tfrecord_payload (with or without
// the CRC check) may only raise IOError; the payload must lie inside the record. The Example
// parser may only raise IOError; on success every feature's shape under a few declarations
// chosen from the input is computed (InvalidArgument allowed: a declaration the data does not
// fit) and its output written to a buffer of that size, every byte touched. The index parser
// gets the same bytes as text.

#include <cstring>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/io/tfrecord.h"
#include "sluice/io/tfrecord_example.h"

namespace {

using namespace sluice;
using sluice::fuzz::Choices;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

volatile uint64_t g_sink;

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = {"image/encoded", "label", "a", "b", ""};
  return n;
}

FeatureSpec choose_spec(Choices& c, const std::string& name) {
  FeatureSpec s;
  s.name = name;
  s.kind = static_cast<FeatureKind>(1 + c.below(3));
  s.fixed = s.kind == FeatureKind::kBytes || c.one_in(2);
  if (s.kind == FeatureKind::kBytes) {
    if (c.one_in(2)) s.shape = {1};
    s.default_bytes = c.one_in(2) ? "default" : "";
  } else if (s.fixed) {
    for (int d = static_cast<int>(c.below(3)); d > 0; --d) s.shape.push_back(c.below(4));
  } else if (c.one_in(2)) {
    s.partial_shape = {1 + c.below(3)};
  }
  s.default_int = static_cast<int64_t>(c.next());
  s.default_float = 1.5f;
  return s;
}

void check_example(std::span<const uint8_t> payload, Choices& c) {
  static const ExampleParser parser(names());
  std::vector<FeatureValues> values;
  try {
    parser.parse(payload, values);
  } catch (const IOError& e) {
    sluice::fuzz::note_expected("ExampleParser::parse", e);
    return;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("ExampleParser::parse", e);
  }
  if (values.size() != names().size()) fuzz_fail("one FeatureValues per name expected");
  for (size_t k = 0; k < values.size(); ++k) {
    const FeatureValues& v = values[k];
    for (auto b : v.bytes) {
      if (b.data() < payload.data() || b.data() + b.size() > payload.data() + payload.size()) {
        fuzz_fail("a bytes value points outside the payload");
      }
    }
    FeatureSpec spec = choose_spec(c, names()[k]);
    try {
      validate_feature_spec(spec);
      Shape shape = feature_shape(spec, v);
      int64_t n = volume(shape);
      if (n < 0 || n > (int64_t{1} << 28)) fuzz_fail("absurd output volume");
      std::vector<uint8_t> out(static_cast<size_t>(n) * dtype_size(feature_dtype(spec)));
      write_feature(spec, v, shape, out.data());
      g_sink = g_sink + sluice::fuzz::touch_bytes(out.data(), out.size());
    } catch (const InvalidArgument& e) {
      sluice::fuzz::note_expected("feature_shape", e);
    } catch (const std::exception& e) {
      fuzz_fail_unexpected("feature_shape / write_feature", e);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> record(data, size);
  Choices c(data, size);
  // The bytes as a framed record, then directly as an Example payload.
  for (bool check_crc : {false, true}) {
    try {
      auto payload = tfrecord_payload(record, check_crc, 0);
      if (payload.data() < data || payload.data() + payload.size() > data + size) {
        fuzz_fail("the payload lies outside the record");
      }
      if (!check_crc) check_example(payload, c);
    } catch (const IOError& e) {
      sluice::fuzz::note_expected("tfrecord_payload", e);
    } catch (const std::exception& e) {
      fuzz_fail_unexpected("tfrecord_payload", e);
    }
  }
  check_example(record, c);
  try {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const RecordSpan& r : parse_tfrecord_index(text, 1 << 20, "fuzz.idx")) {
      if (r.offset < 0 || r.size < kTFRecordOverhead || r.offset + r.size > (1 << 20)) {
        fuzz_fail("an index entry outside the file was accepted");
      }
    }
  } catch (const IOError& e) {
    sluice::fuzz::note_expected("parse_tfrecord_index", e);
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_tfrecord_index", e);
  }
  return 0;
}
