#!/bin/bash
# Device side of benchmarks/gpu_session.py (first call of a GPU session), from the repo root:
#   PLAN=s12 bash benchmarks/gpu_session.sh .devdata/data.tar.gz     # after, here: gpu_session.py bundle --plan s12
# Unpacks the carried data beside the repo (../runs, ../shared/data: where the committed configs
# look), starts CUDA MPS so that ~20 small training processes share the GPU, runs a solo throughput
# check (also the CUDA smoke test), then starts the driver detached.  Results under ../runs/gpu.
set -u
BUNDLE="$1"
ROOT="$(pwd)"; PARENT="$(dirname "$ROOT")"
mkdir -p "$PARENT/runs" "$PARENT/shared/data"
tar -xzf "$BUNDLE" -C "$PARENT" || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, torch.cuda.get_device_name(0))"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
if nvidia-cuda-mps-control -d 2>/dev/null; then echo "MPS started"; else echo "MPS not available"; unset CUDA_MPS_PIPE_DIRECTORY; fi
SOLO="$PARENT/runs/gpu-solo"
# solo throughput (also the CUDA smoke test): the KDE document-level baseline alone on the GPU for 200 steps
# (runs/doc-data/kde travels with every plan)
SOLOCFG=benchmarks/configs/doc_kde/.solo.toml
sed -e 's/^max_epochs = .*/max_epochs = 2\nmax_steps = 200/' -e 's/^log_every = .*/log_every = 50/' \
    -e 's/^patience = 4/patience = 4\ndev_max_sentences = 100/' benchmarks/configs/doc_kde/baseline-s1.toml > $SOLOCFG
timeout 150 python3 -m engine train --config $SOLOCFG --out "$SOLO" --events --quiet \
  > "$PARENT/runs/gpu-solo.events.jsonl" 2> "$PARENT/runs/gpu-solo.stderr"
rc=$?
tail -3 "$PARENT/runs/gpu-solo.events.jsonl"; tail -5 "$PARENT/runs/gpu-solo.stderr"
if [ $rc -ne 0 ] && [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
  echo "solo run failed under MPS (rc $rc): stopping MPS and trying again"
  echo quit | nvidia-cuda-mps-control; unset CUDA_MPS_PIPE_DIRECTORY; rm -rf "$SOLO"
  timeout 240 python3 -m engine train --config $SOLOCFG \
    --out "$SOLO" --events --quiet > "$PARENT/runs/gpu-solo.events.jsonl" 2> "$PARENT/runs/gpu-solo.stderr" || { tail -20 "$PARENT/runs/gpu-solo.stderr"; exit 1; }
elif [ $rc -ne 0 ]; then
  tail -30 "$PARENT/runs/gpu-solo.stderr"; exit 1
fi
rm -f $SOLOCFG
python3 benchmarks/gpu_session.py start --runs "$PARENT/runs/gpu" --parallel "${PARALLEL:-20}" --plan "${PLAN:-s12}"
