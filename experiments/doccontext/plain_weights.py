"""The translation part of a SEG-NMT model as a plain model's weights (its memory tensors dropped).

Session 10 had none of the earlier baselines on disk and no GPU; the shipped demo model's translation
network (``resources/models/demo``: demo baseline + the GPU memory fine-tune of session 9) was the
strongest En->De network at hand, so the CPU baselines of that session start from it::

    .venv/bin/python -m experiments.doccontext.plain_weights resources/models/demo $VERSO_RUNS/demo-plain.safetensors

``train.init_from`` then reads the file (float32) like any baseline.
"""
from __future__ import annotations

import sys
from pathlib import Path

from safetensors.torch import load_file, save_file


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    model, out = Path(sys.argv[1]), Path(sys.argv[2])
    tensors = load_file(str(model / "model.safetensors"))
    plain = {k: v.float().contiguous() for k, v in tensors.items() if not k.startswith("context_sources.")}
    save_file(plain, str(out))
    print(f"{out}: {len(plain)} tensors kept, {len(tensors) - len(plain)} memory tensors dropped")


if __name__ == "__main__":
    main()
