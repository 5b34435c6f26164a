# Pipelines in N child processes (one shard each) vs one in-process pipeline, plain and under MPS.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
python3 -m sluice.cli make-dataset /tmp/bench-data --images 6000 --classes 10 > /dev/null 2>&1
echo "dataset $(( $(date +%s) - t0 )) s"
B="timeout -s KILL 120 python3 bench/gpu_pipeline.py /tmp/bench-data --batches 200 --loads auto"
for r in 1 2; do
  $B --threads 16 2>&1 | cut -c1-140
  $B --processes 2 --threads 8,7 2>&1 | grep -E "processes|Error|error" | cut -c1-200
  $B --processes 1 --threads 16 2>&1 | grep -E "processes|Error|error" | cut -c1-200
  $B --processes 3 --threads 5 2>&1 | grep -E "processes|Error|error" | cut -c1-200
done
echo "plain done $(( $(date +%s) - t0 )) s"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d
echo "MPS:"
$B --threads 16 2>&1 | cut -c1-140
$B --processes 2 --threads 8 2>&1 | grep -E "processes|Error|error" | cut -c1-200
echo quit | nvidia-cuda-mps-control
echo "total $(( $(date +%s) - t0 )) s"
