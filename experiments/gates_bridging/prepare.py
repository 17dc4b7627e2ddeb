"""En->Fr corpus for the attention-alignment experiment of issue 4 (AER, Table 4 of the context-gates paper).

Training data: the Canadian Hansards Senate debates (``../shared/data/hansards-senate-enfr``,
ISI release: tokenised, first word lower-cased).  Whole sitting days are held out for dev.
The gold set is the WPT 2003 English-French trial set (37 Hansards sentences, ``trial.e/.f/.wa``);
its sentences are written without their ``<s snum=N>`` wrappers, with the ids beside them, and any
training pair equal to a gold sentence is dropped (the aligner must not have seen it)::

    .venv/bin/python -m experiments.gates_bridging.prepare --out $VERSO_RUNS/hansards-data

Writes train.en/.fr, dev.en/.fr, trial.en/.fr, trial.ids and trial.wa (copied) to OUT.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

from benchmarks.paths import SHARED_DATA
SHARED = SHARED_DATA
_S = re.compile(r"^<s snum=(\d+)>\s*(.*?)\s*</s>\s*$")


def read_wpt_sentences(path: Path) -> list[tuple[int, str]]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _S.match(line.strip())
        if not m:
            if line.strip():
                raise SystemExit(f"{path}:{n}: not a '<s snum=N> ... </s>' line")
            continue
        out.append((int(m.group(1)), " ".join(m.group(2).split())))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hansards", default=str(SHARED / "hansards-senate-enfr"))
    ap.add_argument("--gold", default=str(SHARED / "word-alignment-gold" / "wpt2003-hansards-enfr"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--dev-days", type=int, default=3, help="sitting days held out for dev (the last ones)")
    ap.add_argument("--dev-max", type=int, default=1000)
    a = ap.parse_args()
    h, g, out = Path(a.hansards), Path(a.gold), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    en = (h / "senate.en").read_text(encoding="utf-8").splitlines()
    fr = (h / "senate.fr").read_text(encoding="utf-8").splitlines()
    days = [x.strip() for x in (h / "senate.docid").read_text(encoding="utf-8").splitlines()]
    assert len(en) == len(fr) == len(days), "senate.en/.fr/.docid differ in length"
    e_trial, f_trial = read_wpt_sentences(g / "trial.e"), read_wpt_sentences(g / "trial.f")
    assert [i for i, _ in e_trial] == [i for i, _ in f_trial], "trial.e and trial.f differ in sentence ids"
    gold_e = {s for _, s in e_trial}
    order = list(dict.fromkeys(days))
    dev_days = set(order[-a.dev_days:])
    splits: dict[str, tuple[list[str], list[str]]] = {"train": ([], []), "dev": ([], [])}
    dropped = 0
    for e, f, d in zip(en, fr, days):
        e, f = " ".join(e.split()), " ".join(f.split())
        if not e or not f:
            continue
        if e in gold_e:
            dropped += 1
            continue
        s = splits["dev" if d in dev_days else "train"]
        s[0].append(e)
        s[1].append(f)
    splits["dev"] = (splits["dev"][0][:a.dev_max], splits["dev"][1][:a.dev_max])
    for name, (se, sf) in splits.items():
        (out / f"{name}.en").write_text("".join(x + "\n" for x in se), encoding="utf-8")
        (out / f"{name}.fr").write_text("".join(x + "\n" for x in sf), encoding="utf-8")
    (out / "trial.en").write_text("".join(s + "\n" for _, s in e_trial), encoding="utf-8")
    (out / "trial.fr").write_text("".join(s + "\n" for _, s in f_trial), encoding="utf-8")
    (out / "trial.ids").write_text("".join(f"{i}\n" for i, _ in e_trial), encoding="utf-8")
    shutil.copyfile(g / "trial.wa", out / "trial.wa")
    info = {"train": len(splits["train"][0]), "dev": len(splits["dev"][0]), "trial": len(e_trial),
            "dev_days": sorted(dev_days), "dropped_gold_duplicates": dropped}
    (out / "manifest.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(info))


if __name__ == "__main__":
    main()
