#!/bin/sh
# Issue 7, CPU protocol: train the 7 cross-sentence-context systems of one corpus and seed one after
# another, each continuing the demo baseline ($VERSO_RUNS/demo-small) with its vocabulary, one thread, niced:
#   experiments/doccontext/ft_run.sh kde 1            # -> $VERSO_RUNS/doc-ft/kde/SYSTEM-s1
# Run it again to resume (finished runs are skipped by `verso train`).  Log: $VERSO_RUNS/doc-ft/CORPUS-sSEED.log
set -e
CORPUS="$1"; SEED="$2"; SYSTEMS="${3:-baseline init-enc init-dec init-both aux gated-aux best}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
export VERSO_RUNS="${VERSO_RUNS:-$ROOT/runs}"   # the runs folder (benchmarks/paths.py); the configs name it
RUNS="${DOC_FT_RUNS:-$VERSO_RUNS/doc-ft}"
BASE="$VERSO_RUNS/demo-small"
mkdir -p "$RUNS/$CORPUS"
cd "$ROOT"
(
  for s in $SYSTEMS; do
    out="$RUNS/$CORPUS/$s-s$SEED"
    mkdir -p "$out"
    [ -f "$out/spm.model" ] || cp "$BASE/spm.model" "$out/spm.model"
    echo "== $s $(date -u +%H:%M:%S)"
    OMP_NUM_THREADS=1 nice -n 10 "$ROOT/.venv/bin/python" -m engine train \
      --config "experiments/doccontext/config/${CORPUS}_ft/$s-s$SEED.toml" --out "$out" --events \
      >>"$out/events.jsonl" 2>>"$out/stderr.log" </dev/null || { echo "$s failed"; exit 1; }
    tail -1 "$out/events.jsonl"
  done
  echo "== done $(date -u +%H:%M:%S)"
) >>"$RUNS/$CORPUS-s$SEED.log" 2>&1 </dev/null &
echo "started pid $! -> $RUNS/$CORPUS-s$SEED.log"
