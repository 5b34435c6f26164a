// readers.coco: a COCO dataset (images under file_root, a JSON annotations file or DALI's
// preprocessed meta files) read image by image with its boxes, labels and masks, following the
// same EpochPlan as every reader.

#include <cstring>
#include <memory>

#include "sluice/graph/schema_registry.h"
#include "sluice/io/coco_annotations.h"
#include "sluice/io/read_file.h"
#include "sluice/ops/readers/reader.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.coco")
        .doc("Reads a COCO dataset: the encoded images under `file_root` and their annotations "
             "from `annotations_file` (or from `preprocessed_annotations`). Outputs: images "
             "(uint8, 1-D, the file bytes), bounding_boxes (float [M, 4], [x, y, w, h] or ltrb), "
             "labels (int32 [M]), then with `polygon_masks` polygons (int32 [P, 3]: object, "
             "first vertex, end vertex) and vertices (float [V, 2]), or with `pixelwise_masks` "
             "a label mask (int32 [H, W, 1], HWC), then with `image_ids` the image id (int32 "
             "[1]). Samples are the images ordered by id, or the `images` list in its order.")
        .num_inputs(0, 0)
        .num_outputs(3)
        .output_if_arg("polygon_masks")
        .output_if_arg("polygon_masks")
        .output_if_arg("masks")
        .output_if_arg("masks")
        .output_if_arg("pixelwise_masks")
        .output_if_arg("image_ids")
        .output_if_arg("save_img_ids")
        .devices({OpDevice::kCPU})
        .arg("file_root", ArgType::kString, std::string(), "Folder of the images.")
        .arg("annotations_file", ArgType::kString, std::string(), "The COCO JSON file.")
        .optional_arg("images", ArgType::kStringList,
                      "File names (as in the annotations) of the images to read, in this order; "
                      "duplicates give several samples. Default: all, ordered by image id.")
        .arg("ltrb", ArgType::kBool, false, "Boxes as [left, top, right, bottom].")
        .arg("ratio", ArgType::kBool, false,
             "Box and polygon coordinates relative to the image size.")
        .arg("skip_empty", ArgType::kBool, false, "Leave out images without any object.")
        .arg("size_threshold", ArgType::kFloat, 0.1,
             "Objects whose box is narrower or lower than this (pixels) are left out.")
        .arg("image_ids", ArgType::kBool, false, "Output the image id of each sample.")
        .arg("save_img_ids", ArgType::kBool, false, "Deprecated name of `image_ids`.")
        .arg("include_iscrowd", ArgType::kBool, true, "Keep annotations marked iscrowd=1.")
        .arg("polygon_masks", ArgType::kBool, false, "Output the polygons and their vertices.")
        .arg("masks", ArgType::kBool, false,
             "Deprecated: as `polygon_masks`, with polygons given as coordinate (not vertex) "
             "ranges.")
        .arg("pixelwise_masks", ArgType::kBool, false,
             "Output a per-pixel label mask rasterised from polygons and RLE masks.")
        .arg("avoid_class_remapping", ArgType::kBool, false,
             "Labels are the category ids, not their positions (from 1) in the file.")
        .arg("preprocessed_annotations", ArgType::kString, std::string(),
             "Folder of meta files saved by `save_preprocessed_annotations` (here or by DALI).")
        .arg("meta_files_path", ArgType::kString, std::string(),
             "Deprecated name of `preprocessed_annotations`.")
        .arg("save_preprocessed_annotations", ArgType::kBool, false,
             "Save the parsed annotations as meta files.")
        .arg("dump_meta_files", ArgType::kBool, false,
             "Deprecated name of `save_preprocessed_annotations`.")
        .arg("save_preprocessed_annotations_dir", ArgType::kString, std::string(),
             "Folder for `save_preprocessed_annotations`.")
        .arg("dump_meta_files_path", ArgType::kString, std::string(),
             "Deprecated name of `save_preprocessed_annotations_dir`.")
        .alias("coco_reader")
        .alias("COCOReader")));

class CocoReader : public Reader {
 public:
  using Reader::Reader;

  void setup(const OpContext& ctx) override {
    const bool polygon_masks = either("polygon_masks", "masks");
    legacy_polygons_ = spec_.arg<bool>("masks");
    pixelwise_ = spec_.arg<bool>("pixelwise_masks");
    SLUICE_CHECK(!(polygon_masks && pixelwise_), InvalidArgument,
                 "readers.coco: `pixelwise_masks` and `polygon_masks` are mutually exclusive");
    SLUICE_CHECK(!spec_.arg<bool>("skip_cached_images"), InvalidArgument,
                 "readers.coco does not support `skip_cached_images`");
    CocoOptions o;
    o.size_threshold = static_cast<float>(spec_.arg<double>("size_threshold"));
    o.ltrb = spec_.arg<bool>("ltrb");
    o.ratio = spec_.arg<bool>("ratio");
    o.skip_empty = spec_.arg<bool>("skip_empty");
    o.include_iscrowd = spec_.arg<bool>("include_iscrowd");
    o.avoid_class_remapping = spec_.arg<bool>("avoid_class_remapping");
    o.polygons = polygon_masks || pixelwise_;
    o.rles = pixelwise_;
    o.image_ids = either("image_ids", "save_img_ids");
    polygons_ = polygon_masks;
    image_ids_ = o.image_ids;
    if (spec_.has_arg("images")) o.images = spec_.arg<std::vector<std::string>>("images");

    const std::string preprocessed = either_str("preprocessed_annotations", "meta_files_path");
    const std::string annotations = spec_.arg<std::string>("annotations_file");
    SLUICE_CHECK(!preprocessed.empty() || !annotations.empty(), InvalidArgument,
                 "readers.coco needs `annotations_file` or `preprocessed_annotations`");
    if (!preprocessed.empty()) {
      // As DALI: these shape the preprocessed data, which is read as it was saved.
      for (const char* name : {"annotations_file", "skip_empty", "ratio", "ltrb", "images",
                               "size_threshold", "dump_meta_files", "dump_meta_files_path"}) {
        SLUICE_CHECK(!spec_.has_arg(name), InvalidArgument, "readers.coco: `", name,
                     "` does not apply to `preprocessed_annotations`");
      }
    }
    const bool save = either("save_preprocessed_annotations", "dump_meta_files");
    const std::string save_dir =
        either_str("save_preprocessed_annotations_dir", "dump_meta_files_path");
    SLUICE_CHECK(save == !save_dir.empty(), InvalidArgument,
                 "readers.coco: `save_preprocessed_annotations` and "
                 "`save_preprocessed_annotations_dir` go together");
    data_ = preprocessed.empty() ? load_coco_annotations(annotations, o)
                                 : load_coco_preprocessed(preprocessed, o);
    SLUICE_CHECK(data_.size() > 0, InvalidArgument, "readers.coco: no images to read in '",
                 preprocessed.empty() ? annotations : preprocessed, "'");
    if (save) save_coco_preprocessed(data_, o, save_dir);
    root_ = spec_.arg<std::string>("file_root");
    plan(ctx, static_cast<int64_t>(data_.size()));
  }

