// DALI's preprocessed COCO annotations: one binary file per array, each a uint32 element count
// followed by the elements as stored in memory; the file names one per line. DALI writes no file
// for an empty array and reads a missing file as empty, and so do these functions.

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sluice/core/error.h"
#include "sluice/io/coco_annotations.h"
#include "sluice/io/read_file.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;

// `per_element`: DALI counts boxes in floats, 4 per box.
template <typename T>
void write_array(const std::string& path, const std::vector<T>& v, uint32_t per_element = 1) {
  if (v.empty()) return;
  std::ofstream f(path, std::ios::binary);
  uint32_t n = static_cast<uint32_t>(v.size());
  uint32_t header = n * per_element;
  f.write(reinterpret_cast<const char*>(&header), sizeof(header));
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(sizeof(T) * n));
  SLUICE_CHECK(f.good(), IOError, "cannot write '", path, "'");
}

// Reads the file's bytes; empty when the file does not exist.
std::vector<uint8_t> read_if_present(const std::string& path) {
  std::vector<uint8_t> bytes;
  std::error_code ec;
  if (fs::exists(path, ec)) read_file(path, bytes);
  return bytes;
}

template <typename T>
std::vector<T> read_array(const std::string& path, uint32_t per_element = 1) {
  std::vector<uint8_t> b = read_if_present(path);
  std::vector<T> v;
  if (b.empty()) return v;
  uint32_t n = 0;
  SLUICE_CHECK(b.size() >= sizeof(n), InvalidArgument, "'", path, "' is truncated at byte 0");
  std::memcpy(&n, b.data(), sizeof(n));
  SLUICE_CHECK(n % per_element == 0, InvalidArgument, "'", path, "' holds ", n,
               " values, not a multiple of ", per_element);
  n /= per_element;
  SLUICE_CHECK((b.size() - sizeof(n)) / sizeof(T) >= n, InvalidArgument, "'", path, "' holds ",
               b.size(), " bytes, too few for its ", n, " elements of ", sizeof(T), " bytes");
  v.resize(n);
  if (n) std::memcpy(v.data(), b.data() + sizeof(n), sizeof(T) * n);
  return v;
}

template <typename T>
std::vector<int64_t> widen(const std::vector<T>& v) {
  return {v.begin(), v.end()};
}

std::vector<CocoRange> ranges(const std::vector<int64_t>& offsets,
                              const std::vector<int64_t>& counts, const std::string& dir,
                              const char* what) {
  SLUICE_CHECK(offsets.size() == counts.size(), InvalidArgument, "preprocessed annotations '", dir,
               "': ", what, " hold ", offsets.size(), " offsets and ", counts.size(), " counts");
  std::vector<CocoRange> r(offsets.size());
  for (size_t i = 0; i < r.size(); ++i) r[i] = {offsets[i], counts[i]};
  return r;
}

}  // namespace

