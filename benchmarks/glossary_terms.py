"""Glossary terms in the suggestion, measured the way a client's glossary works (issues 25, 37).

    .venv/bin/python -m benchmarks.glossary_terms [--model resources/models/demo] [--n 300] [--hits gui|all] [--glossary test|client]

The KDE UI catalogues (``kde4-l10n-de/ui.*``) give the official German of each GUI label.  The test:
held-out KDE manual sentences (the demo model's test documents) that name a label inside
``<guibutton>``, ``<guimenuitem>``, ``<guilabel>`` or ``<guimenu>`` whose official German is also in
the sentence's reference translation.  The glossary holds those labels (label -> official German);
the model translates each sentence without the glossary, with ``prefer`` and with ``enforce``.
``--hits gui``: a sentence's terms are the glossary hits of the labels it marks as GUI text (each
once); ``--hits all``: every glossary hit in the sentence, as ``verso translate --glossary`` and the
editor pass them (a label that is also a common word, "Search", "Close", included).
Reported per mode: the term use rate (share of the sentence's GUI labels whose official German is
in the suggestion), BLEU and chrF against the references (sacrebleu) and the output/reference length
ratio, repeated words (:func:`engine.qa.repeats` of the suggestion beyond those of the source, as the
QA check counts them), tags the source lacks, and the CPU time a sentence (``time.process_time``:
comparable under load) with its ratio to no glossary -- mean, p95 and the mean over the sentences
with 3 or more terms (beam 5, one thread, markup protected and restored as ``verso translate``
does).  Each term is passed as its glossary hit (targets and source span), as ``verso translate
--glossary`` does; ``--no-spans`` passes the target strings only.
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
from engine.qa import repeats  # noqa: E402
import torch  # noqa: E402

from engine.formats.textutil import protect_text  # noqa: E402
from engine.glossary import GlossaryEntry, TermIndex  # noqa: E402
from engine.glossary.suggest_terms import suggestion_terms  # noqa: E402
from engine.nmt.tagfix import restore_markup  # noqa: E402
from engine.nmt.translator import Term, Translator  # noqa: E402
from experiments.demo.prepare import held_out  # noqa: E402

KDE = SHARED_DATA / "kde4-l10n-de"
GUI = re.compile(r"<(guibutton|guimenuitem|guilabel|guimenu)>([^<]{2,60})</\1>")
TAG = re.compile(r"</?([A-Za-z][\w:.-]*)[^>]*>")


def plain(text: str) -> str:
    """The words of a sentence with its markup, as the QA check reads them (tags dropped)."""
    return protect_text(text).plain()


def extra_repeats(hyp: str, src: str) -> int:
    """Words or phrases ``hyp`` writes twice in a row beyond those ``src`` repeats (the QA count)."""
    return max(0, len(repeats(plain(hyp))) - len(repeats(plain(src))))


def extra_tags(hyp: str, src: str) -> int:
    """Tags in ``hyp`` the source does not have (by name, counted)."""
    have = Counter(m.group(0).split()[0].rstrip(">") for m in TAG.finditer(src))
    out = Counter(m.group(0).split()[0].rstrip(">") for m in TAG.finditer(hyp))
    return sum(max(0, n - have[t]) for t, n in out.items())


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
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--hits", choices=("gui", "all"), default="gui",
                    help="gui: the labels a sentence marks as GUI text; all: every glossary hit, as the CLI and editor")
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--glossary", choices=("test", "client"), default="test",
                    help="test: the labels of the test sentences; client: every label the KDE manuals mark as GUI "
                         "text (a client's whole UI glossary, common words such as 'Open' included)")
    ap.add_argument("--every-hit", dest="filter", action="store_false",
                    help="pass every glossary hit, not only those written as the glossary writes them "
                         "(engine.glossary.suggest_terms, as the editor and verso translate do)")
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
    if a.glossary == "client":  # every label the manuals mark as GUI text (as written most), its official German
        marked: dict[str, Counter] = defaultdict(Counter)
        for s in en:
            for m in GUI.finditer(s):
                lab = clean_label(m.group(2))
                marked[lab.lower()][lab] += 1
        labels = sorted((c.most_common(1)[0][0], ui[k]) for k, c in marked.items() if k in ui)
    else:
        labels = sorted({p for _, _, ps in tests for p in ps})
    entries = {lab.lower(): GlossaryEntry(lab, (tgt,), "en", "de", id=i) for i, (lab, tgt) in enumerate(labels)}
    index = TermIndex(entries.values(), "en")
    tr = Translator.load(a.model)
    tr.translate([protect_text(tests[0][0]).text], beam=a.beam)  # warm: lazy tables are built once
    out: dict = {"model": a.model, "glossary": a.glossary, "hits": a.hits, "filter": a.filter, "sentences": len(tests), "glossary_entries": len(entries),
                 "terms": sum(len(ps) for _, _, ps in tests)}
    for mode in a.modes.split(","):
        hyps, times, used, reps, tags, passed = [], [], 0, 0, 0, 0
        for s, _, pairs in tests:
            src = protect_text(s)
            # the terms of the sentence: its glossary hits inside GUI markup (a label the glossary
            # defines), each once; a UI label that is also a common word ("Search", "Enter") is
            # not forced where the sentence uses it as a word
            labels = {lab.lower() for lab, _ in pairs}
            # each hit passed whole: the entry's target terms and where its source term is (the
            # search writes the term where the attention is on it)
            hits: dict = {}
            found = index.find(src.text) if mode != "off" else []
            for h in suggestion_terms(src.text, found) if a.filter else found:
                if a.hits == "all" or h.entry.source.lower() in labels:
                    hits.setdefault(h.entry.target, h)
            terms = list(hits.values()) if a.spans else [Term((t,)) for t in hits]
            passed += len(terms)
            t0 = time.process_time()
            res = tr.translate([src.text], beam=a.beam, terms=[terms] if terms else None,
                               terms_mode="prefer" if mode == "prefer" else "enforce")[0]
            text = restore_markup(res.text, src, res) if src.tags else res.text
            times.append(time.process_time() - t0)
            hyps.append(text)
            used += sum(tgt in text for _, tgt in pairs)
            reps += extra_repeats(text, s)
            tags += extra_tags(text, s)
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
        bleu = sacrebleu.corpus_bleu(hyps, [refs])
        out[mode] = {"term_use": round(used / max(1, out["terms"]), 4), "bleu": round(bleu.score, 2),
                     "chrf": round(sacrebleu.corpus_chrf(hyps, [refs]).score, 2),
                     "len_ratio": round(bleu.sys_len / max(1, bleu.ref_len), 3),
                     "repeats": reps, "extra_tags": tags, "terms_passed": passed,
                     "cpu_ms_mean": round(1000 * sum(times) / len(times), 1),
                     "cpu_ms_p95": round(1000 * times[int(0.95 * (len(times) - 1))], 1),
                     "cpu_ms_mean_3_terms": round(1000 * sum(many) / max(1, len(many)), 1), "n_3_terms": len(many)}
        base = out.get("off") or out[mode]
        out[mode]["time_ratio"] = round(out[mode]["cpu_ms_mean"] / max(1e-9, base["cpu_ms_mean"]), 2)
        print(mode, out[mode], file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
