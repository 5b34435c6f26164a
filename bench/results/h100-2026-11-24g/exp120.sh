# sluice bench side by side: the pipeline in this process, in 3 and in 4 processes (the rest on the
# CPU decoder), torchvision's tensor loader; 3 rounds.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
python3 -m sluice.cli make-dataset /tmp/bench-data --images 6000 --classes 10 > /dev/null 2>&1
echo "dataset $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for r in 1 2 3; do
  timeout 170 python3 -m sluice.cli bench --data /tmp/bench-data --loaders sluice-gpu,torchvision-tensor \
    --processes 1,3,4 --json $OUT/bench_round$r.json --chart /tmp/c.png 2>&1 | grep -v "^running"
  echo "round $r at $(( $(date +%s) - t0 )) s"
done
timeout 60 python3 bench/gpu_pipeline.py /tmp/bench-data --batches 240 --loads auto --threads 16 2>&1 | grep -E "img/s" | cut -c1-160
