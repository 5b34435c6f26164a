# sluice bench side by side, with what else runs and the GPU's clocks after each round.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
python3 -m sluice.cli make-dataset /tmp/bench-data --images 6000 --classes 10 > /dev/null 2>&1
echo "dataset $(( $(date +%s) - t0 )) s; load $(cut -d' ' -f1-3 /proc/loadavg)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for r in 1 2 3 4; do
  timeout 160 python3 -m sluice.cli bench --data /tmp/bench-data --loaders sluice-gpu,torchvision-tensor \
    --processes 1,2,3 --json $OUT/bench_round$r.json --chart /tmp/c.png 2>&1 | grep -v "^running"
  echo "round $r at $(( $(date +%s) - t0 )) s; load $(cut -d' ' -f1-3 /proc/loadavg); left: $(ps -eo comm | grep -c sluice-pipeline) pipeline processes; gpu $(nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader)"
done