void save_coco_preprocessed(const CocoAnnotations& a, const CocoOptions& o,
                            const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  SLUICE_CHECK(!ec, IOError, "cannot create the folder '", dir, "': ", ec.message());
  auto split = [](const std::vector<CocoRange>& r, auto tag) {
    using T = decltype(tag);
    std::pair<std::vector<T>, std::vector<T>> oc;
    for (const CocoRange& x : r) {
      oc.first.push_back(static_cast<T>(x.offset));
      oc.second.push_back(static_cast<T>(x.count));
    }
    return oc;
  };
  const std::string p = dir + "/";
  auto [offsets, counts] = split(a.objects, int32_t{});
  write_array(p + "offsets.dat", offsets);
  write_array(p + "boxes.dat", a.boxes, 4);
  write_array(p + "labels.dat", a.labels);
  write_array(p + "counts.dat", counts);
  if (!a.files.empty()) {
    std::ofstream f(p + "filenames.dat");
    for (const std::string& name : a.files) f << name << '\n';
    SLUICE_CHECK(f.good(), IOError, "cannot write '", p, "filenames.dat'");
  }
  if (o.polygons) {
    auto [poly_offsets, poly_counts] = split(a.polygon_ranges, int64_t{});
    auto [vert_offsets, vert_counts] = split(a.vertex_ranges, int64_t{});
    write_array(p + "polygon_data.dat", a.polygons);
    write_array(p + "polygon_offset.dat", poly_offsets);
    write_array(p + "polygons_count.dat", poly_counts);
    write_array(p + "vertices.dat", a.vertices);
    write_array(p + "vertices_offset.dat", vert_offsets);
    write_array(p + "vertices_count.dat", vert_counts);
  }
  if (o.rles) {
    if (!a.rles.empty()) {
      std::ofstream f(p + "masks_rles.dat", std::ios::binary);
      uint32_t n = static_cast<uint32_t>(a.rles.size());
      f.write(reinterpret_cast<const char*>(&n), sizeof(n));
      for (const CocoRle& r : a.rles) {
        uint64_t dims[3] = {static_cast<uint64_t>(r.h), static_cast<uint64_t>(r.w),
                            r.counts.size()};
        f.write(reinterpret_cast<const char*>(dims), sizeof(dims));
        f.write(reinterpret_cast<const char*>(r.counts.data()),
                static_cast<std::streamsize>(sizeof(uint32_t) * r.counts.size()));
      }
      SLUICE_CHECK(f.good(), IOError, "cannot write '", p, "masks_rles.dat'");
    }
    auto [mask_offsets, mask_counts] = split(a.rle_ranges, int64_t{});
    write_array(p + "masks_rles_idx.dat", a.rle_objects);
    write_array(p + "masks_offset.dat", mask_offsets);
    write_array(p + "mask_count.dat", mask_counts);
    write_array(p + "heights.dat", a.heights);
    write_array(p + "widths.dat", a.widths);
  }
  if (o.image_ids) write_array(p + "original_ids.dat", a.image_ids);
}

