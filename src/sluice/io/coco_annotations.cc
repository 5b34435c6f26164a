#include "sluice/io/coco_annotations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "sluice/core/error.h"
#include "sluice/io/read_file.h"

namespace sluice {
namespace {

using json = nlohmann::json;

struct ImageInfo {
  std::string file_name;
  int32_t id = 0;
  int32_t width = 0;
  int32_t height = 0;
};

struct Annotation {
  int32_t image_id = 0;
  int32_t category_id = 0;
  std::array<float, 4> box{};
  std::vector<int32_t> polygon_ends;  // end coordinate of each polygon
  std::vector<float> coords;
  std::optional<CocoRle> rle;
};

// Names an entry of a section for errors: "annotations[3] (id 17)".
std::string entry_name(const char* section, int64_t index, const json& obj) {
  std::string s = make_string(section, "[", index, "]");
  auto it = obj.find("id");
  if (it != obj.end() && it->is_number_integer())
    s += make_string(" (id ", it->get<int64_t>(), ")");
  return s;
}

struct Entry {
  const std::string& file;
  std::string name;
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument(make_string(file, ": ", name, ": ", what));
  }
};

int32_t get_int(const json& obj, const char* key, const Entry& e, std::optional<int32_t> def) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (def) return *def;
    e.fail(make_string("'", key, "' is missing"));
  }
  if (!it->is_number_integer()) e.fail(make_string("'", key, "' must be an integer"));
  int64_t v = it->get<int64_t>();
  if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{INT32_MAX}) v = INT64_MAX;
  if (v < INT32_MIN || v > INT32_MAX) e.fail(make_string("'", key, "' is out of range: ", *it));
  return static_cast<int32_t>(v);
}

float get_float(const json& v, const Entry& e, const char* what) {
  if (!v.is_number()) e.fail(make_string(what, " must be numbers, not ", v.type_name()));
  double d = v.get<double>();
  if (!(std::abs(d) <= std::numeric_limits<float>::max())) {
    e.fail(make_string(what, " must fit a float, not ", d));
  }
  return static_cast<float>(d);
}

ImageInfo parse_image(const json& obj, const Entry& e, bool sizes) {
  ImageInfo info;
  info.id = get_int(obj, "id", e, std::nullopt);
  auto it = obj.find("file_name");
  if (it == obj.end() || !it->is_string()) e.fail("'file_name' must be a string");
  info.file_name = it->get<std::string>();
  std::optional<int32_t> def;
  if (!sizes) def = 0;
  info.width = get_int(obj, "width", e, def);
  info.height = get_int(obj, "height", e, def);
  if (sizes && (info.width <= 0 || info.height <= 0)) {
    e.fail(make_string("image size ", info.width, " x ", info.height, " is not positive"));
  }
  return info;
}

void parse_segmentation(const json& seg, const Entry& e, const CocoOptions& o, Annotation& a) {
  if (seg.is_array()) {
    int32_t offset = 0;
    for (const json& poly : seg) {
      if (!poly.is_array()) e.fail("'segmentation' polygons must be arrays of coordinates");
      if (poly.size() % 2 != 0) {
        e.fail(make_string("'segmentation' has a polygon of ", poly.size(),
                           " coordinates (an odd number)"));
      }
      for (const json& c : poly) a.coords.push_back(get_float(c, e, "polygon coordinates"));
      offset += static_cast<int32_t>(poly.size());
      a.polygon_ends.push_back(offset);
    }
  } else if (seg.is_object() && o.rles) {
    auto size = seg.find("size");
    if (size == seg.end() || !size->is_array() || size->size() != 2 ||
        !(*size)[0].is_number_integer() || !(*size)[1].is_number_integer()) {
      e.fail("RLE 'segmentation' needs 'size': [height, width]");
    }
    int64_t h = (*size)[0].get<int64_t>(), w = (*size)[1].get<int64_t>();
    if (h <= 0 || w <= 0 || h > INT32_MAX / w) {
      e.fail(make_string("RLE 'segmentation' size [", h, ", ", w, "] is invalid"));
    }
    auto counts = seg.find("counts");
    try {
      if (counts != seg.end() && counts->is_string() &&
          !counts->get_ref<const std::string&>().empty()) {
        a.rle = coco_rle_from_string(counts->get_ref<const std::string&>(), h, w);
      } else if (counts != seg.end() && counts->is_array() && !counts->empty()) {
        std::vector<uint32_t> v;
        for (const json& c : *counts) {
          if (!c.is_number_integer() || c.get<int64_t>() < 0 || c.get<int64_t>() > INT32_MAX) {
            e.fail("RLE 'counts' must be non-negative integers");
          }
          v.push_back(static_cast<uint32_t>(c.get<int64_t>()));
        }
        a.rle = coco_rle_from_counts(std::move(v), h, w);
      } else {
        e.fail("RLE 'segmentation' has missing or invalid 'counts'");
      }
    } catch (const InvalidArgument& err) {
      if (std::string_view(err.what()).starts_with(e.file)) throw;
      e.fail(make_string("RLE 'segmentation': ", err.what()));
    }
  }
}

// Returns false for an annotation the options leave out.
bool parse_annotation(const json& obj, const Entry& e, const CocoOptions& o, Annotation& a) {
  a.image_id = get_int(obj, "image_id", e, std::nullopt);
  a.category_id = get_int(obj, "category_id", e, std::nullopt);
  auto bbox = obj.find("bbox");
  if (bbox == obj.end() || !bbox->is_array() || bbox->size() != 4) {
    e.fail("'bbox' must be [x, y, width, height]");
  }
  for (int i = 0; i < 4; ++i) a.box[i] = get_float((*bbox)[i], e, "'bbox' values");
  if (!o.include_iscrowd && get_int(obj, "iscrowd", e, 0) != 0) return false;
  if (!(a.box[2] >= o.size_threshold && a.box[3] >= o.size_threshold)) return false;
  if (o.ltrb) {
    a.box[2] += a.box[0];
    a.box[3] += a.box[1];
  }
  if (o.polygons) {
    auto seg = obj.find("segmentation");
    if (seg != obj.end()) parse_segmentation(*seg, e, o, a);
  }
  return true;
}

struct Parsed {
  std::vector<ImageInfo> images;
  std::map<int32_t, int32_t> categories;  // id -> label
  int32_t next_label = 1;
  std::vector<Annotation> annotations;
};

Parsed parse_json(std::string_view text, const CocoOptions& o, const std::string& name) {
  Parsed p;
  std::string section;
  int64_t index = 0;
  const bool sizes = o.ratio || o.rles;
  // Each entry of the three sections is converted as soon as it is complete and then dropped,
  // and values that are not needed are never kept.
  json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    if (depth == 1 && event == E::key) {
      section = parsed.get<std::string>();
      index = 0;
      return section == "images" || section == "annotations" || section == "categories";
    }
    if (depth == 3 && event == E::key && section == "images") {
      const auto& k = parsed.get_ref<const std::string&>();
      return k == "id" || k == "file_name" || k == "width" || k == "height";
    }
    if (depth == 3 && event == E::key && section == "annotations") {
      const auto& k = parsed.get_ref<const std::string&>();
      return k == "image_id" || k == "category_id" || k == "bbox" || k == "iscrowd" || k == "id" ||
             (o.polygons && k == "segmentation");
    }
    if (depth == 2 && (event == E::object_end || event == E::value || event == E::array_end)) {
      int64_t i = index++;
      if (!parsed.is_object()) return false;  // entries that are not objects are ignored
      Entry e{name, entry_name(section.c_str(), i, parsed)};
      if (section == "images") {
        p.images.push_back(parse_image(parsed, e, sizes));
      } else if (section == "categories") {
        p.categories.emplace(get_int(parsed, "id", e, std::nullopt), p.next_label++);
      } else {
        Annotation a;
        if (parse_annotation(parsed, e, o, a)) p.annotations.push_back(std::move(a));
      }
      return false;
    }
    return true;
  };
  json root;
  try {
    root = json::parse(text.begin(), text.end(), cb);
  } catch (const json::parse_error& err) {
    throw InvalidArgument(make_string(name, ": invalid JSON at byte ", err.byte, ": ", err.what()));
  } catch (const json::exception& err) {
    throw InvalidArgument(make_string(name, ": ", err.what()));
  }
  SLUICE_CHECK(root.is_object(), InvalidArgument, name, ": the top level must be an object");
  for (const char* s : {"images", "annotations", "categories"}) {
    auto it = root.find(s);
    SLUICE_CHECK(it == root.end() || it->is_array(), InvalidArgument, name, ": '", s,
                 "' must be an array");
  }
  return p;
}

}  // namespace

