// segmentation.random_object_bbox: the bounding box of a randomly chosen object of a label mask
// (a class first, then one of its blobs), or of the whole input. CPU only, as in DALI.

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/segmentation/blob_boxes.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("segmentation.random_object_bbox")
        .doc("Selects an object of a label mask at random and returns its bounding box. With "
             "probability `foreground_prob` it picks a class (uniformly among the labels present, "
             "or by `class_weights`), then one blob of face-connected elements of that class; "
             "otherwise, or when no blob qualifies, the box is the whole input.")
        .num_inputs(1, 1)
        .input_doc("input", "The label mask: 1 to 6 dimensions; bool, 8-, 16- or 32-bit integers.")
        .output_unless_arg("format", "box")
        .output_if_arg("output_class")
        .arg("format", ArgType::kString, std::string("anchor_shape"),
             "\"anchor_shape\": two outputs, anchor and shape; \"start_end\": two outputs, start "
             "and one-past-end coordinates; \"box\": one output, start and end concatenated.")
        .arg("background", ArgType::kInt, int64_t{0},
             "The background label; unless given, 0 or (with `classes`) a value not in `classes`.",
             /*per_sample=*/true)
        .optional_arg("classes", ArgType::kIntList,
                      "The labels considered foreground; unless given, every label but "
                      "`background`.",
                      /*per_sample=*/true)
        .optional_arg("class_weights", ArgType::kFloatList,
                      "Relative probabilities of the foreground classes (of `classes`, else of "
                      "the labels 1, 2, ... skipping `background`).",
                      /*per_sample=*/true)
        .arg("foreground_prob", ArgType::kFloat, 1.0,
             "The probability of choosing an object rather than the whole input.",
             /*per_sample=*/true)
        .arg("ignore_class", ArgType::kBool, false,
             "Choose among all blobs with equal probability instead of a class first (blobs of "
             "different classes stay apart); not with `classes`, `class_weights`, `output_class`.")
        .optional_arg("k_largest", ArgType::kInt,
                      "Choose only among the k blobs with the largest boxes (of the chosen class, "
                      "or of all with `ignore_class`).")
        .optional_arg("threshold", ArgType::kIntList,
                      "Per-axis minimum box size; a class without such a box is rejected and "
                      "another one drawn.",
                      /*per_sample=*/true)
        .arg("output_class", ArgType::kBool, false,
             "A last output with the chosen box's label (`background` for the whole input).")
        .arg("cache_objects", ArgType::kBool, false,
             "Remember the boxes of each distinct input (by a hash of its contents), for datasets "
             "of few, large masks."));

enum class BoxFormat { kAnchorShape, kStartEnd, kBox };

// The classes a sample draws from, DALI's way: explicit classes and weights, or the labels present.
struct ClassChoice {
  int background = 0;
  bool chosen = false;  // classes or weights given: else the labels present, equally weighted
  std::vector<int> classes;
  std::vector<float> weights, cdf;

  // The cumulative weights (float, summed in double); false when their sum is not positive.
  bool update_cdf() {
    cdf.resize(weights.size());
    double sum = 0;
    for (size_t k = 0; k < weights.size(); ++k) cdf[k] = static_cast<float>(sum += weights[k]);
    return sum > 0;
  }
  // The index of a class drawn by weight, or -1.
  int draw(SampleRng& rng) const {
    if (cdf.empty()) return -1;
    const double pos = rng.uniform_double() * cdf.back();
    auto k = static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), pos) - cdf.begin());
    while (k < cdf.size() && weights[k] == 0) ++k;  // a zero weight shares its position
    return k < cdf.size() ? static_cast<int>(k) : -1;
  }
};

// What cache_objects remembers of one distinct input.
struct CachedObjects {
  bool has_labels = false;
  std::vector<int> labels;
  std::map<int, kernels::BlobBoxes> boxes;  // by class label (by background with ignore_class)
};

// Two 64-bit hashes of a sample's bytes, its type and shape identify it in the cache.
using CacheKey = std::tuple<DType, Shape, uint64_t, uint64_t>;

CacheKey cache_key(const TensorList& in, int i) {
  const auto* p = static_cast<const unsigned char*>(in.raw_sample(i));
  const size_t n = static_cast<size_t>(volume(in.shape(i))) * dtype_size(in.dtype());
  uint64_t a = 0x243F6A8885A308D3ull, b = 0x13198A2E03707344ull;
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    uint64_t w;
    std::memcpy(&w, p + k, 8);
    a = mix64(a ^ w);
    b = mix64(b + w * 0x9E3779B97F4A7C15ull);
  }
  uint64_t tail = n;
  for (; k < n; ++k) tail = (tail << 8) | p[k];
  return {in.dtype(), in.shape(i), mix64(a ^ tail), mix64(b + tail)};
}

class RandomObjectBBoxCpu : public Operator {
 public:
  using Operator::Operator;

  void setup(const OpContext&) override {
    const auto format = spec_.arg<std::string>("format");
    if (format == "anchor_shape") {
      format_ = BoxFormat::kAnchorShape;
    } else if (format == "start_end") {
      format_ = BoxFormat::kStartEnd;
    } else {
      SLUICE_CHECK(format == "box", InvalidArgument, "Invalid output format: \"", format,
                   "\"\nPossible values: \"anchor_shape\", \"start_end\" and \"box\".");
      format_ = BoxFormat::kBox;
    }
    ignore_class_ = spec_.arg<bool>("ignore_class");
    output_class_ = spec_.arg<bool>("output_class");
    SLUICE_CHECK(!ignore_class_ || !(given("classes") || given("class_weights") || output_class_),
                 InvalidArgument,
                 "Class-related arguments ``classes``, ``weights`` and ``output_class`` cannot be "
                 "used when ``ignore_class`` is True");
    if (spec_.has_arg("k_largest")) {
      k_largest_ = spec_.arg<int>("k_largest");
      SLUICE_CHECK(k_largest_ >= 1, InvalidArgument, "``k_largest`` must be at least 1; got ",
                   k_largest_);
    }
    use_cache_ = spec_.arg<bool>("cache_objects");
  }

  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const int n = ws.batch_size();
    const int ndim = n ? static_cast<int>(in.shape(0).size()) : 0;
    SLUICE_CHECK(n == 0 || (ndim >= 1 && ndim <= 6), InvalidArgument,
                 "Unsupported number of dimensions ", ndim, "; must be 1..6");
    SLUICE_CHECK(n == 0 || kernels::blob_mask_type_supported(in.dtype()), InvalidArgument,
                 "Unsupported input type: ", dtype_name(in.dtype()));
    std::vector<ClassChoice> choice(n);
    std::vector<std::vector<int>> threshold(n);
    for (int i = 0; i < n; ++i) {
      choice[i] = class_choice(ws, i);
      if (given("threshold", ws)) threshold[i] = thresholds(ws, i, ndim);
    }

    const bool two = format_ != BoxFormat::kBox;
    const Shape box_shape{format_ == BoxFormat::kBox ? 2 * ndim : ndim};
    ws.output(0).resize(std::vector<Shape>(n, box_shape), DType::kInt32);
    if (two) ws.output(1).resize(std::vector<Shape>(n, box_shape), DType::kInt32);
    if (output_class_) ws.output(two ? 2 : 1).resize(std::vector<Shape>(n, Shape{}), DType::kInt32);

