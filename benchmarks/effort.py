"""Translator effort (issue 47): a simulated translator works through whole held-aside documents in order,
each confirmed segment going into the TM at once (as the editor's Confirm does), and per fuzzy band of the
best TM match (the bands of ``verso translate --tm``) and overall it measures

    TM PE    post-editing the best TM match:    char edit distance(match target, reference) / reference chars
             (no match: the whole reference is typed, 1.0)
    MT PE    post-editing the suggestion:        char edit distance(suggestion, reference) / reference chars
             (a 100 % match is the suggestion, as in the editor)
    WSR      word-level interactive: each round the engine completes what is typed
             (``Translator.suggest`` with the request's ``prefix``), the translator accepts the longest correct
             word prefix of it, then types the next reference word;  WSR = words typed / reference words
    KSR      character-level interactive: each round accept the longest correct character prefix of the
             completion (one accept action), then type one character;  KSR = characters typed / reference chars
    KSMR     (characters typed + accept actions) / reference chars  (Barrachina et al. 2009)
             (``--ghost word``: the ghost text is the completion's next word; a word taken whole asks again)

Distances are micro-averaged (sums over the band).  A tag is one character (the editor's chip).
Held-aside documents: those the demo model's corpus held out for test (``experiments.demo.prepare.held_out``
== 2, whole manuals / laws, never trained or tuned on); the TM is every other document of the corpus.
Run from the repository root (the TM is built once under $VERSO_RUNS/effort/):

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.effort --model resources/models/demo --corpus kde --docs 5

Suggestions and completions are finished as the editor's panel finishes them (:mod:`engine.nmt.finish`);
``--raw`` measures the engine's text as it comes.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from benchmarks.paths import RUNS, SHARED_DATA
from engine.inline import protect
from experiments.demo.prepare import held_out, protect_pair

_NEXT_WORD = re.compile(r"\s*\S+")
CORPORA = {"kde": ("kde4-l10n-de", "docs.en", "docs.de", "docs.doc"),
           "jrc": ("jrc-acquis-endefr", "common.en", "common.de", "common.docid")}


@dataclass
class Segment:
    source: str
    ref: str
    tagged: object = None   # the source's TaggedText (its tags' kinds, for the finishing the editor does)


@dataclass
class Tally:
    n: int = 0
    ref_chars: int = 0
    ref_words: int = 0
    tm_edits: int = 0
    mt_edits: int = 0
    words_typed: int = 0
    word_chars: int = 0          # characters of the words typed whole in the word protocol
    chars_typed: int = 0
    accepts: int = 0
    interactive_words: int = 0   # reference words / chars of the segments the interactive protocols ran on
    interactive_chars: int = 0
    char_chars: int = 0
    asks: int = 0
    extra: dict = field(default_factory=dict)

    def add(self, o: "Tally") -> None:
        for k in ("n", "ref_chars", "ref_words", "tm_edits", "mt_edits", "words_typed", "word_chars", "chars_typed",
                  "accepts",
                  "interactive_words", "interactive_chars", "char_chars", "asks"):
            setattr(self, k, getattr(self, k) + getattr(o, k))

    def row(self, name: str) -> str:
        def r(a, b):
            return f"{a / b:.2f}" if b else "–"
        return (f"| {name} | {self.n} | {r(self.tm_edits, self.ref_chars)} | {r(self.mt_edits, self.ref_chars)} | "
                f"{r(self.words_typed, self.interactive_words)} | {r(self.word_chars, self.interactive_chars)} | "
                f"{r(self.chars_typed, self.char_chars)} | "
                f"{r(self.chars_typed + self.accepts, self.char_chars)} | {self.asks} |")


def documents(corpus: str, n_docs: int, min_segs: int, max_segs: int, max_words: int, split: str = "test"):
    """(held-aside documents [(name, [Segment])], TM pairs [(source, target)]), tags protected as in the editor.
    ``split`` ``dev``: the documents of the demo corpus's dev split instead (``held_out == 1``: the demo model
    chose its checkpoint on them, never trained on them), and a TM of the training documents only -- the
    documents to tune the engine's choices on, never the held-aside ones."""
    folder, en, de, doc = CORPORA[corpus]
    base = SHARED_DATA / folder
    names = (base / doc).read_text(encoding="utf-8").splitlines()
    src = (base / en).read_text(encoding="utf-8").splitlines()
    tgt = (base / de).read_text(encoding="utf-8").splitlines()
    by_doc: dict[str, list[Segment]] = {}
    tm: list[tuple[str, str]] = []
    for d, s, t in zip(names, src, tgt):
        if not s.strip() or not t.strip():
            continue
        p = protect_pair(s.strip(), t.strip())
        if p is None:
            continue
        if held_out(d) == (1 if split == "dev" else 2):
            by_doc.setdefault(d, []).append(Segment(*p, protect(s.strip())))
        elif held_out(d) == 0 or split != "dev":
            tm.append(p)
    docs = [(d, segs) for d, segs in by_doc.items()
            if min_segs <= len(segs) <= max_segs and all(len(x.ref.split()) <= max_words for x in segs)]
    return docs[:n_docs], tm


