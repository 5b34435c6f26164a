# Pool threads 16 / 14 / 12 / 10 with the balanced share, alternating, 3 rounds.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
python3 -m sluice.cli make-dataset /tmp/bench-data --images 3000 --classes 10 > /dev/null 2>&1
echo "dataset $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do
  timeout -s KILL 150 python3 bench/gpu_pipeline.py /tmp/bench-data --batches 250 --threads 16,14,12,10 --loads auto 2>&1 | cut -c1-200
done
echo "total $(( $(date +%s) - t0 )) s"
