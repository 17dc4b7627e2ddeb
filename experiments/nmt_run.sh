#!/bin/sh
# Start (or resume) one training run in the background, niced, one thread:
#   experiments/nmt_run.sh experiments/gates_bridging/config/base.toml $VERSO_RUNS/multi30k/gru-base-s1
# Events go to OUT/events.jsonl, errors to OUT/stderr.log.  Run it again to resume.
set -e
CONFIG="$1"; OUT="$2"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export VERSO_RUNS="${VERSO_RUNS:-$ROOT/runs}"   # the runs folder (benchmarks/paths.py); the configs name it
mkdir -p "$OUT"
cd "$ROOT"
OMP_NUM_THREADS=1 setsid nohup nice -n 10 "$ROOT/.venv/bin/python" -m engine train --config "$CONFIG" --out "$OUT" --events \
  >>"$OUT/events.jsonl" 2>>"$OUT/stderr.log" </dev/null &
echo "started pid $! -> $OUT"
