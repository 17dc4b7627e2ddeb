"""Glossary terms in the suggestion, measured the way a client's glossary works (issue 25).

    .venv/bin/python -m benchmarks.glossary_terms [--model resources/models/demo] [--n 200]

The KDE UI catalogues (``kde4-l10n-de/ui.*``) give the official German of each GUI label.  The test:
held-out KDE manual sentences (the demo model's test documents) that name a label inside
``<guibutton>``, ``<guimenuitem>``, ``<guilabel>`` or ``<guimenu>`` whose official German is also in
the sentence's reference translation.  The glossary holds those labels (label -> official German);
the model translates each sentence without the glossary, with ``prefer`` and with ``enforce``, the
terms of a sentence being the glossary hits of the labels it marks as GUI text (each once).
Reported: the term use rate (share of the sentence's labels whose official German is in the
suggestion), BLEU and chrF against the references (sacrebleu), and the mean and p95 time a sentence,
and the mean over the sentences with 3 or more terms (beam 5, one thread, markup protected and restored
as ``verso translate`` does).  Each term is passed as its glossary hit (targets and source span), as
``verso translate --glossary`` does; ``--no-spans`` passes the target strings only.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict

from benchmarks.paths import ROOT, SHARED_DATA

import sacrebleu  # noqa: E402
import torch  # noqa: E402

from engine.formats.textutil import protect_text  # noqa: E402
from engine.glossary import GlossaryEntry, TermIndex  # noqa: E402
from engine.nmt.tagfix import restore_markup  # noqa: E402
from engine.nmt.translator import Term, Translator  # noqa: E402
from experiments.demo.prepare import held_out  # noqa: E402

KDE = SHARED_DATA / "kde4-l10n-de"
GUI = re.compile(r"<(guibutton|guimenuitem|guilabel|guimenu)>([^<]{2,60})</\1>")


def clean_label(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("&", "").rstrip(".…").strip())


def ui_glossary() -> dict[str, str]:
    """English label -> its most frequent German in the UI catalogues (1-4 words)."""
    en = (KDE / "ui.en").read_text(encoding="utf-8").splitlines()
    de = (KDE / "ui.de").read_text(encoding="utf-8").splitlines()
    seen: dict[str, Counter] = defaultdict(Counter)
    for s, t in zip(en, de):
        s, t = clean_label(s), clean_label(t)
        if s and t and 1 <= len(s.split()) <= 4 and "<" not in s and "%" not in s:
            seen[s.lower()][t] += 1
    return {s: c.most_common(1)[0][0] for s, c in seen.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(ROOT / "resources" / "models" / "demo"))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--modes", default="off,prefer,enforce", help="comma-separated: off, prefer, enforce")
    ap.add_argument("--no-spans", dest="spans", action="store_false",
                    help="give the search the target terms only, not where their source terms are")
    ap.add_argument("--show", action="store_true", help="print each sentence, its terms and its translation")
    ap.add_argument("--out", help="folder for ref.de and MODE.hyp (for python -m engine.nmt.significance)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    ui = ui_glossary()
    en = (KDE / "docs.en").read_text(encoding="utf-8").splitlines()
    de = (KDE / "docs.de").read_text(encoding="utf-8").splitlines()
    doc = (KDE / "docs.doc").read_text(encoding="utf-8").splitlines()
    tests = []
    for s, r, d in zip(en, de, doc):
        if held_out(d) != 2:
            continue
        labels = {clean_label(m.group(2)) for m in GUI.finditer(s)}
        pairs = [(lab, ui[lab.lower()]) for lab in labels if lab.lower() in ui and ui[lab.lower()] in r]
        if pairs:
            tests.append((s, r, pairs))
    tests = tests[:a.n]
    entries = {lab.lower(): GlossaryEntry(lab, (tgt,), "en", "de", id=i)
               for i, (lab, tgt) in enumerate({p for _, _, ps in tests for p in ps})}
    index = TermIndex(entries.values(), "en")
    tr = Translator.load(a.model)
    out: dict = {"model": a.model, "sentences": len(tests), "glossary_entries": len(entries),
                 "terms": sum(len(ps) for _, _, ps in tests)}
    for mode in a.modes.split(","):
        hyps, times, used = [], [], 0
        for s, _, pairs in tests:
            src = protect_text(s)
            # the terms of the sentence: its glossary hits inside GUI markup (a label the glossary
            # defines), each once; a UI label that is also a common word ("Search", "Enter") is
            # not forced where the sentence uses it as a word
            labels = {lab.lower() for lab, _ in pairs}
            # each hit passed whole: the entry's target terms and where its source term is (the
            # search writes the term where the attention is on it)
            hits: dict = {}
            for h in index.find(src.text) if mode != "off" else ():
                if h.entry.source.lower() in labels:
                    hits.setdefault(h.entry.target, h)
            terms = list(hits.values()) if a.spans else [Term((t,)) for t in hits]
            t0 = time.perf_counter()
            res = tr.translate([src.text], beam=a.beam, terms=[terms] if terms else None,
                               terms_mode="prefer" if mode == "prefer" else "enforce")[0]
            times.append(time.perf_counter() - t0)
            text = restore_markup(res.text, src, res) if src.tags else res.text
            hyps.append(text)
            used += sum(tgt in text for _, tgt in pairs)
            if a.show:
                print(f"[{mode}] {s}\n    terms: {[h.entry.target for h in hits.values()]}\n    -> {text}",
                      file=sys.stderr)
        refs = [r for _, r, _ in tests]
        if a.out:
            from pathlib import Path

            Path(a.out).mkdir(parents=True, exist_ok=True)
            (Path(a.out) / "ref.de").write_text("".join(r + "\n" for r in refs), encoding="utf-8")
            (Path(a.out) / f"{mode}.hyp").write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
        many = [t for t, (_, _, ps) in zip(times, tests) if len(ps) >= 3]  # the sentences with 3+ terms
        times.sort()
        out[mode] = {"term_use": round(used / max(1, out["terms"]), 4),
                     "bleu": round(sacrebleu.corpus_bleu(hyps, [refs]).score, 2),
                     "chrf": round(sacrebleu.corpus_chrf(hyps, [refs]).score, 2),
                     "ms_mean": round(1000 * sum(times) / len(times), 1),
                     "ms_p95": round(1000 * times[int(0.95 * (len(times) - 1))], 1),
                     "ms_mean_3_terms": round(1000 * sum(many) / max(1, len(many)), 1), "n_3_terms": len(many)}
        print(mode, out[mode], file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
