#!/bin/bash
# The larger demo model on a lent GPU, one command from the repository root (<= 600 s, nothing downloaded there):
#   bash experiments/larger/gpu_run.sh                      # device tool: carry ["runs/larger-carry"]
#   NO_WHEELS=1 PY=.venv/bin/python TRAIN_S=60 MAX_STEPS=20 BATCH_TOKENS=500 EVAL_EVERY=10 EVAL_CAP=30 \
#     bash experiments/larger/gpu_run.sh                    # the CPU check here (the wheels are for Python 3.12)
# Needs runs/larger-carry/ made here first (python -m experiments.larger.pack): the demo corpus, the KDE manuals'
# lines and the effort TM (data.tar.xz) and wheels of what the device's image lacks (whl/).
# Timeline (600 s): unpack ~15 s; train TRAIN_S (330, spm included) s on CUDA, while the shipped demo model's effort runs on the
# CPU beside it (same machine, same protocol); then the new model's BLEU by fuzzy band (verso eval --tm) and effort
# (benchmarks/effort.py --device cuda), each capped; the model (split in 15 MB parts), run.log and results.json
# go to $OUT (the device tool returns at most 8 files of 16 MiB).
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/runs/larger-out}
PY=${PY:-python3}
TRAIN_S=${TRAIN_S:-330}
EVAL_CAP=${EVAL_CAP:-75}
CARRY=$ROOT/runs/larger-carry
W=$ROOT/runs/larger              # VERSO_RUNS of the new model
B=$ROOT/runs/larger-demo         # VERSO_RUNS of the demo model's baseline (its own working TM)
mkdir -p "$OUT" "$W" "$B"
LOG=$OUT/run.log
exec > >(tee -a "$LOG") 2>&1
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
if [ -z "${NO_WHEELS:-}" ] && ls "$CARRY"/whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/verso-site \
    "$CARRY"/whl/*.whl || exit 1
  export PYTHONPATH=/tmp/verso-site:$ROOT
fi
tar -xJf "$CARRY/data.tar.xz" -C "$W" || exit 1
mkdir -p "$B/effort" && cp -r "$W"/effort/tm-* "$B/effort/"
export VERSO_SHARED_DATA=$W/shared OMP_NUM_THREADS=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null
$PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
stamp "unpacked"

# the baseline on the CPU, beside the training: the shipped demo model without memory (65 + 54 s on the 2-core VM),
# each capped so that both end before the training does
( export VERSO_RUNS=$B
  timeout $(( TRAIN_S / 2 + 30 )) $PY -m benchmarks.effort --model resources/models/demo --memory none --docs 100 \
     --min-segs 1 --max-segs 100000 --max-words 100000 --interactive none --json "$B/demo-pe-none.json" > "$B/demo-pe-none.txt" 2>&1
  timeout $(( TRAIN_S / 2 + 30 )) $PY -m benchmarks.effort --model resources/models/demo --memory none --docs 5 \
     --min-segs 10 --max-segs 40 --max-words 60 --interactive word --json "$B/demo-word-none.json" > "$B/demo-word-none.txt" 2>&1
) &
BASE_PID=$!

stamp "training"
VERSO_RUNS=$W $PY -m experiments.larger.train --config experiments/larger/config/base.toml --out "$W/model" \
  --seconds "$TRAIN_S" ${MAX_STEPS:+--max-steps $MAX_STEPS} ${BATCH_TOKENS:+--batch-tokens $BATCH_TOKENS} \
  ${EVAL_EVERY:+--eval-every $EVAL_EVERY} | grep -v '"event": "step"'
stamp "trained"
# the model folder at once (a later stage cut by the command's limit loses only its numbers), without the
# resumable state (last/): manifest, config, spm, the best checkpoint (fp16)
tar -cf - -C "$W/model" --exclude=./last . | split -b 15M - "$OUT/model.tar.part-"
DEV=cpu; $PY -c "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)" && DEV=cuda
export VERSO_RUNS=$W
timeout "$EVAL_CAP" $PY -m engine eval --model "$W/model" --device $DEV --src "$W/demo-data/test.en" \
  --ref "$W/demo-data/test.de" --tm "$W"/effort/tm-* --markup none --hyp-out "$W/test.hyp" > "$W/eval.json"
stamp "eval done ($?)"
timeout "$EVAL_CAP" $PY -m benchmarks.effort --model "$W/model" --device $DEV --memory none --docs 100 --min-segs 1 \
  --max-segs 100000 --max-words 100000 --interactive none --json "$W/larger-pe-none.json" > "$W/larger-pe-none.txt" 2>&1
stamp "effort PE done ($?)"
timeout "$EVAL_CAP" $PY -m benchmarks.effort --model "$W/model" --device $DEV --memory none --docs 5 --min-segs 10 \
  --max-segs 40 --max-words 60 --interactive word --json "$W/larger-word-none.json" > "$W/larger-word-none.txt" 2>&1
stamp "effort word done ($?)"
kill "$BASE_PID" 2>/dev/null; wait "$BASE_PID" 2>/dev/null
for f in "$B"/demo-*.txt "$W"/larger-*.txt; do echo "---- $(basename "$f")"; tail -12 "$f"; done
$PY - "$W" "$B" "$OUT/results.json" <<'PYEOF'
import json, sys
from pathlib import Path
w, b, out = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
res = {}
for name, p in [("eval", w / "eval.json"), ("larger_pe_none", w / "larger-pe-none.json"),
                ("larger_word_none", w / "larger-word-none.json"), ("demo_pe_none", b / "demo-pe-none.json"),
                ("demo_word_none", b / "demo-word-none.json")]:
    try:
        res[name] = json.loads(p.read_text())
    except (OSError, ValueError) as e:
        res[name] = {"missing": str(e)}
hist = w / "model" / "history.jsonl"
res["history"] = [json.loads(x) for x in hist.read_text().splitlines()] if hist.exists() else []
Path(out).write_text(json.dumps(res, indent=1))
PYEOF
ls -la "$OUT"
stamp "done"