    std::vector<double> cost(n);
    for (int i = 0; i < n; ++i) cost[i] = static_cast<double>(volume(in.shape(i)));
    ws.for_each_sample(
        [&](int i, int) {
          SampleRng rng = ws.rng(i);
          const Shape& s = in.shape(i);
          std::vector<int32_t> lo(ndim, 0), hi(s.begin(), s.end());
          int label = choice[i].background;
          if (rng.uniform_double() < ws.arg<float>("foreground_prob", i)) {
            pick_object(in, i, choice[i], threshold[i], rng, lo, hi, label);
          }
          store(ws, i, lo, hi, label);
        },
        inline_below(in), cost);
  }

 private:
  bool given(const char* name) const {
    return spec_.has_arg(name) || spec_.arg_inputs.count(name) > 0;
  }
  bool given(const char* name, const Workspace& ws) const {
    return spec_.has_arg(name) || ws.arg_input(name);
  }

  ClassChoice class_choice(const Workspace& ws, int i) const {
    ClassChoice c;
    const bool bg_given = given("background", ws);
    c.background = bg_given ? ws.arg<int>("background", i) : 0;
    const bool cls_given = !ignore_class_ && given("classes", ws);
    const bool w_given = !ignore_class_ && given("class_weights", ws);
    c.chosen = cls_given || w_given;
    if (cls_given) c.classes = ws.arg_list<int>("classes", i);
    if (w_given) c.weights = ws.arg_list<float>("class_weights", i);
    if (cls_given && w_given) {
      SLUICE_CHECK(c.classes.size() == c.weights.size(), InvalidArgument,
                   "If both ``classes`` and ``class_weights`` are provided, their shapes must "
                   "match. Got:\n  classes.shape = {",
                   c.classes.size(), "}\n  weights.shape = {", c.weights.size(), "}");
    }
    if (cls_given) {
      if (!w_given) c.weights.assign(c.classes.size(), 1.0f);
      if (std::find(c.classes.begin(), c.classes.end(), c.background) != c.classes.end()) {
        SLUICE_CHECK(!bg_given, InvalidArgument, "Class label ", c.background,
                     " coincides with background label - please specify a different background "
                     "label or remove it from your list of foreground classes.");
        const int lowest = *std::min_element(c.classes.begin(), c.classes.end());
        if (lowest != std::numeric_limits<int>::min()) {
          c.background = lowest - 1;
        } else {
          const std::set<int> taken(c.classes.begin(), c.classes.end());
          c.background = std::numeric_limits<int>::max();
          while (taken.count(c.background)) --c.background;
        }
      }
    } else if (w_given) {
      int label = 0;  // 0, 1, 2, ... without the background
      for (size_t k = 0; k < c.weights.size(); ++k, ++label) {
        if (label == c.background) ++label;
        c.classes.push_back(label);
      }
    }
    return c;
  }

  static std::vector<int> thresholds(const Workspace& ws, int i, int ndim) {
    std::vector<int> t = ws.arg_list<int>("threshold", i);
    SLUICE_CHECK(static_cast<int>(t.size()) == ndim || t.size() == 1, InvalidArgument,
                 "Argument \"threshold\" expected shape ", ndim, " but got ", t.size(),
                 " values, which can't be interpreted as the expected shape.");
    if (t.size() == 1) t.assign(ndim, t[0]);
    return t;
  }

  // The blobs of sample i selected by `sel`, from the cache when it has them.
  kernels::BlobBoxes blobs(const TensorList& in, int i, const CacheKey* key,
                           const kernels::BlobSelect& sel) {
    const int label = static_cast<int>(sel.value);
    if (key) {
      std::lock_guard lock(cache_mutex_);
      auto& entry = cache_[*key];
      if (auto it = entry.boxes.find(label); it != entry.boxes.end()) return it->second;
    }
    kernels::BlobBoxes b;
    kernels::blob_boxes(in.raw_sample(i), in.dtype(), in.shape(i), sel, b);
    if (key) {
      std::lock_guard lock(cache_mutex_);
      cache_[*key].boxes[label] = b;
    }
    return b;
  }

  std::vector<int> labels(const TensorList& in, int i, const CacheKey* key) {
    if (key) {
      std::lock_guard lock(cache_mutex_);
      auto& entry = cache_[*key];
      if (entry.has_labels) return entry.labels;
    }
    auto l = kernels::distinct_labels(in.raw_sample(i), in.dtype(), volume(in.shape(i)));
    if (key) {
      std::lock_guard lock(cache_mutex_);
      auto& entry = cache_[*key];
      entry.labels = l;
      entry.has_labels = true;
    }
    return l;
  }

  // The index of a blob drawn uniformly among those at least `threshold` in size (among the
  // k_largest of them by box volume, ties by order), or -1.
  int64_t pick_blob(const kernels::BlobBoxes& b, const std::vector<int>& threshold,
                    SampleRng& rng) const {
    std::vector<int64_t> fit;
    for (int64_t k = 0; k < b.count(); ++k) {
      bool big = true;
      for (int d = 0; d < static_cast<int>(threshold.size()); ++d) {
        big = big && b.hi(k)[d] - b.lo(k)[d] >= threshold[d];
      }
      if (big) fit.push_back(k);
    }
    if (fit.empty()) return -1;
    if (k_largest_ > 0 && k_largest_ < static_cast<int64_t>(fit.size())) {
      std::stable_sort(fit.begin(), fit.end(),
                       [&](int64_t x, int64_t y) { return b.volume(x) > b.volume(y); });
      return fit[rng.below(static_cast<uint32_t>(k_largest_))];
    }
    return fit[rng.below(static_cast<uint32_t>(fit.size()))];
  }

  // Draws a class and one of its blobs, DALI's way: a class without a blob that qualifies is
  // dropped and another drawn. Leaves lo, hi and label as they are when none qualifies.
  void pick_object(const TensorList& in, int i, ClassChoice& c, const std::vector<int>& threshold,
                   SampleRng& rng, std::vector<int32_t>& lo, std::vector<int32_t>& hi, int& label) {
    CacheKey key_storage;
    const CacheKey* key = nullptr;
    if (use_cache_) {
      key_storage = cache_key(in, i);
      key = &key_storage;
    }
    const auto take = [&](const kernels::BlobBoxes& b, int64_t k) {
      lo.assign(b.lo(k), b.lo(k) + b.ndim);
      hi.assign(b.hi(k), b.hi(k) + b.ndim);
    };
    if (ignore_class_) {
      const auto b = blobs(in, i, key, {c.background, /*only_value=*/false});
      if (const int64_t k = pick_blob(b, threshold, rng); k >= 0) take(b, k);
      return;
    }
    std::vector<int> present = labels(in, i, key);
    present.erase(std::remove(present.begin(), present.end(), c.background), present.end());
    if (!c.chosen) {
      c.classes = present;
      c.weights.assign(present.size(), 1.0f);
    } else {
      for (size_t k = 0; k < c.classes.size(); ++k) {
        if (!std::binary_search(present.begin(), present.end(), c.classes[k])) c.weights[k] = 0;
      }
    }
    while (c.update_cdf()) {
      const int idx = c.draw(rng);
      if (idx < 0) return;
      const auto b = blobs(in, i, key, {c.classes[idx], /*only_value=*/true});
      if (const int64_t k = pick_blob(b, threshold, rng); k >= 0) {
        take(b, k);
        label = c.classes[idx];
        return;
      }
      c.weights[idx] = 0;
    }
  }

  void store(Workspace& ws, int i, const std::vector<int32_t>& lo, const std::vector<int32_t>& hi,
             int label) {
    const auto ndim = lo.size();
    auto* first = static_cast<int32_t*>(ws.output(0).raw_sample(i));
    switch (format_) {
      case BoxFormat::kBox:
        std::copy(lo.begin(), lo.end(), first);
        std::copy(hi.begin(), hi.end(), first + ndim);
        break;
      case BoxFormat::kStartEnd:
        std::copy(lo.begin(), lo.end(), first);
        std::copy(hi.begin(), hi.end(), static_cast<int32_t*>(ws.output(1).raw_sample(i)));
        break;
      case BoxFormat::kAnchorShape: {
        auto* shape = static_cast<int32_t*>(ws.output(1).raw_sample(i));
        for (size_t d = 0; d < ndim; ++d) {
          first[d] = lo[d];
          shape[d] = hi[d] - lo[d];
        }
        break;
      }
    }
    if (output_class_) {
      *static_cast<int32_t*>(ws.output(format_ == BoxFormat::kBox ? 1 : 2).raw_sample(i)) = label;
    }
  }

  BoxFormat format_ = BoxFormat::kAnchorShape;
  bool ignore_class_ = false;
  bool output_class_ = false;
  bool use_cache_ = false;
  int k_largest_ = -1;  // -1: all blobs
  std::mutex cache_mutex_;
  std::map<CacheKey, CachedObjects> cache_;
};

SLUICE_REGISTER_OPERATOR("segmentation.random_object_bbox", OpDevice::kCPU, RandomObjectBBoxCpu);

}  // namespace
}  // namespace sluice
