# The synthetic ceiling with the same steps as the real data (last one partial), two rounds.
set -uo pipefail
export CC=$(command -v gcc) CXX=$(command -v g++) CUDAHOSTCXX=$(command -v g++)
t0=$(date +%s)
bash tools/gpu-check --build-only > /tmp/build.txt 2>&1; echo "build $(( $(date +%s) - t0 )) s: $(tail -2 /tmp/build.txt | tr '\n' ' ')"
data=/tmp/train-data
python3 -m sluice.cli make-dataset $data --images 10000 --classes 100 > /dev/null 2>&1
echo "dataset $(( $(date +%s) - t0 )) s"
J=$OUT/train.jsonl
train() { echo "--- $*"; timeout "${T:-100}" python3 examples/imagenet/train.py $data --json $J --no-val "$@" 2>&1 \
  | tr '\r' '\n' | grep -E "images/s|Error|Traceback" | grep -v "batch/s" | tail -2; }
for r in 1 2; do
  for l in synthetic sluice-gpu; do train --loader $l --arch resnet18 -b 256 --epochs 3 --cuda-graph; done
  for l in synthetic sluice-gpu; do train --loader $l --arch resnet18 -b 256 --epochs 3; done
  echo "elapsed $(( $(date +%s) - t0 )) s"
done
for l in synthetic sluice-gpu; do train --loader $l --arch resnet50 -b 256 --epochs 3; done
echo "total $(( $(date +%s) - t0 )) s"
