# ProcessIterator with one process per shard: GPU tests, then the pipeline in 1-3 processes.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
python3 -m sluice.cli make-dataset /tmp/bench-data --images 6000 --classes 10 > /dev/null 2>&1 &
SLUICE_TEST_DATA=$PWD/.gpu/data timeout 150 python3 -m pytest -q -p no:cacheprovider tests/python/test_process_iterator.py 2>&1 | tail -3
wait; echo "dataset and tests $(( $(date +%s) - t0 )) s"
for r in 1 2; do
  timeout 100 python3 bench/gpu_pipeline.py /tmp/bench-data --batches 240 --loads auto 2>&1 | grep -E "img/s|Error" | cut -c1-150
  timeout 150 python3 bench/gpu_pipeline.py /tmp/bench-data --batches 240 --loads auto --processes 2,3 --threads 8,5 2>&1 | grep -E "img/s|Error|Traceback" | cut -c1-200
done
echo "total $(( $(date +%s) - t0 )) s"
