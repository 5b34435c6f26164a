// segmentation.select_masks: the polygons (and their vertices) of the selected mask ids, in the
// order of the ids, as COCO's reader gives them. CPU only, as in DALI.

#include <cstring>
#include <unordered_map>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("segmentation.select_masks")
        .doc("Selects the polygons of the given mask ids, with their vertices renumbered.")
        .num_inputs(3, 3)
        .input_doc("mask_ids", "The mask ids to select: 1D, int32, without duplicates.")
        .input_doc("polygons", "Polygons [N, 3], int32: mask id, first vertex, end vertex.")
        .input_doc("vertices", "Vertices [M, D], any type.")
        .num_outputs(2)
        .arg("reindex_masks", ArgType::kBool, false,
             "Replace the mask ids by their positions in `mask_ids`."));

struct Polygon {
  int32_t new_id = -1;
  int64_t start = -1, end = -1;
};

class SelectMasksCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& ids = ws.input(0);
    const TensorList& polys = ws.input(1);
    const TensorList& verts = ws.input(2);
    const int n = ws.batch_size();
    SLUICE_CHECK(ids.dtype() == DType::kInt32, InvalidArgument,
                 "``mask_ids`` input is expected to be int32");
    SLUICE_CHECK(polys.dtype() == DType::kInt32, InvalidArgument,
                 "``polygons`` input is expected to be int32");
    const bool reindex = spec_.arg<bool>("reindex_masks");
    std::vector<std::vector<Polygon>> selected(n);
    std::vector<Shape> poly_shapes(n), vert_shapes(n);
    for (int i = 0; i < n; ++i) {
      SLUICE_CHECK(ids.shape(i).size() == 1, InvalidArgument,
                   "``mask_ids`` input is expected to be 1D");
      SLUICE_CHECK(polys.shape(i).size() == 2, InvalidArgument,
                   "``polygons`` input is expected to be 2D. Got ", polys.shape(i).size(), "D");
      SLUICE_CHECK(verts.shape(i).size() == 2, InvalidArgument,
                   "``vertices`` input is expected to be 2D. Got ", verts.shape(i).size(), "D");
      SLUICE_CHECK(polys.shape(i)[1] == 3, InvalidArgument,
                   "``polygons`` is expected to contain 2D tensors with 3 columns: ``mask_id, "
                   "start_idx, end_idx``. Got ",
                   polys.shape(i)[1], " columns.");
      const auto* id = static_cast<const int32_t*>(ids.raw_sample(i));
      const int64_t num_ids = ids.shape(i)[0];
      std::unordered_map<int32_t, Polygon> by_id;
      for (int64_t k = 0; k < num_ids; ++k) {
        SLUICE_CHECK(!by_id.count(id[k]), InvalidArgument,
                     "mask_ids should not have duplicated values. Got ", id[k], " repeated.");
        by_id[id[k]].new_id = reindex ? static_cast<int32_t>(k) : id[k];
      }
      const auto* p = static_cast<const int32_t*>(polys.raw_sample(i));
      const int64_t num_vertices = verts.shape(i)[0];
      for (int64_t k = 0; k < polys.shape(i)[0]; ++k) {
        auto it = by_id.find(p[3 * k]);
        if (it == by_id.end()) continue;
        it->second.start = p[3 * k + 1];  // a later polygon of the same mask replaces it
        it->second.end = p[3 * k + 2];
        SLUICE_CHECK(it->second.start >= 0 && it->second.end <= num_vertices, InvalidArgument,
                     "Vertex index range for mask id ", p[3 * k], " [", it->second.start, ", ",
                     it->second.end,
                     ") is out of bounds. Expected to be within the range of available vertices "
                     "[0, ",
                     num_vertices, ").");
        SLUICE_CHECK(it->second.end >= it->second.start, InvalidArgument,
                     "Vertex start index can't be after end index. Got [", it->second.start, ", ",
                     it->second.end, ")");
      }
      int64_t total = 0;
      for (int64_t k = 0; k < num_ids; ++k) {
        const Polygon& poly = by_id[id[k]];
        SLUICE_CHECK(poly.start != -1 || poly.end != -1, InvalidArgument, "Selected mask_id ",
                     id[k], " is not present in the input.");
        selected[i].push_back(poly);
        total += poly.end - poly.start;
      }
      poly_shapes[i] = {num_ids, 3};
      vert_shapes[i] = {total, verts.shape(i)[1]};
    }
    TensorList& out_polys = ws.output(0);
    TensorList& out_verts = ws.output(1);
    out_polys.resize(poly_shapes, DType::kInt32);
    out_verts.resize(vert_shapes, verts.dtype());
    const size_t elem = dtype_size(verts.dtype());
    for (int i = 0; i < n; ++i) {
      const size_t row = static_cast<size_t>(verts.shape(i)[1]) * elem;
      auto* op = static_cast<int32_t*>(out_polys.raw_sample(i));
      auto* ov = static_cast<char*>(out_verts.raw_sample(i));
      const auto* iv = static_cast<const char*>(verts.raw_sample(i));
      int64_t at = 0;
      for (const Polygon& poly : selected[i]) {
        const int64_t count = poly.end - poly.start;
        *op++ = poly.new_id;
        *op++ = static_cast<int32_t>(at);
        *op++ = static_cast<int32_t>(at + count);
        std::memcpy(ov + at * row, iv + poly.start * row, count * row);
        at += count;
      }
    }
  }
};

SLUICE_REGISTER_OPERATOR("segmentation.select_masks", OpDevice::kCPU, SelectMasksCpu);

}  // namespace
}  // namespace sluice
