// COCO annotation parsing speed: a generated COCO-style document (30,000 images, seven
// annotations each with a polygon of 16 to 80 coordinates: about 120 MB, a quarter of COCO
// 2017's train file), parsed with and without keeping the polygons. Bytes/s counts the JSON.

#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "sluice/io/coco_annotations.h"

namespace sluice {
namespace {

const std::string& document() {
  static const std::string doc = [] {
    std::mt19937 gen(1);
    std::uniform_real_distribution<double> coord(0.0, 480.0);
    std::uniform_int_distribution<int> vertices(8, 40), category(1, 90);
    auto num = [&] { return std::to_string(std::round(coord(gen) * 100) / 100); };
    std::string s = "{\"info\": {}, \"images\": [";
    const int images = 30000;
    for (int i = 1; i <= images; ++i) {
      if (i > 1) s += ", ";
      s += "{\"id\": " + std::to_string(i) + ", \"file_name\": \"" + std::to_string(i) +
           ".jpg\", \"width\": 640, \"height\": 480, \"license\": 1, \"date_captured\": "
           "\"2013-11-14 11:18:45\"}";
    }
    s += "], \"annotations\": [";
    for (int i = 0, id = 1; i < images; ++i) {
      for (int k = 0; k < 7; ++k, ++id) {
        if (id > 1) s += ", ";
        s += "{\"segmentation\": [[";
        for (int v = 2 * vertices(gen); v > 0; --v) s += num() + (v > 1 ? ", " : "");
        s += "]], \"area\": 1234.5, \"iscrowd\": 0, \"image_id\": " + std::to_string(i + 1) +
             ", \"bbox\": [" + num() + ", " + num() + ", " + num() + ", " + num() +
             "], \"category_id\": " + std::to_string(category(gen)) +
             ", \"id\": " + std::to_string(id) + "}";
      }
    }
    s += "], \"categories\": [";
    for (int c = 1; c <= 90; ++c) {
      s +=
          (c > 1 ? ", " : "") + std::string("{\"id\": ") + std::to_string(c) + ", \"name\": \"c\"}";
    }
    return s + "]}";
  }();
  return doc;
}

void BM_CocoParse(benchmark::State& state) {
  const std::string& doc = document();
  CocoOptions o;
  o.ratio = true;
  o.polygons = state.range(0) != 0;
  for (auto _ : state) {
    CocoAnnotations a = parse_coco_annotations(doc, o, "generated.json");
    benchmark::DoNotOptimize(a.boxes.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * doc.size()));
}
BENCHMARK(BM_CocoParse)->ArgName("polygons")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice
