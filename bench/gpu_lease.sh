#!/bin/bash
# Issue 35's route A on a leased GPU (the `device` tool): the from-scratch recipe through the project's own CLI,
# then its time-lapse, everything back under $OUT (the model as 15 MB parts: the tool brings back files of 16 MB at
# most). Beside it, the test suite's part that needs no Gradio, plotly or server (none is installed there) runs on the
# GPU (`pick_device` takes CUDA) into $OUT/tests.log; TESTS=0 leaves it out. A lease has 15 device minutes in all and
# one command at most 10: the machine's start takes ~1 min, the data, vocabulary and encoding ~75 s (measured, session
# 21), the final validation and export ~20 s, the time-lapse ~30 s; then (TRACE=1, the default) the shipped lecture
# model's cold traces on the CPU beside the GPU (`bench/trace_time.py --device cpu cuda`) into $OUT/trace_time.txt.
#
# Prepared here, in the repository root (both folders are ignored by git and travel with `carry`):
#   echo /.gpu/ >> .git/info/exclude; echo /.whl/ >> .git/info/exclude; mkdir -p .gpu
#   tar -C .. -cJf .gpu/data.tar.xz shared/data/tatoeba-en-de/{train,valid}.tsv \
#     shared/data/en-de-extra/train/{wmt-news,ding-sentences,ding-terms,ui-strings}.tsv      # ~10 MB
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
#     pydantic==X pydantic-core==Y annotated-types==Z typing-inspection==W brotli==V    # the versions pip show names
# Run there:  run(command="MINUTES=6.0 bash bench/gpu_lease.sh", carry=[".gpu", ".whl"], timeout_s=600)  (476 s)
# Dry run on a CPU:  OUT=/tmp/o W=/tmp/w MINUTES=0.4 EXTRA="--device cpu --d-model 32 --n-heads 2 --d-ff 64 \
#   --n-encoder-layers 1 --n-decoder-layers 1 --vocab-size 2000 --max-tokens 4096 --loader-workers 2 --bleu-sample 20 \
#   --snapshot-steps 2 5 20" TESTS=0 bash bench/gpu_lease.sh
# Back here: cat $FILES_AT/model.tar.part* | tar -x -C OUT_PARENT, then `python -m explorer.training.model_report`.
#
# MINUTES: training minutes (the recipe's cooldown takes the last 2 of them); the wall limit of the training process
# leaves it the data phase and the export. SIGTERM at that limit still saves and exports (the loader's workers leave
# the signal to the trainer): a run stopped early is a model, not a loss.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gpu_out}; W=${W:-/tmp/gpu_run}; MINUTES=${MINUTES:-6.5}
TRAIN_S=$(python3 -c "print(int(${MINUTES} * 60 + 75 + 40))")  # the data phase, then the last step, validation, export
mkdir -p "$OUT" "$W"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
if ls .whl/*.whl >/dev/null 2>&1; then  # into python3's own environment: the tests' subprocesses need them too
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl
fi
[ -f ../shared/data/tatoeba-en-de/train.tsv ] || tar -C .. -xJf .gpu/data.tar.xz
if [ "${TESTS:-1}" = 1 ]; then  # 4 one-thread workers: the trainer and its 6 loader workers keep 11 cores
  ( OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 timeout -k 10 430 python3 -m pytest -q -p no:cacheprovider -n 4 --timeout 240 \
      --continue-on-collection-errors -m "not browser" -rfE tests --deselect tests/test_app_malformed.py \
      --deselect tests/test_classroom.py --deselect tests/test_readme_api.py --deselect tests/test_uploads.py \
      > "$OUT/tests.log" 2>&1; echo "tests rc $?" >> "$OUT/tests.log" ) &
fi
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  python3 -c "import torch, sys; print(sys.version, torch.__version__, torch.cuda.is_available())"
  nproc
} > "$OUT/machine.txt" 2>&1
(nvidia-smi dmon -s u -d 10 > "$OUT/dmon.log" 2>&1 &)
echo "setup $(elapsed) s; training limit ${TRAIN_S} s" >> "$OUT/machine.txt"
timeout -k 30 -s TERM "$TRAIN_S" python3 -m explorer.training.train --recipe lecture_scratch_en_de --out "$W/model" \
  --max-minutes "$MINUTES" $EXTRA > "$OUT/train.log" 2>&1
echo "train rc $? at $(elapsed) s" >> "$OUT/machine.txt"
timeout -k 5 60 python3 -m explorer.app.timelapse --checkpoint "$W/model" --snapshots "$W/model.work/snapshots" \
  >> "$OUT/train.log" 2>&1
echo "timelapse rc $? at $(elapsed) s" >> "$OUT/machine.txt"
[ -d "$W/model" ] && tar -C "$W" -cf - model | split -b 15M - "$OUT/model.tar.part"
if [ "${TRACE:-1}" = 1 ]; then  # issue 49 part 4: is a trace of the shipped model faster on the GPU? (~30 s)
  timeout -k 5 90 python3 -m bench.trace_time --checkpoint checkpoints/lecture-en-de --device cpu cuda --repeat 5 \
    > "$OUT/trace_time.txt" 2>&1
  echo "trace_time rc $? at $(elapsed) s" >> "$OUT/machine.txt"
fi
ls -la "$W/model" "$OUT" >> "$OUT/machine.txt" 2>&1
echo "done at $(elapsed) s" >> "$OUT/machine.txt"
wait
cat "$OUT/machine.txt"
tail -c 3000 "$OUT/train.log"
