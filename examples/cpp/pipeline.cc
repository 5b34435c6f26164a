// A Sluice pipeline from C++ alone: build the graph, run it, read the outputs, save it as JSON.
//
//   sluice_example_pipeline IMAGE_FOLDER [BATCH] [ITERATIONS]
//
// IMAGE_FOLDER has one sub-folder of JPEGs per class (e.g. `sluice make-dataset DIR`). Runs the
// ImageNet-style training pipeline on the CPU and prints throughput and the first labels.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sluice/core/error.h"
#include "sluice/exec/pipeline.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s IMAGE_FOLDER [BATCH] [ITERATIONS]\n", argv[0]);
    return 2;
  }
  const int batch = argc > 2 ? std::atoi(argv[2]) : 32;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 10;
  try {
    sluice::PipelineGraph g;
    auto reader = g.add("readers.file", "Reader", "", {}, {},
                        {{"file_root", argv[1]}, {"random_shuffle", true}});
    auto images = g.add("decoders.image_random_crop", "Decoder", "cpu", {reader[0]}, {}, {});
    images = g.add("resize", "Resize", "", {images[0]}, {}, {{"size", {224, 224}}});
    auto mirror = g.add("random.coin_flip", "Mirror", "", {}, {}, {});
    auto out = g.add("crop_mirror_normalize", "Normalize", "", {images[0]}, {{"mirror", mirror[0]}},
                     {{"mean", {123.675, 116.28, 103.53}},
                      {"std", {58.395, 57.12, 57.375}},
                      {"dtype", "FLOAT16"}});
    g.outputs = {out[0], reader[1]};

    sluice::PipelineParams params;
    params.batch_size = batch;
    params.num_threads = 4;
    params.seed = 42;
    sluice::Pipeline pipe(std::move(g), params);
    std::printf("epoch size: %s\n", pipe.executor().reader_meta("Reader").dump().c_str());

    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      auto outputs = pipe.run();
      const sluice::TensorList& data = outputs->tensors[0];
      const sluice::TensorList& labels = outputs->tensors[1];
      if (i == 0) {
        std::printf("batch of %d: %s %s, first labels:", data.num_samples(),
                    std::string(sluice::dtype_name(data.dtype())).c_str(),
                    sluice::shape_to_string(data.shape(0)).c_str());
        for (int k = 0; k < std::min(8, labels.num_samples()); ++k) {
          std::printf(" %d", labels.sample<int32_t>(k)[0]);
        }
        std::printf("\n");
      }
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.0f images/s\n", iterations * batch / s);
    std::printf("serialised: %zu bytes of JSON\n", pipe.serialize().size());
  } catch (const sluice::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
