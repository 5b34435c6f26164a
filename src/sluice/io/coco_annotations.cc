#include "sluice/io/coco_annotations.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include "sluice/core/error.h"
#include "sluice/io/read_file.h"

namespace sluice {
namespace {

using Value = rapidjson::Value;
// No recursion however deep the nesting. Numbers in RapidJSON's normal precision (within a few
// units in the last place of a double, so the same float almost always): its full-precision
// path in 1.1.0 counts the leading zeros of zero for a zero with an exponent ("0e96").
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag;

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

// The member `key` of object `obj` (the last one when the key repeats, as a reader that
// assigns each member in turn ends with), or nullptr.
const Value* member(const Value& obj, const char* key) {
  const Value* found = nullptr;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (std::string_view(it->name.GetString(), it->name.GetStringLength()) == key) {
      found = &it->value;
    }
  }
  return found;
}

bool is_integer(const Value& v) {
  return v.IsInt64() || v.IsUint64();
}

const char* type_name(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    default:
      return "number";
  }
}

// An entry of a section, named in errors: "annotations[3] (id 17)" (built only then).
struct Entry {
  const std::string& file;
  const char* section;
  int64_t index;
  const Value& obj;
  [[noreturn]] void fail(const std::string& what) const {
    std::string name = make_string(section, "[", index, "]");
    const Value* id = member(obj, "id");
    if (id && id->IsInt64()) name += make_string(" (id ", id->GetInt64(), ")");
    if (id && !id->IsInt64() && id->IsUint64()) name += make_string(" (id ", id->GetUint64(), ")");
    throw InvalidArgument(make_string(file, ": ", name, ": ", what));
  }
};

int32_t get_int(const Value& obj, const char* key, const Entry& e, std::optional<int32_t> def) {
  const Value* v = member(obj, key);
  if (!v) {
    if (def) return *def;
    e.fail(make_string("'", key, "' is missing"));
  }
  if (!is_integer(*v)) e.fail(make_string("'", key, "' must be an integer"));
  if (!v->IsInt64()) e.fail(make_string("'", key, "' is out of range: ", v->GetUint64()));
  const int64_t i = v->GetInt64();
  if (i < INT32_MIN || i > INT32_MAX) e.fail(make_string("'", key, "' is out of range: ", i));
  return static_cast<int32_t>(i);
}

float get_float(const Value& v, const Entry& e, const char* what) {
  if (!v.IsNumber()) e.fail(make_string(what, " must be numbers, not ", type_name(v)));
  double d = v.GetDouble();
  if (!(std::abs(d) <= std::numeric_limits<float>::max())) {
    e.fail(make_string(what, " must fit a float, not ", d));
  }
  return static_cast<float>(d);
}

ImageInfo parse_image(const Value& obj, const Entry& e, bool sizes) {
  ImageInfo info;
  info.id = get_int(obj, "id", e, std::nullopt);
  const Value* name = member(obj, "file_name");
  if (!name || !name->IsString()) e.fail("'file_name' must be a string");
  info.file_name.assign(name->GetString(), name->GetStringLength());
  std::optional<int32_t> def;
  if (!sizes) def = 0;
  info.width = get_int(obj, "width", e, def);
  info.height = get_int(obj, "height", e, def);
  if (sizes && (info.width <= 0 || info.height <= 0)) {
    e.fail(make_string("image size ", info.width, " x ", info.height, " is not positive"));
  }
  return info;
}

void parse_rle(const Value& seg, const Entry& e, Annotation& a) {
  const Value* size = member(seg, "size");
  if (!size || !size->IsArray() || size->Size() != 2 || !(*size)[0].IsInt64() ||
      !(*size)[1].IsInt64()) {
    e.fail("RLE 'segmentation' needs 'size': [height, width]");
  }
  const int64_t h = (*size)[0].GetInt64(), w = (*size)[1].GetInt64();
  if (h <= 0 || w <= 0 || h > INT32_MAX / w) {
    e.fail(make_string("RLE 'segmentation' size [", h, ", ", w, "] is invalid"));
  }
  const Value* counts = member(seg, "counts");
  try {
    if (counts && counts->IsString() && counts->GetStringLength() > 0) {
      a.rle =
          coco_rle_from_string(std::string(counts->GetString(), counts->GetStringLength()), h, w);
    } else if (counts && counts->IsArray() && !counts->Empty()) {
      std::vector<uint32_t> v;
      v.reserve(counts->Size());
      for (const Value& c : counts->GetArray()) {
        if (!c.IsInt64() || c.GetInt64() < 0 || c.GetInt64() > INT32_MAX) {
          e.fail("RLE 'counts' must be non-negative integers");
        }
        v.push_back(static_cast<uint32_t>(c.GetInt64()));
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

void parse_segmentation(const Value& seg, const Entry& e, const CocoOptions& o, Annotation& a) {
  if (seg.IsArray()) {
    int32_t offset = 0;
    for (const Value& poly : seg.GetArray()) {
      if (!poly.IsArray()) e.fail("'segmentation' polygons must be arrays of coordinates");
      if (poly.Size() % 2 != 0) {
        e.fail(make_string("'segmentation' has a polygon of ", poly.Size(),
                           " coordinates (an odd number)"));
      }
      for (const Value& c : poly.GetArray()) {
        a.coords.push_back(get_float(c, e, "polygon coordinates"));
      }
      offset += static_cast<int32_t>(poly.Size());
      a.polygon_ends.push_back(offset);
    }
  } else if (seg.IsObject() && o.rles) {
    parse_rle(seg, e, a);
  }
}

// Returns false for an annotation the options leave out.
bool parse_annotation(const Value& obj, const Entry& e, const CocoOptions& o, Annotation& a) {
  a.image_id = get_int(obj, "image_id", e, std::nullopt);
  a.category_id = get_int(obj, "category_id", e, std::nullopt);
  const Value* bbox = member(obj, "bbox");
  if (!bbox || !bbox->IsArray() || bbox->Size() != 4) {
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
    if (const Value* seg = member(obj, "segmentation")) parse_segmentation(*seg, e, o, a);
  }
  return true;
}

struct Parsed {
  std::vector<ImageInfo> images;
  std::map<int32_t, int32_t> categories;  // id -> label
  int32_t next_label = 1;
  std::vector<Annotation> annotations;
};

enum class Section { kNone, kImages, kAnnotations, kCategories };

// A SAX handler that finds, in one pass and without building them, the entries of the three
// sections: each complete entry's bytes are handed to `on_entry`. Structure errors (the top
// level, a section that is not an array) are kept in `error` and stop the parse.
class EntryFinder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, EntryFinder> {
 public:
  using OnEntry = std::function<void(Section, int64_t index, std::string_view bytes)>;
  EntryFinder(std::string_view text, const rapidjson::MemoryStream& is, OnEntry on_entry)
      : text_(text), is_(is), on_entry_(std::move(on_entry)) {}

  std::string error;

  bool Default() { return element(false); }  // every scalar value
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (depth_ == 1) {
      const std::string_view k(s, n);
      key_ = k == "images"        ? Section::kImages
             : k == "annotations" ? Section::kAnnotations
             : k == "categories"  ? Section::kCategories
                                  : Section::kNone;
      key_name_ = k;
    }
    return true;
  }
  bool StartObject() { return open(true); }
  bool StartArray() { return open(false); }
  bool EndObject(rapidjson::SizeType) { return close(true); }
  bool EndArray(rapidjson::SizeType) { return close(false); }

 private:
  // A value starts at the current depth.
  bool element(bool array) {
    if (depth_ == 0) return fail("the top level must be an object");
    if (depth_ == 1 && key_ != Section::kNone) {
      if (!array) return fail(make_string("'", key_name_, "' must be an array"));
      section_ = key_;
      index_ = 0;
    } else if (depth_ == 2 && section_ != Section::kNone) {
      ++index_;  // entries that are not objects are ignored
    }
    return true;
  }
  bool open(bool object) {
    if (depth_ == 0 && !object) return fail("the top level must be an object");
    if (depth_ == 2 && section_ != Section::kNone && object) {
      entry_begin_ = is_.Tell();  // at the '{'
    } else if (depth_ > 0 && !element(!object)) {
      return false;
    }
    ++depth_;
    return true;
  }
  bool close(bool object) {
    --depth_;
    if (depth_ == 2 && section_ != Section::kNone && object) {
      on_entry_(section_, index_++, text_.substr(entry_begin_, is_.Tell() + 1 - entry_begin_));
    } else if (depth_ == 1) {
      section_ = Section::kNone;
    }
    return true;
  }
  bool fail(std::string what) {
    error = std::move(what);
    return false;
  }

  std::string_view text_;
  const rapidjson::MemoryStream& is_;
  OnEntry on_entry_;
  int depth_ = 0;
  Section key_ = Section::kNone, section_ = Section::kNone;
  std::string key_name_;
  int64_t index_ = 0;
  size_t entry_begin_ = 0;
};

Parsed parse_json(std::string_view text, const CocoOptions& o, const std::string& name) {
  Parsed p;
  const bool sizes = o.ratio || o.rles;
  // Each entry is parsed on its own into a reused document, converted and dropped: memory holds
  // one entry's tree at a time.
  rapidjson::Document doc;
  auto on_entry = [&](Section section, int64_t i, std::string_view bytes) {
    doc.GetAllocator().Clear();
    doc.Parse<kParseFlags>(bytes.data(), bytes.size());
    SLUICE_ENFORCE(!doc.HasParseError() && doc.IsObject(), "a COCO entry did not parse again");
    const char* section_name = section == Section::kImages       ? "images"
                               : section == Section::kCategories ? "categories"
                                                                 : "annotations";
    const Entry e{name, section_name, i, doc};
    if (section == Section::kImages) {
      p.images.push_back(parse_image(doc, e, sizes));
    } else if (section == Section::kCategories) {
      p.categories.emplace(get_int(doc, "id", e, std::nullopt), p.next_label++);
    } else {
      Annotation a;
      if (parse_annotation(doc, e, o, a)) p.annotations.push_back(std::move(a));
    }
  };
  rapidjson::MemoryStream is(text.data(), text.size());
  EntryFinder finder(text, is, on_entry);
  rapidjson::Reader reader;
  rapidjson::ParseResult ok = reader.Parse<kParseFlags>(is, finder);
  if (!finder.error.empty()) throw InvalidArgument(make_string(name, ": ", finder.error));
  if (!ok) {
    throw InvalidArgument(make_string(name, ": invalid JSON at byte ", ok.Offset() + 1, ": ",
                                      rapidjson::GetParseError_En(ok.Code())));
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