def working_tm(corpus: str, pairs: list[tuple[str, str]], split: str = "test"):
    """A fresh copy of the corpus TM (built once), which this run's confirmed segments go into."""
    from engine.nmt.retrieval import build_training_tm, data_hash
    from engine.tm import TranslationMemory

    folder, en, de, _ = CORPORA[corpus]
    key = data_hash(SHARED_DATA / folder / en, SHARED_DATA / folder / de, extra="effort-tm" if split == "test" else f"effort-tm-{split}")
    built = RUNS / "effort" / f"tm-{corpus}-{key}"
    tm = build_training_tm(built, [p[0] for p in pairs], [p[1] for p in pairs], src_lang="en", tgt_lang="de")
    tm.close()
    work = RUNS / "effort" / f"work-{corpus}{'' if split == 'test' else '-' + split}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(built, work)
    return TranslationMemory(work, create=False)


def rest_after(text: str, typed: str, n_typed_words: int) -> str:
    """The completion's text after what was typed (its words after the typed words when it rewrote them)."""
    if text.startswith(typed):
        return text[len(typed):]
    return " ".join(text.split()[n_typed_words:])


class Simulator:
    def __init__(self, tr, args, glossary_index):
        self.tr, self.a, self.index = tr, args, glossary_index
        self.mended = self.marked = 0   # suggestions (no prefix) the finishing changed / marked

    def ask(self, seg: Segment, prefix: str, pairs: tuple, context: tuple, tally: Tally) -> str:
        from engine.nmt.finish import finish
        from engine.nmt.results import TranslationRequest

        terms = tuple(self.index.find(seg.source)) if self.index is not None else ()
        req = TranslationRequest(seg.source, prefix, pairs, context, terms)
        tally.asks += 1
        res = self.tr.suggest(req, beam=self.a.beam, memory_mode=self.a.memory,
                              terms_mode=self.a.terms if terms else "off")
        if self.a.raw:
            return res.text
        # what the editor's panel shows and inserts (engine.nmt.finish): tags, separators, terms mended
        spans = [(h.start, h.end, tuple(h.entry.targets)) for h in terms]
        out, marks = finish(res, seg.tagged, terms=spans, prefix=prefix, tgt_lang="de")
        if not prefix:
            self.mended += out.text != res.text
            self.marked += bool(marks)
        return out.text

    def word_protocol(self, seg, first: str, pairs, context, tally: Tally) -> None:
        ref = seg.ref.split()
        have: list[str] = []
        out = first
        while True:
            typed = " ".join(have) + (" " if have else "")
            rest = rest_after(out, typed, len(have)).split()
            n = 0
            while len(have) + n < len(ref) and n < len(rest) and rest[n] == ref[len(have) + n]:
                n += 1
            have += ref[len(have):len(have) + n]
            if len(have) == len(ref):
                return
            have.append(ref[len(have)])   # typed whole
            tally.words_typed += 1
            tally.word_chars += len(have[-1])
            if len(have) == len(ref):
                return
            out = self.ask(seg, " ".join(have) + " ", pairs, context, tally)

    def char_protocol(self, seg, first: str, pairs, context, tally: Tally) -> None:
        ref = seg.ref
        have = 0           # ref[:have] is in the target
        out = first
        while True:
            typed = ref[:have]
            rest = out[len(typed):] if out.startswith(typed) else ""
            if self.a.ghost == "word":   # the ghost text is the completion's next word only
                rest = rest[:len(m.group())] if (m := _NEXT_WORD.match(rest)) else ""
            n = 0
            while have + n < len(ref) and n < len(rest) and rest[n] == ref[have + n]:
                n += 1
            if n:
                tally.accepts += 1
                have += n
            if have >= len(ref):
                return
            if self.a.ghost == "word" and rest and n == len(rest):   # the whole word taken: the next one
                out = self.ask(seg, ref[:have], pairs, context, tally)
                continue
            have += 1      # one character typed
            tally.chars_typed += 1
            if have >= len(ref):
                return
            out = self.ask(seg, ref[:have], pairs, context, tally)

    def segment(self, seg: Segment, tm, context: tuple) -> tuple[str, Tally]:
        from engine.nmt.retrieval import MEMORY_MIN_SCORE, band_of, readable, retrieve

        t = Tally(n=1, ref_chars=len(seg.ref), ref_words=len(seg.ref.split()))
        matches = retrieve(tm, seg.source, k=self.a.k)
        best = matches[0] if matches else None
        t.tm_edits = Levenshtein.distance(best.target if best else "", seg.ref)
        pairs = tuple(readable(matches, MEMORY_MIN_SCORE))
        if best is not None and best.score >= 1.0 - 1e-9 and best.target.strip():
            first = best.target   # the editor's suggestion for a 100 % match
        else:
            first = self.ask(seg, "", pairs, context, t)
        t.mt_edits = Levenshtein.distance(first, seg.ref)
        if "word" in self.a.interactive:
            t.interactive_words, t.interactive_chars = t.ref_words, len(seg.ref.replace(" ", ""))
            self.word_protocol(seg, first, pairs, context, t)
        if "char" in self.a.interactive:
            t.char_chars = len(seg.ref)
            self.char_protocol(seg, first, pairs, context, t)
        return band_of(best.score if best else 0.0), t


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resources/models/demo")
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="kde")
    ap.add_argument("--docs", type=int, default=3, help="held-aside documents, whole, in corpus order")
    ap.add_argument("--min-segs", type=int, default=8)
    ap.add_argument("--max-segs", type=int, default=40)
    ap.add_argument("--max-words", type=int, default=40, help="skip documents with a longer reference segment")
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--device", default="cpu", help="cpu (default, as the editor) or cuda (a larger model on a GPU)")
    ap.add_argument("--k", type=int, default=4, help="TM matches read per segment (the editor's default)")
    ap.add_argument("--memory", default="auto", choices=("auto", "knn", "learned", "none"))
    ap.add_argument("--glossary", help="a glossary file (TBX, CSV, XLSX) whose terms the suggestions read")
    ap.add_argument("--terms", default="prefer", choices=("prefer", "enforce"))
    ap.add_argument("--interactive", default="word,char", help="protocols: word, char, both or none")
    ap.add_argument("--raw", action="store_true", help="the engine's text as it comes, without the finishing "
                    "(separators, tags, terms: engine.nmt.finish) the editor applies")
    ap.add_argument("--json", help="write the table here as JSON")
    ap.add_argument("--ghost", default="rest", choices=("rest", "word"),
                    help="character protocol: the ghost text shows the completion's rest (the editor) or its next word")
    ap.add_argument("--split", default="test", choices=("test", "dev"),
                    help="test: the held-aside documents (measure only); dev: the dev split's (tune on these)")
    a = ap.parse_args(argv)
    from engine.nmt.retrieval import FUZZY_BANDS
    from engine.nmt.translator import Translator

    t0 = time.perf_counter()
    docs, tm_pairs = documents(a.corpus, a.docs, a.min_segs, a.max_segs, a.max_words, a.split)
    tm = working_tm(a.corpus, tm_pairs, a.split)
    index = None
    if a.glossary:
        from engine.glossary.formats import read_glossary_file
        from engine.glossary.recognise import TermIndex

        index = TermIndex(read_glossary_file(a.glossary, src_lang="en", tgt_lang="de").entries, "en")
    tr = Translator.load(a.model, threads=1, device=a.device)
    sim = Simulator(tr, a, index)
    print(f"{len(docs)} documents, {sum(len(s) for _, s in docs)} segments; TM {len(tm)} units; "
          f"setup {time.perf_counter() - t0:.0f} s", flush=True)
    bands = {name: Tally() for _, _, name in FUZZY_BANDS}
    total = Tally()
    t1 = time.perf_counter()
    for name, segs in docs:
        done: list[str] = []
        for seg in segs:
            band, t = sim.segment(seg, tm, tuple(done[-3:]))
            bands[band].add(t)
            total.add(t)
            tm.add(seg.source, seg.ref, src_lang="en", tgt_lang="de")   # confirmed: in the TM at once
            done.append(seg.source)
        print(f"  {name}: {len(segs)} segments, {time.perf_counter() - t1:.0f} s", flush=True)
    head = ("| best TM match | segments | TM PE | MT PE | WSR | KSR (word) | KSR | KSMR | engine calls |\n"
            "|---|---|---|---|---|---|---|---|---|")
    rows = [bands[n].row(n) for _, _, n in FUZZY_BANDS if bands[n].n] + [total.row("all")]
    print(head + "\n" + "\n".join(rows))
    print(f"{time.perf_counter() - t1:.0f} s for {total.n} segments, {total.asks} engine calls; finishing "
          f"changed {sim.mended} suggestions and marked {sim.marked}")
    from engine.qa_omission import omissions   # the QA check "omission" on the human translations
    alarms = sum(1 for _, segs in docs for x in segs
                 if any(o.kind != "tag" for o in omissions(x.source, x.ref, tgt_lang="de")))
    print(f"QA 'possible omission' on the reference translations themselves (false alarms): {alarms} of {total.n}")
    if a.json:
        Path(a.json).write_text(json.dumps({n: vars(b) for n, b in bands.items()} | {"all": vars(total)}, indent=1))


if __name__ == "__main__":
    main()
