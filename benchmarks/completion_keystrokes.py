"""Keystrokes the completion saves (issue 47): a simulated translator types each held-out sentence
with the engine's completion of what is typed (``Translator.translate(prefixes=...)``).

    word protocol: each round accept the longest correct word prefix of the completion, then type the
                   next reference word whole;  WSR = words typed / reference words,
                   KSR = characters typed / reference characters (spaces between words not counted)
    char protocol: the same, but type one character of the next word at a time (the completion of a
                   word typed half way);  KSR as above, and with the editor's keys counted:
                   KSR+acc = (characters + accept keys) / reference characters, an accept of n words
                   costing n Ctrl+Right or one Tab where the completion's whole rest is right;
                   KSMR = (characters + one pointer action per accepted span) / reference characters,
                   the accept of interactive-MT evaluations (a click at the first wrong word)

``--tree DIR [--rounds N]`` runs this protocol on this checkout and another one interleaved
(benchmarks/compare.py; e.g. ``git worktree add DIR 70ce91f``: the completion before issue 47's
TypedWord rule), so before and after run the same protocol.

Held-out text: whole documents (manuals) of the shared KDE corpus, the last ``--docs`` manuals of
``docs.doc``; no TM.  Run from the repository root:

    .venv/bin/python -m benchmarks.completion_keystrokes --model resources/models/demo --docs 2 --max 80
    .venv/bin/python -m benchmarks.completion_keystrokes --model $PWD/resources/models/demo --tree /tmp/before
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks import compare

DATA = Path("/work/shared/data/kde4-l10n-de")


def held_out(docs: int, max_sents: int, max_words: int = 25) -> list[tuple[str, str]]:
    names = (DATA / "docs.doc").read_text(encoding="utf-8").splitlines()
    en = (DATA / "docs.en").read_text(encoding="utf-8").splitlines()
    de = (DATA / "docs.de").read_text(encoding="utf-8").splitlines()
    order = list(dict.fromkeys(names))
    keep = set(order[-docs:])
    pairs = [(s, t) for n, s, t in zip(names, en, de) if n in keep and s.strip() and t.strip()
             and "\ue000" not in s and len(t.split()) <= max_words]
    return pairs[:max_sents]


def type_sentence(tr, src: str, ref: str, protocol: str, beam: int) -> tuple[int, int, int, int, int]:
    """(words typed, characters typed, completion requests, accept keys, accepted spans)."""
    ref_words = ref.split()
    have: list[str] = []     # the reference words in the target so far
    partial = ""             # the next word typed half way (char protocol)
    words = chars = asks = keys = spans = 0
    while len(have) < len(ref_words):
        typed = " ".join(have) + (" " if have else "") + partial if partial else " ".join(have) + (" " if have else "")
        out = tr.translate([src], beam=beam, prefixes=[typed])[0].text
        asks += 1
        rest = out[len(typed):] if out.startswith(typed) else out[len(" ".join(have)):]
        rest_words = (partial + rest).split() if partial else rest.split()
        n = 0
        while len(have) + n < len(ref_words) and n < len(rest_words) and rest_words[n] == ref_words[len(have) + n]:
            n += 1
        if n:
            spans += 1
            keys += 1 if len(have) + n == len(ref_words) else n  # Tab takes a right rest whole
            have += ref_words[len(have):len(have) + n]
            partial = ""
            continue
        nxt = ref_words[len(have)]
        if protocol == "word" or len(partial) + 1 >= len(nxt):
            chars += len(nxt) - len(partial)
            words += 1
            have.append(nxt)
            partial = ""
        else:
            partial = nxt[:len(partial) + 1]
            chars += 1
    return words, chars, asks, keys, spans


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="resources/models/demo")
    ap.add_argument("--docs", type=int, default=2)
    ap.add_argument("--max", type=int, default=80)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--protocols", default="word,char")
    if compare.run_if_asked("completion_keystrokes"):
        return
    args = ap.parse_args()
    from engine.nmt.translator import Translator

    tr = Translator.load(args.model, threads=1)
    pairs = held_out(args.docs, args.max)
    ref_w = sum(len(t.split()) for _, t in pairs)
    ref_c = sum(len(w) for _, t in pairs for w in t.split())
    import engine.nmt.translator as where

    print(f"engine from {Path(where.__file__).parents[2]}")
    for protocol in args.protocols.split(","):
        t0 = time.perf_counter()
        w = c = a = k = sp = 0
        for s, t in pairs:
            dw, dc, da, dk, dsp = type_sentence(tr, s, t, protocol, args.beam)
            w, c, a, k, sp = w + dw, c + dc, a + da, k + dk, sp + dsp
        dt = time.perf_counter() - t0
        print(f"{protocol}: {len(pairs)} sentences, {ref_w} words, {ref_c} chars: WSR {w / ref_w:.3f} "
              f"KSR {c / ref_c:.3f} KSR+acc {(c + k) / ref_c:.3f} KSMR {(c + sp) / ref_c:.3f} "
              f"({a} completions, {1000 * dt / max(a, 1):.0f} ms each)")


if __name__ == "__main__":
    main()