CocoAnnotations load_coco_preprocessed(const std::string& dir, const CocoOptions& o) {
  std::error_code ec;
  SLUICE_CHECK(fs::is_directory(dir, ec), IOError, "cannot read the preprocessed annotations '",
               dir, "': not a folder");
  const std::string p = dir + "/";
  CocoAnnotations a;
  {
    std::vector<uint8_t> b = read_if_present(p + "filenames.dat");
    std::string text(b.begin(), b.end()), line;
    std::istringstream lines(text);
    while (std::getline(lines, line)) {
      if (!line.empty()) a.files.push_back(line);
    }
  }
  const size_t n = a.files.size();
  SLUICE_CHECK(n > 0, InvalidArgument, "'", p, "filenames.dat' names no image");
  auto fail = [&](const std::string& what) {
    throw InvalidArgument(make_string("preprocessed annotations '", dir, "': ", what));
  };
  auto check_ranges = [&](const std::vector<CocoRange>& r, size_t size, const char* what) {
    if (r.size() != n) fail(make_string(what, ": ", r.size(), " entries for ", n, " images"));
    for (size_t i = 0; i < n; ++i) {
      if (r[i].offset < 0 || r[i].count < 0 || static_cast<size_t>(r[i].offset) > size ||
          static_cast<size_t>(r[i].count) > size - static_cast<size_t>(r[i].offset)) {
        fail(make_string(what, " of image ", i, " ('", a.files[i], "') lie outside the data"));
      }
    }
  };
  a.objects = ranges(widen(read_array<int32_t>(p + "offsets.dat")),
                     widen(read_array<int32_t>(p + "counts.dat")), dir, "offsets.dat/counts.dat");
  a.boxes = read_array<std::array<float, 4>>(p + "boxes.dat", 4);
  a.labels = read_array<int32_t>(p + "labels.dat");
  check_ranges(a.objects, std::min(a.boxes.size(), a.labels.size()), "offsets.dat/counts.dat");
  if (o.polygons) {
    a.polygons = read_array<std::array<int32_t, 3>>(p + "polygon_data.dat");
    a.vertices = read_array<std::array<float, 2>>(p + "vertices.dat");
    a.polygon_ranges = ranges(read_array<int64_t>(p + "polygon_offset.dat"),
                              read_array<int64_t>(p + "polygons_count.dat"), dir,
                              "polygon_offset.dat/polygons_count.dat");
    a.vertex_ranges = ranges(read_array<int64_t>(p + "vertices_offset.dat"),
                             read_array<int64_t>(p + "vertices_count.dat"), dir,
                             "vertices_offset.dat/vertices_count.dat");
    check_ranges(a.polygon_ranges, a.polygons.size(), "polygon_offset.dat/polygons_count.dat");
    check_ranges(a.vertex_ranges, a.vertices.size(), "vertices_offset.dat/vertices_count.dat");
    for (size_t i = 0; i < n; ++i) {
      for (const auto& [object, first, end] : a.sample_polygons(i)) {
        if (object < 0 || object >= a.objects[i].count || first < 0 || first > end ||
            end > a.vertex_ranges[i].count) {
          fail(make_string("polygon_data.dat: a polygon of image ", i, " ('", a.files[i],
                           "') names object ", object, " and vertices ", first, "..", end));
        }
      }
    }
  }
  if (o.rles) {
    std::vector<uint8_t> b = read_if_present(p + "masks_rles.dat");
    size_t pos = 0;
    auto take = [&](void* dst, size_t bytes) {
      if (b.size() - pos < bytes) fail(make_string("masks_rles.dat is truncated at byte ", pos));
      std::memcpy(dst, b.data() + pos, bytes);
      pos += bytes;
    };
    if (!b.empty()) {
      uint32_t count = 0;
      take(&count, sizeof(count));
      for (uint32_t k = 0; k < count; ++k) {
        uint64_t dims[3];
        take(dims, sizeof(dims));
        if (dims[0] > INT32_MAX || dims[1] > INT32_MAX || dims[2] > (b.size() - pos) / 4) {
          fail(make_string("masks_rles.dat: mask ", k, " has invalid sizes at byte ", pos));
        }
        std::vector<uint32_t> counts(dims[2]);
        take(counts.data(), counts.size() * sizeof(uint32_t));
        try {
          a.rles.push_back(coco_rle_from_counts(std::move(counts), static_cast<int64_t>(dims[0]),
                                                static_cast<int64_t>(dims[1])));
        } catch (const InvalidArgument& e) {
          fail(make_string("masks_rles.dat: mask ", k, ": ", e.what()));
        }
      }
    }
    a.rle_objects = read_array<int32_t>(p + "masks_rles_idx.dat");
    a.rle_ranges =
        ranges(read_array<int64_t>(p + "masks_offset.dat"),
               read_array<int64_t>(p + "mask_count.dat"), dir, "masks_offset.dat/mask_count.dat");
    a.heights = read_array<int32_t>(p + "heights.dat");
    a.widths = read_array<int32_t>(p + "widths.dat");
    if (a.rle_objects.size() != a.rles.size()) fail("masks_rles_idx.dat and masks_rles.dat differ");
    check_ranges(a.rle_ranges, a.rles.size(), "masks_offset.dat/mask_count.dat");
    if (a.heights.size() != n || a.widths.size() != n) fail("heights.dat/widths.dat: wrong size");
    for (size_t i = 0; i < n; ++i) {
      const CocoSampleMasks m = a.sample_masks(i);
      bool ok = m.h > 0 && m.w > 0;
      for (size_t k = 0; ok && k < m.rles.size(); ++k) {
        ok = m.rles[k].h == m.h && m.rles[k].w == m.w && m.rle_objects[k] >= 0 &&
             m.rle_objects[k] < a.objects[i].count;
      }
      if (!ok) fail(make_string("the masks of image ", i, " ('", a.files[i], "') are invalid"));
    }
  }
  if (o.image_ids) {
    a.image_ids = read_array<int32_t>(p + "original_ids.dat");
    if (a.image_ids.size() != n) fail("original_ids.dat: wrong size (saved without image_ids?)");
  }
  return a;
}

}  // namespace sluice
