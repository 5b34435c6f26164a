// readers.numpy: .npy files (io/npy_header.h), whole or a region of interest, read with pread of
// the region's bytes only (io/npy_file.h), or from object storage (io/npy_object.h) with the
// batch's reads in flight together and those of the batches ahead started before them
// (io/objects_ahead.h). Fortran-order arrays come out in C order, as DALI gives them; the region
// is given in the output's (C-order) coordinates.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>

#include "sluice/core/mutex.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/io/npy_dataset.h"
#include "sluice/io/npy_file.h"
#include "sluice/io/npy_object.h"
#include "sluice/io/objects_ahead.h"
#include "sluice/kernels/common/dali_convert.h"
#include "sluice/kernels/slice/strided_copy.h"
#include "sluice/ops/generic/axes_args.h"
#include "sluice/ops/readers/reader.h"

namespace sluice {
namespace {

constexpr const char* kStartArgs[] = {"roi_start", "rel_roi_start"};
constexpr const char* kEndArgs[] = {"roi_end", "rel_roi_end", "roi_shape", "rel_roi_shape"};

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.numpy")
        .doc("Reads numpy arrays (.npy files) from `file_root` (its files and those of its "
             "sub-folders whose names match `file_filter`), a `file_list` (one path per line) "
             "or `files`. All numeric types and bool, C and Fortran order (Fortran arrays are "
             "returned in C order). With roi_* arguments only a region of interest is read from "
             "the file, in output coordinates; `out_of_bounds_policy` decides what a region "
             "reaching outside the array does. Sharding and shuffling as readers.file.")
        .num_inputs(0, 0)
        .num_outputs(1)
        .output_names({"data"})
        .devices({OpDevice::kCPU})
        .arg("file_root", ArgType::kString, std::string(), "Root folder of the dataset.")
        .arg("file_filter", ArgType::kString, std::string("*.npy"),
             "Glob matched against the file names in file_root and its sub-folders.")
        .arg("file_list", ArgType::kString, std::string(),
             "Text file with one path per line (relative to file_root, or to the list's "
             "folder without it).")
        .optional_arg("files", ArgType::kStringList,
                      "Explicit list of file paths (relative ones to file_root, or to the "
                      "working directory without it).")
        .arg("allow_paths_outside_root", ArgType::kBool, false,
             "Accept entries of file_list and `files` (and symlinks) that lead outside "
             "file_root, as readers.file.")
        .arg("cache_header_information", ArgType::kBool, false,
             "Parse each file's header once and remember it (the file must not change).")
        .arg("use_o_direct", ArgType::kBool, false,
             "Accepted for compatibility (needs dont_use_mmap=True, as in DALI): data is read "
             "with pread through the page cache.")
        .arg("register_buffers", ArgType::kBool, true,
             "Accepted for compatibility (applies to DALI's GPU reader only).")
        .optional_arg("roi_start", ArgType::kIntList, "Start of the region (absolute).", true)
        .optional_arg("rel_roi_start", ArgType::kFloatList,
                      "Start of the region, relative to the extent (0 to 1).", true)
        .optional_arg("roi_end", ArgType::kIntList, "End of the region (absolute).", true)
        .optional_arg("rel_roi_end", ArgType::kFloatList, "End of the region (relative).", true)
        .optional_arg("roi_shape", ArgType::kIntList, "Shape of the region (absolute).", true)
        .optional_arg("rel_roi_shape", ArgType::kFloatList, "Shape of the region (relative).", true)
        .arg("roi_axes", ArgType::kIntList, std::vector<int64_t>{},
             "Dimensions the roi_* arguments give, in their order (default: all).")
        .enum_arg("out_of_bounds_policy", {"error", "pad", "trim_to_shape"}, "error",
                  "A region reaching outside the array is an error, is padded with "
                  "`fill_value`, or is cut to the array.")
        .arg("fill_value", ArgType::kFloat, 0.0, "Padding value for out_of_bounds_policy='pad'.")
        .alias("NumpyReader")));

