// libFuzzer target: the COCO annotations parser of readers.coco (parse_coco_annotations), with
// options drawn from the input, and the rasterisation of every sample's pixelwise label mask.
//
// A malformed document may only raise sluice::InvalidArgument. On success the result must be
// consistent: every per-sample range lies inside its array, every polygon names an object of
// its sample and vertices of its sample, every RLE mask covers its image; then the label mask
// of each small sample (whose vertices lie near the image) is drawn. Any other exception, crash,
// hang or sanitizer report is a bug.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/io/coco_annotations.h"

namespace {

using namespace sluice;
using sluice::fuzz::Choices;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

volatile uint64_t g_sink;

void check_range(const CocoRange& r, size_t size, const char* what) {
  if (r.offset < 0 || r.count < 0 || static_cast<size_t>(r.offset + r.count) > size) {
    fuzz_fail("range outside its array:", what);
  }
}

void check(const CocoAnnotations& a, const CocoOptions& o) {
  const size_t n = a.size();
  if (a.objects.size() != n || a.labels.size() != a.boxes.size()) fuzz_fail("object arrays");
  if (o.image_ids && a.image_ids.size() != n) fuzz_fail("image ids");
  for (size_t i = 0; i < n; ++i) {
    check_range(a.objects[i], a.boxes.size(), "objects");
    if (o.skip_empty && a.objects[i].count == 0) fuzz_fail("skip_empty kept an empty image");
    if (!o.polygons) continue;
    check_range(a.polygon_ranges[i], a.polygons.size(), "polygons");
    check_range(a.vertex_ranges[i], a.vertices.size(), "vertices");
    for (const auto& [object, first, end] : a.sample_polygons(i)) {
      if (object < 0 || object >= a.objects[i].count || first < 0 || first > end ||
          end > a.vertex_ranges[i].count) {
        fuzz_fail("polygon outside its sample");
      }
    }
    if (!o.rles) continue;
    check_range(a.rle_ranges[i], a.rles.size(), "rles");
    const CocoSampleMasks m = a.sample_masks(i);
    bool near = m.h * m.w <= (1 << 16);
    for (const auto& v : m.vertices) {
      near = near && std::abs(v[0]) < 4.0f * static_cast<float>(m.w + m.h) &&
             std::abs(v[1]) < 4.0f * static_cast<float>(m.w + m.h);
    }
    for (size_t k = 0; k < m.rles.size(); ++k) {
      uint64_t total = 0;
      for (uint32_t c : m.rles[k].counts) total += c;
      if (m.rles[k].h != m.h || m.rles[k].w != m.w || total != static_cast<uint64_t>(m.h * m.w) ||
          m.rle_objects[k] < 0 || m.rle_objects[k] >= a.objects[i].count) {
        fuzz_fail("RLE mask inconsistent with its sample");
      }
    }
    if (!near) continue;
    std::vector<int32_t> mask(static_cast<size_t>(m.h * m.w));
    try {
      coco_label_mask(m, mask.data());
    } catch (const InvalidArgument& e) {
      sluice::fuzz::note_expected("coco_label_mask", e);
      continue;
    }
    uint64_t sum = 0;
    for (int32_t v : mask) sum += static_cast<uint32_t>(v);
    g_sink = sum;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices c(data, size);
  CocoOptions o;
  o.size_threshold = c.one_in(4) ? 0.0f : 0.1f;
  o.ltrb = c.one_in(2);
  o.ratio = c.one_in(2);
  o.skip_empty = c.one_in(2);
  o.include_iscrowd = !c.one_in(3);
  o.avoid_class_remapping = c.one_in(3);
  o.polygons = !c.one_in(4);
  o.rles = o.polygons && !c.one_in(3);
  o.image_ids = c.one_in(2);
  if (c.one_in(5)) o.images = std::vector<std::string>{"a.jpg", "b.jpg", "a.jpg"};
  const std::string text(reinterpret_cast<const char*>(data), size);
  CocoAnnotations a;
  try {
    a = parse_coco_annotations(text, o, "fuzz.json");
  } catch (const InvalidArgument& e) {
    sluice::fuzz::note_expected("parse_coco_annotations", e);
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_coco_annotations", e);
  }
  check(a, o);
  return 0;
}
