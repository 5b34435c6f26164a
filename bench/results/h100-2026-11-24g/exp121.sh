# tools/gpu-bench's loaders part (every loader, Sluice's in 1 and 3 processes) on 6,000 JPEGs, then
# two more rounds of the GPU pipeline in 1 and 3 processes beside torchvision's tensor loader.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
SLUICE_BENCH_PARTS=loaders SLUICE_BENCH_IMAGES=6000 timeout 300 bash tools/gpu-bench $OUT 2>&1 | grep -v "^running" | head -12
echo "gpu-bench at $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  timeout 120 python3 -m sluice.cli bench --data /tmp/bench-data --loaders sluice-gpu,torchvision-tensor \
    --processes 1,3 --json $OUT/bench_round$r.json --chart /tmp/c.png 2>&1 | grep -v "^running"
  echo "round $r at $(( $(date +%s) - t0 )) s"
done
