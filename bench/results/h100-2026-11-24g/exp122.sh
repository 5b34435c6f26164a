# ProcessIterator's slots per process (device memory vs images/s): 3 x 5 threads, the rest on the CPU.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
python3 -m sluice.cli make-dataset /tmp/bench-data --images 6000 --classes 10 > /dev/null 2>&1
echo "dataset $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do
  timeout 150 python3 bench/gpu_pipeline.py /tmp/bench-data --batches 240 --loads auto --processes 3 --threads 5 \
    --rest-decoders cpu --slots 4,3,2 2>&1 | grep -E "img/s|Error|Traceback" | cut -c1-250
  timeout 60 python3 bench/gpu_pipeline.py /tmp/bench-data --batches 240 --loads auto --threads 16 2>&1 | grep -E "img/s" | cut -c1-150
  echo "round $r at $(( $(date +%s) - t0 )) s"
done
