"""Keystrokes the completion saves (issue 47): a simulated translator types each held-out sentence
with the engine's completion of what is typed (``Translator.translate(prefixes=...)``).

    word protocol: each round accept the longest correct word prefix of the completion, then type the
                   next reference word whole;  WSR = words typed / reference words,
                   KSR = characters typed / reference characters (spaces between words not counted)
    char protocol: the same, but type one character of the next word at a time (the completion of a
                   word typed half way);  KSR as above

Held-out text: whole documents (manuals) of the shared KDE corpus, the last ``--docs`` manuals of
``docs.doc``; no TM.  Run from the repository root:

    .venv/bin/python -m benchmarks.completion_keystrokes --model resources/models/demo --docs 2 --max 80
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

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


def type_sentence(tr, src: str, ref: str, protocol: str, beam: int) -> tuple[int, int, int]:
    """(words typed, characters typed, completion requests)."""
    ref_words = ref.split()
    have: list[str] = []     # the reference words in the target so far
    partial = ""             # the next word typed half way (char protocol)
    words = chars = asks = 0
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
    return words, chars, asks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="resources/models/demo")
    ap.add_argument("--docs", type=int, default=2)
    ap.add_argument("--max", type=int, default=80)
    ap.add_argument("--beam", type=int, default=5)
    args = ap.parse_args()
    from engine.nmt.translator import Translator

    tr = Translator.load(args.model, threads=1)
    pairs = held_out(args.docs, args.max)
    ref_w = sum(len(t.split()) for _, t in pairs)
    ref_c = sum(len(w) for _, t in pairs for w in t.split())
    for protocol in ("word", "char"):
        t0 = time.perf_counter()
        w = c = a = 0
        for s, t in pairs:
            dw, dc, da = type_sentence(tr, s, t, protocol, args.beam)
            w, c, a = w + dw, c + dc, a + da
        dt = time.perf_counter() - t0
        print(f"{protocol}: {len(pairs)} sentences, {ref_w} words, {ref_c} chars: WSR {w / ref_w:.3f} "
              f"KSR {c / ref_c:.3f} ({a} completions, {1000 * dt / max(a, 1):.0f} ms each)")


if __name__ == "__main__":
    main()
