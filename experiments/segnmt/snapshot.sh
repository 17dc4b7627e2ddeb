#!/bin/sh
# Keep copies of a running training's resumable state (the SEG-NMT experiment's baseline):
#   experiments/segnmt/snapshot.sh $VERSO_RUNS/demo-ende $VERSO_RUNS/segnmt/baseline-snapshots &
# Every minute: when RUN/last/ holds a step not copied yet, copy it to OUT/step-NNNNNNN/
# (weights, optimizer tensors, state.json), so the baseline at step S (the SEG-NMT start)
# and at S + N (same extra budget) can be evaluated later.  Stop it with kill.
RUN="$1"; OUT="$2"
mkdir -p "$OUT"
while true; do
  STEP=$(sed -n 's/^ *"step": *\([0-9]*\),*$/\1/p' "$RUN/last/state.json" 2>/dev/null | head -1)
  if [ -n "$STEP" ]; then
    DST="$OUT/$(printf 'step-%07d' "$STEP")"
    if [ ! -d "$DST" ]; then
      mkdir -p "$DST.tmp" && cp "$RUN/last/state.json" "$RUN/last/model.safetensors" "$RUN/last/optim.safetensors" "$DST.tmp/" \
        && STEP2=$(sed -n 's/^ *"step": *\([0-9]*\),*$/\1/p' "$RUN/last/state.json" | head -1) \
        && if [ "$STEP2" = "$STEP" ]; then mv "$DST.tmp" "$DST"; else rm -rf "$DST.tmp"; fi
    fi
  fi
  sleep 60
done
