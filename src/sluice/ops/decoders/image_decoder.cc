#include "sluice/ops/decoders/image_decoder.h"

namespace sluice {

void ImageDecoderCpu::run(Workspace& ws) {
  const TensorList& in = ws.input(0);
  const int n = ws.batch_size();
  DecodeBatch b = read_headers(ws);
  std::vector<double> cost(n, 0.0);
  for (int i = 0; i < n; ++i) {
    if (!b.bad[i]) cost[i] = decode_cost(in.sample_bytes(i), b.info[i], b.params[i].crop);
  }
  TensorList& out = allocate_output(ws, b);
  ws.for_each_sample(
      [&](int i, int thread) {
        if (b.bad[i]) return;
        guarded(ws, b, i, [&] { decode_with_cpu_codec(ws, b, i, thread, out.raw_sample(i)); });
      },
      1, cost);
  replace_bad_samples(ws, b, out);
}

}  // namespace sluice