  void run(Workspace& ws) override {
    const int n = ws.batch_size();
    const auto& samples = ws.batch().samples;
    if (static_cast<int>(files_.size()) < n) files_.resize(n);
    std::vector<Shape> shapes(n);
    ws.for_each_sample([&](int i, int) {
      files_[i] = std::make_unique<ReadableFile>(samples[i].source);
      shapes[i] = {static_cast<int64_t>(files_[i]->size())};
    });
    TensorList& images = ws.output(0);
    images.resize(std::move(shapes), DType::kUInt8);
    ws.for_each_sample([&](int i, int) {
      files_[i]->read_all(images.raw_sample(i));
      files_[i].reset();
    });
    auto id = [&](int i) { return static_cast<size_t>(samples[i].id); };
    fill(ws.output(1), n, DType::kFloat32, 4, [&](int i) { return data_.sample_boxes(id(i)); });
    fill(ws.output(2), n, DType::kInt32, 0, [&](int i) { return data_.sample_labels(id(i)); });
    int out = 3;
    if (polygons_) {
      TensorList& polys = ws.output(out++);
      fill(polys, n, DType::kInt32, 3, [&](int i) { return data_.sample_polygons(id(i)); });
      if (legacy_polygons_) {  // coordinate ranges: twice the vertex ranges
        for (int i = 0; i < n; ++i) {
          auto* p = polys.sample<int32_t>(i);
          for (int64_t k = 0; k < polys.shape(i)[0]; ++k) {
            p[3 * k + 1] *= 2;
            p[3 * k + 2] *= 2;
          }
        }
      }
      fill(ws.output(out++), n, DType::kFloat32, 2,
           [&](int i) { return data_.sample_vertices(id(i)); });
    }
    if (pixelwise_) {
      TensorList& masks = ws.output(out++);
      std::vector<Shape> mshapes(n);
      for (int i = 0; i < n; ++i) mshapes[i] = {data_.heights[id(i)], data_.widths[id(i)], 1};
      masks.resize(std::move(mshapes), DType::kInt32);
      masks.set_layout("HWC");
      ws.for_each_sample([&](int i, int) {
        try {
          coco_label_mask(data_.sample_masks(id(i)), masks.sample<int32_t>(i));
        } catch (const Error&) {
          rethrow_with_context(std::current_exception(),
                               "readers.coco: the mask of '" + samples[i].source + "'");
        }
      });
    }
    if (image_ids_) {
      TensorList& ids = ws.output(out++);
      ids.resize_uniform(n, {1}, DType::kInt32);
      for (int i = 0; i < n; ++i) ids.sample<int32_t>(i)[0] = data_.image_ids[id(i)];
    }
    if (read_ahead()) {
      for (int64_t k : next_batch_indices()) sluice::read_ahead(sample_source(k));
    }
  }

 private:
  std::string sample_source(int64_t index) const override {
    const std::string& f = data_.files[index];
    return root_.empty() ? f : root_ + "/" + f;
  }

  bool either(const char* name, const char* old_name) const {
    return spec_.arg<bool>(name) || spec_.arg<bool>(old_name);
  }
  std::string either_str(const char* name, const char* old_name) const {
    std::string v = spec_.arg<std::string>(name);
    return v.empty() ? spec_.arg<std::string>(old_name) : v;
  }

  // Sizes `out` as [rows, width] per sample (or [rows] for width 0) and copies each sample's rows.
  template <typename Rows>
  static void fill(TensorList& out, int n, DType dtype, int64_t width, Rows rows) {
    std::vector<Shape> shapes(n);
    for (int i = 0; i < n; ++i) {
      int64_t m = static_cast<int64_t>(rows(i).size());
      shapes[i] = width ? Shape{m, width} : Shape{m};
    }
    out.resize(std::move(shapes), dtype);
    for (int i = 0; i < n; ++i) {
      auto r = rows(i);
      if (!r.empty()) std::memcpy(out.raw_sample(i), r.data(), r.size_bytes());
    }
  }

  CocoAnnotations data_;
  std::string root_;
  bool polygons_ = false;
  bool legacy_polygons_ = false;
  bool pixelwise_ = false;
  bool image_ids_ = false;
  std::vector<std::unique_ptr<ReadableFile>> files_;
};

SLUICE_REGISTER_OPERATOR("readers.coco", OpDevice::kCPU, CocoReader);

}  // namespace
}  // namespace sluice