// DALI's names of the types, for its error messages.
std::string dali_type_name(DType t) {
  if (t == DType::kFloat32) return "float";
  if (t == DType::kFloat64) return "double";
  std::string name(dtype_name(t));  // "INT8", "UINT16", "FLOAT16", "BOOL"
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// A sample's region in output coordinates and the part of it inside the array.
struct Region {
  Shape anchor, shape;        // the output window (may reach outside when padding)
  Shape in_anchor, in_shape;  // its intersection with the array
  bool padded = false;
};

class NumpyReader : public Reader {
  using ObjectPtr = std::shared_ptr<NpyObject>;

 public:
  using Reader::Reader;

  void setup(const OpContext& ctx) override {
    const bool after_epoch = spec_.arg<bool>("shuffle_after_epoch");
    SLUICE_CHECK(!(after_epoch && spec_.arg<bool>("stick_to_shard")), InvalidArgument,
                 "shuffle_after_epoch and stick_to_shard cannot be both true");
    SLUICE_CHECK(!(after_epoch && spec_.arg<bool>("random_shuffle")), InvalidArgument,
                 "shuffle_after_epoch and random_shuffle cannot be both true");
    SLUICE_CHECK(spec_.arg<bool>("dont_use_mmap") || !spec_.arg<bool>("use_o_direct"),
                 InvalidArgument, "Cannot use use_o_direct with ``dont_use_mmap=False``.");
    auto given = [&](const char* a) { return spec_.has_arg(a) || spec_.arg_inputs.count(a) > 0; };
    int starts = 0, ends = 0;
    for (const char* a : kStartArgs) starts += given(a);
    for (const char* a : kEndArgs) ends += given(a);
    SLUICE_CHECK(starts <= 1, InvalidArgument,
                 "\"roi_start\" and \"rel_roi_start\" arguments are mutually exclusive");
    SLUICE_CHECK(ends <= 1, InvalidArgument,
                 "\"roi_end\", \"rel_roi_end\", \"roi_shape\", and \"rel_roi_shape\" arguments "
                 "are mutually exclusive");
    has_roi_ = starts + ends > 0;
    policy_ = spec_.arg<std::string>("out_of_bounds_policy");
    fill_value_ = static_cast<float>(spec_.arg<double>("fill_value"));
    cache_headers_ = spec_.arg<bool>("cache_header_information");

    NpyDatasetOptions o;
    o.file_root = spec_.arg<std::string>("file_root");
    o.file_filter = spec_.arg<std::string>("file_filter");
    o.file_list = spec_.arg<std::string>("file_list");
    if (spec_.has_arg("files")) o.files = spec_.arg<std::vector<std::string>>("files");
    o.allow_paths_outside_root = spec_.arg<bool>("allow_paths_outside_root");
    dataset_ = list_npy_dataset(o);
    plan(ctx, dataset_.size());
    scratch_.resize(std::max(ctx.num_slots, 1));
    for (const FileEntry& e : dataset_.entries) {
      if (is_s3_uri(e.path)) {
        remote_ = std::make_unique<NpyObjectReader>(s3_connections(ctx.max_batch_size));
        ahead_ = std::make_unique<ObjectsAhead<ObjectPtr>>(
            ObjectsAheadLimits::from_environment(remote_->connections(), ctx.max_batch_size),
            [](const ObjectPtr& o) { return o->bytes(); });
        break;
      }
    }
  }

  nlohmann::json stats() const override { return objects_ahead_stats(ahead_.get()); }

  void run(Workspace& ws) override {
    read_or_forget_ahead(ws, ahead_.get(), [&] { read_batch(ws); });
  }

 private:
  struct Scratch {
    std::vector<uint8_t> io, box, transposed;
  };
  using BoxReader = std::function<void(const Shape& anchor, const Shape& shape, void* dst)>;

  void read_batch(Workspace& ws) {
    const int n = ws.batch_size();
    headers_.resize(n);
    files_.resize(n);
    objects_.assign(n, nullptr);
    regions_.resize(n);
    if (ahead_) take_objects(ws);
    ws.for_each_sample([&](int i, int) {
      const int64_t id = ws.batch().samples[i].id;
      if (objects_[i]) {
        const NpyObjectHeader& h = objects_[i]->header();
        headers_[i] = h.header;
        if (cache_headers_ && has_roi_) remember(id, h);
        return;
      }
      files_[i] =
          std::make_unique<ReadableFile>(path_of(ws, i), std::numeric_limits<size_t>::max());
      headers_[i] = header_of(id, *files_[i]);
    });
    const NpyHeader& h0 = headers_[0];
    std::vector<Shape> shapes(n);
    for (int i = 0; i < n; ++i) {
      const NpyHeader& h = headers_[i];
      SLUICE_CHECK(h.shape.size() == h0.shape.size(), InvalidArgument,
                   "Inconsistent data: All samples in the batch must have the same number of "
                   "dimensions. Got \"",
                   path_of(ws, 0), "\" with ", h0.shape.size(), " dimensions and \"",
                   path_of(ws, i), "\" with ", h.shape.size(), " dimensions");
      SLUICE_CHECK(h.dtype == h0.dtype, InvalidArgument,
                   "Inconsistent data: All samples in the batch must have the same data type. "
                   "Got \"",
                   path_of(ws, 0), "\" with data type ", dali_type_name(h0.dtype), " and \"",
                   path_of(ws, i), "\" with data type ", dali_type_name(h.dtype));
      try {
        regions_[i] = region_of(ws, i, h.shape);
      } catch (const Error&) {
        rethrow_with_context(std::current_exception(), ws.sample_context(i));
      }
      shapes[i] = regions_[i].shape;
      if (objects_[i] && volume(regions_[i].in_shape) > 0) {
        Shape anchor, shape;
        storage_box(h, regions_[i], anchor, shape);
        objects_[i]->start_box(anchor, shape);
      }
      if (objects_[i]) ahead_->read(1, objects_[i]->bytes().value_or(0));  // for the estimate
    }
    TensorList& out = ws.output(0);
    out.resize(std::move(shapes), h0.dtype);
    ws.for_each_sample([&](int i, int thread) {
      Scratch& s = scratch_[thread];
      auto read_box = [&](const Shape& anchor, const Shape& shape, void* dst) {
        if (objects_[i]) {
          objects_[i]->read_box(anchor, shape, dst, s.io);
        } else {
          read_npy_box(*files_[i], npy_layout(headers_[i]), anchor, shape, dst, s.io);
        }
      };
      read_sample(path_of(ws, i), headers_[i], regions_[i], out.raw_sample(i), s, read_box);
      files_[i].reset();
      objects_[i].reset();
    });
    if (read_ahead()) sluice::read_ahead(dataset_, next_batch_indices());
  }

  std::string sample_source(int64_t index) const override { return dataset_.entries[index].path; }
  const std::string& path_of(Workspace& ws, int i) const {
    return dataset_.entries[ws.batch().samples[i].id].path;
  }

  // The batch's objects: requested while earlier batches were read, or now; then the reads of the
  // batches ahead are kept in flight, so that their round trips overlap the rest of the pipeline.
  // Each sample has its own NpyObject (one user at a time); copies share the reads started.
  void take_objects(Workspace& ws) {
    const bool whole = !has_roi_;
    auto start = [&](int64_t id) -> ObjectPtr {
      const std::string& path = dataset_.entries[id].path;
      if (!is_s3_uri(path)) return nullptr;
      std::optional<NpyObjectHeader> known;
      if (cache_headers_ && !whole) {
        MutexLock lock(cache_mutex_);
        auto it = cache_.find(id);
        if (it != cache_.end()) known = it->second;
      }
      ObjectPtr o = remote_->start(path, whole, known);
      start_constant_region(ws, *o);
      return o;
    };
    auto share = [&](const ObjectPtr& o) {
      auto copy = std::make_shared<NpyObject>(*o);
      start_constant_region(ws, *copy);
      return copy;
    };
    for (int i = 0; i < ws.batch_size(); ++i) {
      objects_[i] = ahead_->take(ws.batch().samples[i].id, start, share);
    }
    ahead_->plan([&](int64_t k) { return batch_indices_ahead(k); }, start, share);
  }

  // With a known header (cached) and regions that are no argument inputs, an object's region is
  // known before its batch comes: its reads start now too. An error is left to the batch's own
  // reading.
  void start_constant_region(Workspace& ws, NpyObject& o) {
    if (!has_roi_ || !o.has_header()) return;
    auto input = [&](const char* a) { return ws.arg_input(a) != nullptr; };
    if (std::any_of(std::begin(kStartArgs), std::end(kStartArgs), input) ||
        std::any_of(std::begin(kEndArgs), std::end(kEndArgs), input)) {
      return;
    }
    try {
      const NpyHeader& h = o.header().header;
      const Region r = region_of(ws, 0, h.shape);
      if (volume(r.in_shape) == 0) return;
      Shape anchor, shape;
      storage_box(h, r, anchor, shape);
      o.start_box(anchor, shape);
    } catch (const Error&) {
    }
  }

  void remember(int64_t index, const NpyObjectHeader& h) {
    MutexLock lock(cache_mutex_);
    cache_.emplace(index, h);
  }

  NpyHeader header_of(int64_t index, const ReadableFile& file) {
    if (cache_headers_) {
      MutexLock lock(cache_mutex_);
      auto it = cache_.find(index);
      if (it != cache_.end()) return it->second.header;
    }
    NpyHeader h = read_npy_header(file);
    if (cache_headers_) remember(index, {h, file.size()});
    return h;
  }

  // The part of region `r` inside the array, in storage order: numpy's dimensions reversed for
  // Fortran order.
  static void storage_box(const NpyHeader& h, const Region& r, Shape& anchor, Shape& shape) {
    anchor = r.in_anchor;
    shape = r.in_shape;
    if (h.fortran_order) {
      std::reverse(anchor.begin(), anchor.end());
      std::reverse(shape.begin(), shape.end());
    }
  }

  // The ROI arguments of sample i over `dims` (numpy's shape), rounded and checked as DALI.
  Region region_of(const Workspace& ws, int i, const Shape& dims) const {
    const int nd = static_cast<int>(dims.size());
    Region r;
    r.anchor.assign(nd, 0);
    r.shape = dims;
    if (has_roi_) {
      std::vector<int> axes(nd);
      const auto& axes_arg = spec_.arg<std::vector<int64_t>>("roi_axes");
      if (axes_arg.empty()) {
        for (int d = 0; d < nd; ++d) axes[d] = d;
      } else {
        axes = resolve_axes(axes_arg, nd);
      }
      auto values = [&](const char* name) -> std::optional<std::vector<double>> {
        if (!spec_.has_arg(name) && ws.arg_input(name) == nullptr) return std::nullopt;
        std::vector<double> v = ws.arg_list<double>(name, i);
        SLUICE_CHECK(v.size() == axes.size(), InvalidArgument, "Argument \"", name,
                     "\" expected shape ", axes.size(), " but got ", v.size(),
                     " values, which can't be interpreted as the expected shape.");
        return v;
      };
      auto start = values("roi_start"), rel_start = values("rel_roi_start");
      auto end = values("roi_end"), rel_end = values("rel_roi_end");
      auto shape = values("roi_shape"), rel_shape = values("rel_roi_shape");
      constexpr double kMax = static_cast<double>(std::numeric_limits<int64_t>::max());
      for (size_t k = 0; k < axes.size(); ++k) {
        const int d = axes[k];
        const double extent = static_cast<double>(dims[d]);
        // Relative values are float32 arguments, as in DALI.
        auto rel = [&](const std::vector<double>& v) { return static_cast<float>(v[k]) * extent; };
        double a = start ? (*start)[k] : rel_start ? rel(*rel_start) : 0.0;
        double e = extent;
        if (end) {
          e = (*end)[k];
        } else if (rel_end) {
          e = rel(*rel_end);
        } else if (shape) {
          SLUICE_CHECK((*shape)[k] >= 0, InvalidArgument, "shape value out of range [0, ", kMax,
                       "]. Got: ", (*shape)[k]);
          e = a + (*shape)[k];
        } else if (rel_shape) {
          SLUICE_CHECK((*rel_shape)[k] >= 0, InvalidArgument,
                       "negative shapes are not allowed. Got: ", (*rel_shape)[k]);
          e = rel_start ? (static_cast<double>(static_cast<float>((*rel_start)[k])) +
                           static_cast<float>((*rel_shape)[k])) *
                              extent
                        : a + rel(*rel_shape);
        }
        SLUICE_CHECK(e >= a, InvalidArgument,
                     "end coordinates can't be before start coordinates. Got: start=", a,
                     " end=", e);
        r.anchor[d] = std::llround(a);
        r.shape[d] = std::llround(e) - r.anchor[d];
      }
    }
    r.in_anchor.resize(nd);
    r.in_shape.resize(nd);
    bool outside = false;
    for (int d = 0; d < nd; ++d) {
      int64_t lo = std::clamp<int64_t>(r.anchor[d], 0, dims[d]);
      int64_t hi = std::clamp<int64_t>(r.anchor[d] + r.shape[d], 0, dims[d]);
      r.in_anchor[d] = lo;
      r.in_shape[d] = std::max<int64_t>(hi - lo, 0);
      outside |= lo != r.anchor[d] || hi != r.anchor[d] + r.shape[d];
    }
    if (outside && policy_ == "error") {
      auto dims_text = [](const Shape& s) {
        std::string t = "{";
        for (size_t k = 0; k < s.size(); ++k) t += (k ? " x " : "") + std::to_string(s[k]);
        return t + "}";
      };
      throw InvalidArgument(
          make_string("Slice can't be placed out of bounds with current policy. Got: input_shape=",
                      dims_text(dims), ", slice_anchor=", dims_text(r.anchor),
                      ", slice_shape=", dims_text(r.shape)));
    }
    if (outside && policy_ == "trim_to_shape") {
      r.anchor = r.in_anchor;
      r.shape = r.in_shape;
      outside = false;
    }
    r.padded = outside;
    return r;
  }

  void read_sample(const std::string& path, const NpyHeader& h, const Region& r, void* out,
                   Scratch& s, const BoxReader& read_box) const {
    const NpyLayout layout = npy_layout(h);
    const size_t elem = layout.element_size;
    const int nd = static_cast<int>(r.shape.size());
    const bool empty_inside = volume(r.in_shape) == 0;
    if (r.padded) fill(out, volume(r.shape), h.dtype);
    if (empty_inside) return;
    Shape box_anchor, box_shape;
    storage_box(h, r, box_anchor, box_shape);
    const size_t box_bytes = static_cast<size_t>(volume(box_shape)) * elem;
    void* box = out;
    if (r.padded || h.fortran_order) {
      if (s.box.size() < box_bytes) s.box.resize(box_bytes);
      box = s.box.data();
    }
    read_box(box_anchor, box_shape, box);
    const void* dense = box;  // the inside part, dense, in output order
    if (h.fortran_order) {
      void* dst = out;
      if (r.padded) {
        if (s.transposed.size() < box_bytes) s.transposed.resize(box_bytes);
        dst = s.transposed.data();
      }
      std::vector<int> perm(nd);
      for (int d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
      kernels::StridedCopyDesc desc;
      if (!kernels::describe_permuted_copy(desc, dst, box, elem, box_shape, perm)) {
        throw NotImplemented(make_string("'", path, "': a Fortran-order array of ", nd,
                                         " dimensions is beyond the transposition limit"));
      }
      kernels::strided_copy_cpu(desc, elem);
      dense = dst;
    }
    if (r.padded) paste(out, r, dense, elem);
  }

  // Copies the dense inside part into the window at its place, row by row.
  static void paste(void* out, const Region& r, const void* in, size_t elem) {
    const int nd = static_cast<int>(r.shape.size());
    if (nd == 0) {
      std::memcpy(out, in, elem);
      return;
    }
    const size_t row = static_cast<size_t>(r.in_shape[nd - 1]) * elem;
    const int64_t rows = volume(r.in_shape) / r.in_shape[nd - 1];
    std::vector<int64_t> idx(nd, 0);
    auto* dst = static_cast<uint8_t*>(out);
    const auto* src = static_cast<const uint8_t*>(in);
    for (int64_t k = 0; k < rows; ++k) {
      int64_t off = 0;
      for (int d = 0; d < nd; ++d) {
        off = off * r.shape[d] + (r.in_anchor[d] - r.anchor[d] + (d < nd - 1 ? idx[d] : 0));
      }
      std::memcpy(dst + off * elem, src + k * row, row);
      for (int d = nd - 2; d >= 0; --d) {
        if (++idx[d] < r.in_shape[d]) break;
        idx[d] = 0;
      }
    }
  }

  void fill(void* out, int64_t n, DType type) const {
    dtype_dispatch(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T v;
      if constexpr (std::is_same_v<T, bool>) {
        v = std::round(fill_value_) != 0;  // DALI's ConvertSat: -5 and 0.5 are true, 0.3 false
      } else if constexpr (std::is_same_v<T, bfloat16>) {
        v = T(fill_value_);
      } else {
        v = kernels::convert_sat<T>(fill_value_);
      }
      std::fill_n(static_cast<T*>(out), n, v);
    });
  }

  FileDataset dataset_;
  bool has_roi_ = false;
  std::string policy_;
  float fill_value_ = 0;
  bool cache_headers_ = false;
  Mutex cache_mutex_;
  std::unordered_map<int64_t, NpyObjectHeader> cache_ SLUICE_GUARDED_BY(cache_mutex_);
  std::vector<NpyHeader> headers_;
  std::vector<std::unique_ptr<ReadableFile>> files_;
  std::unique_ptr<NpyObjectReader> remote_;         // set when some entry is an s3:// URI
  std::unique_ptr<ObjectsAhead<ObjectPtr>> ahead_;  // its reads of the batches ahead
  std::vector<ObjectPtr> objects_;                  // per sample of the batch, when remote
  std::vector<Region> regions_;
  std::vector<Scratch> scratch_;
};

SLUICE_REGISTER_OPERATOR("readers.numpy", OpDevice::kCPU, NumpyReader);

}  // namespace
}  // namespace sluice