CocoAnnotations parse_coco_annotations(std::string_view text, const CocoOptions& o,
                                       const std::string& name) {
  Parsed p = parse_json(text, o, name);
  std::vector<std::string> order;
  if (o.images) {
    order = *o.images;
  } else {
    std::stable_sort(p.images.begin(), p.images.end(),
                     [](const ImageInfo& a, const ImageInfo& b) { return a.id < b.id; });
    for (const ImageInfo& info : p.images) order.push_back(info.file_name);
  }
  std::unordered_map<std::string, const ImageInfo*> by_name;
  for (const std::string& f : order) by_name.emplace(f, nullptr);
  std::unordered_map<int32_t, std::vector<const Annotation*>> by_image;
  for (const ImageInfo& info : p.images) {
    auto it = by_name.find(info.file_name);
    if (it == by_name.end()) continue;
    it->second = &info;
    by_image[info.id];
  }
  for (const Annotation& a : p.annotations) {
    auto it = by_image.find(a.image_id);
    if (it != by_image.end()) it->second.push_back(&a);
  }

  CocoAnnotations out;
  for (const std::string& f : order) {
    const ImageInfo* info = by_name[f];
    if (!info) continue;  // as DALI: names of `images` absent from the file are left out
    const auto& anns = by_image[info->id];
    if (o.skip_empty && anns.empty()) continue;
    const float fw = static_cast<float>(info->width), fh = static_cast<float>(info->height);
    CocoRange objects{static_cast<int64_t>(out.boxes.size()), 0};
    CocoRange polys{static_cast<int64_t>(out.polygons.size()), 0};
    CocoRange verts{static_cast<int64_t>(out.vertices.size()), 0};
    CocoRange rles{static_cast<int64_t>(out.rles.size()), 0};
    for (const Annotation* a : anns) {
      const int32_t object = static_cast<int32_t>(objects.count++);
      if (o.avoid_class_remapping) {
        out.labels.push_back(a->category_id);
      } else {
        auto c = p.categories.find(a->category_id);
        out.labels.push_back(c == p.categories.end() ? 0 : c->second);
      }
      std::array<float, 4> b = a->box;
      if (o.ratio) b = {b[0] / fw, b[1] / fh, b[2] / fw, b[3] / fh};
      out.boxes.push_back(b);
      int32_t start = 0;
      const int32_t base = static_cast<int32_t>(verts.count);
      for (int32_t end : a->polygon_ends) {
        out.polygons.push_back({object, base + start / 2, base + end / 2});
        ++polys.count;
        start = end;
      }
      for (size_t i = 0; i + 1 < a->coords.size(); i += 2) {
        float x = a->coords[i], y = a->coords[i + 1];
        if (o.ratio) {
          x /= fw;
          y /= fh;
        }
        out.vertices.push_back({x, y});
        ++verts.count;
      }
      if (a->rle) {
        if (a->rle->h != info->height || a->rle->w != info->width) {
          throw InvalidArgument(make_string(
              name, ": an RLE segmentation of image ", info->id, " ('", info->file_name, "') is ",
              a->rle->h, " x ", a->rle->w, ", the image ", info->height, " x ", info->width));
        }
        out.rle_objects.push_back(object);
        out.rles.push_back(*a->rle);
        ++rles.count;
      }
    }
    out.files.push_back(info->file_name);
    if (o.image_ids) out.image_ids.push_back(info->id);
    out.objects.push_back(objects);
    if (o.polygons) {
      out.polygon_ranges.push_back(polys);
      out.vertex_ranges.push_back(verts);
    }
    if (o.rles) {
      out.rle_ranges.push_back(rles);
      out.heights.push_back(info->height);
      out.widths.push_back(info->width);
    }
  }
  return out;
}

CocoAnnotations load_coco_annotations(const std::string& path, const CocoOptions& o) {
  std::vector<uint8_t> bytes;
  read_file(path, bytes, std::numeric_limits<size_t>::max());
  return parse_coco_annotations(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), o, path);
}

}  // namespace sluice
