// libFuzzer target: the COCO annotations parser of readers.coco (parse_coco_annotations), with
// options drawn from the input, the rasterisation of every sample's pixelwise label mask, and
// the preprocessed meta files.
//
// A malformed document may only raise sluice::InvalidArgument. On success the result must be
// consistent: every per-sample range lies inside its array, every polygon names an object of
// its sample and vertices of its sample, every RLE mask covers its image; then the label mask
// of each small sample (whose vertices lie near the image) is drawn. For one input in four the
// result is saved as meta files (in a private folder under /dev/shm or TMPDIR) and read back:
// unchanged it must load equal; with one file cut short or one byte changed it may only raise
// InvalidArgument or load consistent data. Any other exception, crash, hang or sanitizer report
// is a bug.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

namespace fs = std::filesystem;

// One folder per process, named after it; a new process removes those of ended processes
// (libFuzzer leaves through _Exit, so nothing runs at exit).
const std::string& meta_dir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    fs::path base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (tmp ? tmp : "/tmp");
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(base, ec)) {
      long pid = 0;
      if (std::sscanf(e.path().filename().c_str(), "sluice-fuzz-coco-%ld", &pid) == 1 && pid > 0 &&
          kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
        fs::remove_all(e.path(), ec);
      }
    }
    return (base / ("sluice-fuzz-coco-" + std::to_string(getpid()))).string();
  }();
  return dir;
}

void check_preprocessed(const CocoAnnotations& a, const CocoOptions& o, Choices& c) {
  const std::string& dir = meta_dir();
  std::error_code ec;
  fs::remove_all(dir, ec);
  save_coco_preprocessed(a, o, dir);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const bool corrupt = !files.empty() && !c.one_in(4);
  if (corrupt) {
    const fs::path& f = files[static_cast<size_t>(c.below(static_cast<int64_t>(files.size())))];
    const auto size = static_cast<int64_t>(fs::file_size(f));
    if (c.one_in(2) || size == 0) {
      fs::resize_file(f, static_cast<uintmax_t>(c.below(size + 1)));
    } else {
      std::fstream s(f, std::ios::in | std::ios::out | std::ios::binary);
      s.seekp(c.below(size));
      s.put(static_cast<char>(c.below(256)));
    }
  }
  CocoAnnotations b;
  try {
    b = load_coco_preprocessed(dir, o);
  } catch (const InvalidArgument& e) {
    if (!corrupt && a.size() > 0) fuzz_fail("saved meta files do not load:", e.what());
    sluice::fuzz::note_expected("load_coco_preprocessed", e);
    return;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("load_coco_preprocessed", e);
  }
  if (!corrupt && (b.files != a.files || b.boxes != a.boxes || b.labels != a.labels ||
                   b.polygons != a.polygons || b.vertices != a.vertices ||
                   b.image_ids != a.image_ids || b.rles.size() != a.rles.size())) {
    fuzz_fail("meta files load different data");
  }
  check(b, o);
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
  if (c.one_in(4)) check_preprocessed(a, o, c);
  return 0;
}
