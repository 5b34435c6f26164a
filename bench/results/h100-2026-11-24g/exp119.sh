# Pipeline processes: the rest of each batch on the hybrid path (auto below 8 threads: a fixed
# share of 0.7) or on the CPU decoder (balanced share); 3 x 5, 4 x 4, 2 x 8 and in-process 16.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
python3 -m sluice.cli make-dataset /tmp/bench-data --images 6000 --classes 10 > /dev/null 2>&1
echo "dataset $(( $(date +%s) - t0 )) s"
g() { timeout 120 python3 bench/gpu_pipeline.py /tmp/bench-data --batches 240 --loads auto "$@" 2>&1 | grep -E "img/s|Error|Traceback" | cut -c1-300; }
for r in 1 2 3; do
  g --processes 3 --threads 5 --rest-decoders nvjpeg,cpu
  g --processes 4 --threads 4 --rest-decoders nvjpeg,cpu
  g --processes 2 --threads 8 --rest-decoders cpu
  g --threads 16 | cut -c1-160
  echo "round $r at $(( $(date +%s) - t0 )) s"
done
