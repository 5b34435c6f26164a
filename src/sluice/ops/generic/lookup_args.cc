#include "sluice/ops/generic/lookup_args.h"

#include "sluice/ops/generic/constant_op.h"

#include <cmath>
#include <cstring>
#include <string>

namespace sluice {
namespace {

// The bits of `v` stored as type T.
template <typename T>
uint64_t bits_of(T v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}

// one_hot's on / off values as DALI stores them: truncated toward zero, then wrapped to an
// integer type.
uint64_t truncated_bits(DType t, double value) {
  const double v = static_cast<float>(value);  // DALI's arguments are float
  return dtype_dispatch(t, [&](auto tag) -> uint64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      return bits_of(static_cast<T>(v));
    } else if constexpr (std::is_integral_v<T>) {
      const double r = std::trunc(v);
      const int64_t i = r > -9.2e18 && r < 9.2e18 ? static_cast<int64_t>(r) : 0;
      return bits_of(static_cast<T>(i));
    } else {
      return 0;
    }
  });
}

// lookup_table's values as DALI converts them: rounded half away from zero and saturated.
uint64_t saturated_bits(DType t, double value) {
  const double v = static_cast<float>(value);  // DALI's values are float
  return dtype_dispatch(
      t, [&](auto tag) { return bits_of(convert_sat<typename decltype(tag)::type>(v)); });
}

bool one_hot_type(DType t) {
  return t != DType::kBool && t != DType::kFloat16 && t != DType::kBFloat16;
}

}  // namespace

OneHotPlan plan_one_hot(const OpSpec& spec, const TensorList& in) {
  OneHotPlan p;
  SLUICE_CHECK(one_hot_type(in.dtype()), InvalidArgument,
               "Unsupported input type: ", dtype_name(in.dtype()));
  p.out_type = parse_dtype(spec.arg<std::string>("dtype"));
  SLUICE_CHECK(one_hot_type(p.out_type), InvalidArgument,
               "Unsupported output type: ", dtype_name(p.out_type));
  const int64_t classes = spec.arg<int64_t>("num_classes");
  const int axis = static_cast<int>(spec.arg<int64_t>("axis"));
  const int ndim = in.sample_ndim();
  SLUICE_CHECK(axis >= -1 && axis <= ndim, InvalidArgument,
               "Provided axis is outside of allowed range, got: ", axis,
               ", expected to be in range: [-1, ", ndim, "].");
  std::string name;
  if (spec.has_arg("axis_name")) {
    name = spec.arg<std::string>("axis_name");
    SLUICE_CHECK(name.size() == 1, InvalidArgument,
                 "Unsupported axis_name value. It must be a single character, got \"", name,
                 "\" instead.");
  }
  // Samples of one element each are scalars (DALI's legacy rule) unless `axis` is given.
  bool scalars = !spec.has_arg("axis");
  for (int i = 0; scalars && i < in.num_samples(); ++i) scalars = volume(in.shape(i)) == 1;
  const int out_ndim = scalars ? 1 : ndim + 1;
  const int place = scalars ? 0 : axis < 0 ? out_ndim - 1 : axis;
  for (int i = 0; i < in.num_samples(); ++i) {
    const Shape& s = in.shape(i);
    Shape o;
    int64_t outer = 1, inner = 1;
    if (scalars) {
      o = {classes};
    } else {
      for (int d = 0; d < ndim; ++d) (d < place ? outer : inner) *= s[d];
      o.assign(s.begin(), s.begin() + place);
      o.push_back(classes);
      o.insert(o.end(), s.begin() + place, s.end());
    }
    p.out_shapes.push_back(o);
    p.outer.push_back(outer);
    p.inner.push_back(inner);
  }
  if (!name.empty()) {
    const Layout& l = in.layout();
    if (out_ndim == 1) {
      p.layout = name;
    } else {
      SLUICE_CHECK(static_cast<int>(l.size()) + 1 == out_ndim, InvalidArgument,
                   "Input layout mismatch - expected input layout to be of size ", out_ndim - 1,
                   " but instead got \"", l, "\", which is of size ", l.size(), ".");
      p.layout = l.substr(0, place) + name + l.substr(place);
    }
  }
  p.params = {in.dtype(), classes, static_cast<int>(dtype_size(p.out_type)),
              truncated_bits(p.out_type, spec.arg<double>("on_value")),
              truncated_bits(p.out_type, spec.arg<double>("off_value"))};
  return p;
}

LookupPlan plan_lookup(const OpSpec& spec, DType in_type) {
  SLUICE_CHECK(dtype_is_integral(in_type) && in_type != DType::kBool, InvalidArgument,
               "Unsupported input type: ", dtype_name(in_type));
  LookupPlan p;
  p.out_type =
      parse_dtype(spec.arg<std::string>(spec.has_arg("output_dtype") ? "output_dtype" : "dtype"));
  p.word_size = static_cast<int>(dtype_size(p.out_type));
  p.default_bits = saturated_bits(p.out_type, spec.arg<double>("default_value"));
  const auto keys = spec.arg<std::vector<int64_t>>("keys");
  const auto values = spec.arg<std::vector<double>>("values");
  SLUICE_CHECK(keys.size() == values.size(), InvalidArgument,
               "`keys` size should match `values` size");
  constexpr int64_t kMaxKey = 65535;
  int64_t max_key = -1;
  for (int64_t k : keys) {
    SLUICE_CHECK(k >= 0 && k <= kMaxKey, InvalidArgument, "`keys` should be in the range [0, ",
                 kMaxKey, "]");
    max_key = std::max(max_key, k);
  }
  p.table_size = max_key + 1;
  p.table.resize(static_cast<size_t>(p.table_size) * p.word_size);
  for (int64_t k = 0; k < p.table_size; ++k) {
    std::memcpy(p.table.data() + k * p.word_size, &p.default_bits, p.word_size);
  }
  for (size_t j = 0; j < keys.size(); ++j) {  // the last of repeated keys wins
    const uint64_t bits = saturated_bits(p.out_type, values[j]);
    std::memcpy(p.table.data() + keys[j] * p.word_size, &bits, p.word_size);
  }
  return p;
}

}  // namespace sluice
