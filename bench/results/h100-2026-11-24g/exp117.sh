# GPU tests of ProcessIterator and the bench tool; sluice bench (every image once per epoch, device
# memory as free memory taken) with 1, 2 and 3 pipeline processes beside torchvision, 3 rounds.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
python3 -m sluice.cli make-dataset /tmp/bench-data --images 6000 --classes 10 > /dev/null 2>&1 &
SLUICE_TEST_DATA=$PWD/.gpu/data timeout 280 python3 -m pytest -q -p no:cacheprovider -rs tests/python/test_process_iterator.py tests/python/test_tools.py 2>&1 | tail -6 | tee $OUT/tests.txt
wait; echo "dataset and tests $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for r in 1 2 3; do
  timeout 160 python3 -m sluice.cli bench --data /tmp/bench-data --loaders sluice-gpu,torchvision-tensor \
    --processes 1,2,3 --json $OUT/bench_round$r.json --chart /tmp/c.png 2>&1 | grep -v "^running"
  echo "round $r at $(( $(date +%s) - t0 )) s"
done
