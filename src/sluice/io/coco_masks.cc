#include "sluice/io/coco_masks.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "sluice/core/error.h"

namespace sluice {
namespace {

// Upper bound on the boundary points of one polygon (256 MB of them; a 10,000 x 10,000 image's
// outline has 200,000): vertices absurdly far outside the image would otherwise exhaust memory.
constexpr int64_t kMaxBoundaryPoints = int64_t{1} << 24;

void check_covers(const std::vector<uint32_t>& counts, int64_t h, int64_t w) {
  SLUICE_CHECK(h > 0 && w > 0, InvalidArgument, "RLE size [", h, ", ", w, "] is not positive");
  int64_t total = 0;
  for (uint32_t c : counts) total += c;
  SLUICE_CHECK(total == h * w, InvalidArgument, "RLE counts cover ", total, " pixels, not ", h,
               " x ", w, " = ", h * w);
}

}  // namespace

CocoRle coco_rle_from_string(std::string_view s, int64_t h, int64_t w) {
  CocoRle r{h, w, {}};
  size_t p = 0;
  while (p < s.size()) {
    int64_t x = 0;
    int k = 0;
    bool more = true;
    while (more) {
      SLUICE_CHECK(p < s.size(), InvalidArgument, "RLE string ends inside a count at ", p);
      SLUICE_CHECK(k < 7, InvalidArgument, "RLE string has a count too long at ", p);
      int c = static_cast<unsigned char>(s[p]) - 48;
      SLUICE_CHECK(c >= 0 && c < 64, InvalidArgument, "RLE string has a bad character at ", p);
      x |= static_cast<int64_t>(c & 0x1F) << (5 * k);
      more = (c & 0x20) != 0;
      ++p;
      ++k;
      if (!more && (c & 0x10)) x |= ~int64_t{0} << (5 * k);  // sign extension
    }
    if (r.counts.size() > 2) x += r.counts[r.counts.size() - 2];
    SLUICE_CHECK(x >= 0 && x <= h * w, InvalidArgument, "RLE string has a count of ", x, " at ", p,
                 " (image of ", h * w, " pixels)");
    r.counts.push_back(static_cast<uint32_t>(x));
  }
  check_covers(r.counts, h, w);
  return r;
}

CocoRle coco_rle_from_counts(std::vector<uint32_t> counts, int64_t h, int64_t w) {
  check_covers(counts, h, w);
  return {h, w, std::move(counts)};
}

std::string coco_rle_to_string(const CocoRle& rle) {
  std::string s;
  for (size_t i = 0; i < rle.counts.size(); ++i) {
    int64_t x = rle.counts[i];
    if (i > 2) x -= rle.counts[i - 2];
    bool more = true;
    while (more) {
      int c = static_cast<int>(x & 0x1F);
      x >>= 5;
      more = (c & 0x10) ? x != -1 : x != 0;
      if (more) c |= 0x20;
      s.push_back(static_cast<char>(c + 48));
    }
  }
  return s;
}

CocoRle coco_rle_from_polygon(std::span<const double> xy, int64_t h, int64_t w) {
  // Upsample by 5, walk the boundary densely, keep its crossings of pixel columns, then turn the
  // sorted crossings into runs: COCO's rleFrPoly.
  constexpr double kScale = 5;
  const size_t k = xy.size() / 2;
  std::vector<int64_t> x(k + 1), y(k + 1);
  auto upscale = [&](double v) {
    double t = kScale * v + .5;
    SLUICE_CHECK(std::abs(t) < 2147483647.0, InvalidArgument, "polygon vertex ", v,
                 " is out of range");
    return static_cast<int64_t>(t);  // truncation toward zero, as the C cast
  };
  for (size_t j = 0; j < k; ++j) x[j] = upscale(xy[2 * j]);
  for (size_t j = 0; j < k; ++j) y[j] = upscale(xy[2 * j + 1]);
  if (k > 0) {
    x[k] = x[0];
    y[k] = y[0];
  }
  int64_t m = 0;
  for (size_t j = 0; j < k; ++j) {
    m += std::max(std::abs(x[j] - x[j + 1]), std::abs(y[j] - y[j + 1])) + 1;
    SLUICE_CHECK(m <= kMaxBoundaryPoints, InvalidArgument,
                 "polygon is too large to rasterise (vertices far outside the image)");
  }
  std::vector<int64_t> u, v;
  u.reserve(m);
  v.reserve(m);
  for (size_t j = 0; j < k; ++j) {
    int64_t xs = x[j], xe = x[j + 1], ys = y[j], ye = y[j + 1];
    const int64_t dx = std::abs(xe - xs), dy = std::abs(ys - ye);
    const bool flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
    if (flip) {
      std::swap(xs, xe);
      std::swap(ys, ye);
    }
    // A repeated vertex makes s 0/0; the C cast of the NaN gives INT_MIN on x86, and the point
    // never lies on a column crossing, so any value would do.
    auto round = [](double r) {
      return std::isnan(r) ? int64_t{INT32_MIN} : static_cast<int64_t>(r + .5);
    };
    const double s = dx >= dy ? static_cast<double>(ye - ys) / static_cast<double>(dx)
                              : static_cast<double>(xe - xs) / static_cast<double>(dy);
    if (dx >= dy) {
      for (int64_t d = 0; d <= dx; ++d) {
        int64_t t = flip ? dx - d : d;
        u.push_back(t + xs);
        v.push_back(round(static_cast<double>(ys) + s * static_cast<double>(t)));
      }
    } else {
      for (int64_t d = 0; d <= dy; ++d) {
        int64_t t = flip ? dy - d : d;
        v.push_back(t + ys);
        u.push_back(round(static_cast<double>(xs) + s * static_cast<double>(t)));
      }
    }
  }
  // Points on the boundary's crossings of pixel columns, downsampled.
  std::vector<uint32_t> a;
  const double wd = static_cast<double>(w), hd = static_cast<double>(h);
  for (size_t j = 1; j < u.size(); ++j) {
    if (u[j] == u[j - 1]) continue;
    double xd = static_cast<double>(u[j] < u[j - 1] ? u[j] : u[j] - 1);
    xd = (xd + .5) / kScale - .5;
    if (std::floor(xd) != xd || xd < 0 || xd > wd - 1) continue;
    double yd = static_cast<double>(v[j] < v[j - 1] ? v[j] : v[j - 1]);
    yd = (yd + .5) / kScale - .5;
    if (yd < 0) {
      yd = 0;
    } else if (yd > hd) {
      yd = hd;
    }
    yd = std::ceil(yd);
    a.push_back(static_cast<uint32_t>(static_cast<int64_t>(xd) * h + static_cast<int64_t>(yd)));
  }
  a.push_back(static_cast<uint32_t>(h * w));
  std::sort(a.begin(), a.end());
  uint32_t prev = 0;
  for (uint32_t& t : a) {
    uint32_t cur = t;
    t -= prev;
    prev = cur;
  }
  CocoRle r{h, w, {}};
  size_t j = 0;
  r.counts.push_back(a[j++]);
  while (j < a.size()) {
    if (a[j] > 0) {
      r.counts.push_back(a[j++]);
    } else {
      ++j;
      if (j < a.size()) r.counts.back() += a[j++];
    }
  }
  return r;
}

CocoRle coco_rle_union(std::span<const CocoRle> rles) {
  if (rles.empty()) return {};
  CocoRle acc = rles[0];
  for (size_t i = 1; i < rles.size(); ++i) {
    const CocoRle& b = rles[i];
    if (b.h != acc.h || b.w != acc.w) return {};  // as rleMerge: sizes differ, nothing
    const CocoRle a = std::move(acc);
    acc = CocoRle{a.h, a.w, {}};
    if (a.counts.empty() || b.counts.empty()) continue;
    uint32_t ca = a.counts[0], cb = b.counts[0], cc = 0;
    bool va = false, vb = false, v = false;
    size_t ia = 1, ib = 1;
    int64_t ct = 1;
    while (ct > 0) {
      uint32_t c = std::min(ca, cb);
      cc += c;
      ct = 0;
      ca -= c;
      if (!ca && ia < a.counts.size()) {
        ca = a.counts[ia++];
        va = !va;
      }
      ct += ca;
      cb -= c;
      if (!cb && ib < b.counts.size()) {
        cb = b.counts[ib++];
        vb = !vb;
      }
      ct += cb;
      bool vp = v;
      v = va || vb;
      if (v != vp || ct == 0) {
        acc.counts.push_back(cc);
        cc = 0;
      }
      if (c == 0 && ca != 0 && cb == 0 && ib >= b.counts.size()) break;  // inconsistent sizes
    }
  }
  return acc;
}

namespace {

// Runs with a value each: the label mask being built.
struct LabelRuns {
  std::vector<uint32_t> counts;
  std::vector<int32_t> vals;
};

// Lays the runs of `label`'s mask `b` over `a`, as DALI's readers.coco merges labels.
LabelRuns overlay(const LabelRuns& a, const CocoRle& b, int32_t label) {
  LabelRuns out;
  const size_t am = a.counts.size();
  uint32_t cnt_a = am ? a.counts[0] : 0;
  uint32_t cnt_b = b.counts[0];
  int32_t next_val_a = am ? a.vals[0] : 0;
  int32_t val_a = next_val_a;
  bool next_vb = false, vb = false;
  size_t seq_a = 1, seq_b = 1;
  int64_t cnt_tot = 1;
  while (cnt_tot > 0) {
    uint32_t c = std::min(cnt_a, cnt_b);
    cnt_tot = 0;
    cnt_a -= c;
    if (!cnt_a && seq_a < am) {
      cnt_a = a.counts[seq_a];
      next_val_a = a.vals[seq_a];
      ++seq_a;
    }
    cnt_tot += cnt_a;
    cnt_b -= c;
    bool b_moved = false;
    if (!cnt_b && seq_b < b.counts.size()) {
      cnt_b = b.counts[seq_b++];
      next_vb = !next_vb;
      b_moved = true;
    }
    cnt_tot += cnt_b;
    int32_t v = 0;
    if (val_a && vb) {
      v = !cnt_a ? val_a : label;  // both: the later label, unless the earlier run ends here
    } else if (val_a) {
      v = val_a;
    } else if (vb) {
      v = label;
    }
    out.vals.push_back(v);
    out.counts.push_back(c);
    val_a = next_val_a;
    vb = next_vb;
    if (cnt_a == 0) break;
    if (c == 0 && cnt_b == 0 && !b_moved) break;  // b ended before a: inconsistent sizes
  }
  return out;
}

}  // namespace

void coco_label_mask(const CocoSampleMasks& s, int32_t* out) {
  const int64_t h = s.h, w = s.w;
  std::fill(out, out + h * w, 0);
  std::set<int32_t> labels(s.labels.begin(), s.labels.end());
  if (labels.empty()) return;
  std::map<int32_t, std::vector<CocoRle>> from_polygons;
  std::vector<double> xy;
  for (const auto& [object, first, end] : s.polygons) {
    xy.clear();
    for (int32_t v = first; v < end; ++v) {
      xy.push_back(s.vertices[v][0]);
      xy.push_back(s.vertices[v][1]);
    }
    from_polygons[s.labels[object]].push_back(coco_rle_from_polygon(xy, h, w));
  }
  std::map<int32_t, CocoRle> masks;
  for (size_t i = 0; i < s.rles.size(); ++i) masks[s.labels[s.rle_objects[i]]] = s.rles[i];
  for (const auto& [label, polys] : from_polygons) masks[label] = coco_rle_union(polys);

  LabelRuns acc;
  const int32_t first = *labels.begin();
  if (auto it = masks.find(first); it != masks.end()) {
    bool on = false;
    for (uint32_t c : it->second.counts) {
      acc.counts.push_back(c);
      acc.vals.push_back(on ? first : 0);
      on = !on;
    }
  }
  for (auto l = std::next(labels.begin()); l != labels.end(); ++l) {
    auto it = masks.find(*l);
    if (it == masks.end() || it->second.counts.empty()) continue;
    acc = overlay(acc, it->second, *l);
  }
  // Column-major runs into the row-major mask.
  int64_t x = 0, y = 0;
  for (size_t i = 0; i < acc.counts.size() && x < w; ++i) {
    for (uint32_t j = 0; j < acc.counts[i] && x < w; ++j) {
      out[x + y * w] = acc.vals[i];
      if (++y >= h) {
        y = 0;
        ++x;
      }
    }
  }
}

}  // namespace sluice
