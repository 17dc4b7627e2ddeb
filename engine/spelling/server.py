"""The child process of :class:`engine.spelling.process.SpellProcess`: one Hunspell dictionary
read by spylls, one request per JSON line in, one JSON line out.

    python -m engine.spelling.server DIC AFF

First line out, once the dictionary is read: ``{"ready": true, "pid"}`` or ``{"error": one line}``
(then it ends).  Requests: ``{"check": [word, ...]}`` -> ``{"ok": [bool, ...]}``;
``{"suggest": word, "limit": n, "budget": seconds or null}`` -> ``{"found": [...], "complete": bool}``;
a malformed one -> ``{"error": one line}``.  It ends when its input closes (the editor's process
ended or closed the checker).  JSON only: nothing received here is run as code.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

#: At most this many words per check request and this many characters per word (longer: right).
MAX_WORDS = 5_000
MAX_WORD = 100


def _answer(dic, req: dict) -> dict:
    if "check" in req:
        words = req["check"]
        if not isinstance(words, list) or len(words) > MAX_WORDS:
            raise ValueError(f"a check request holds a list of at most {MAX_WORDS} words")
        ok = [True] * len(words)
        todo = [i for i, w in enumerate(words) if isinstance(w, str) and 0 < len(w) <= MAX_WORD]
        for i, right in zip(todo, dic.lookup_many([words[i] for i in todo])):
            ok[i] = right
        return {"ok": ok}
    if "suggest" in req:
        word, limit, budget = req["suggest"], int(req.get("limit", 5)), req.get("budget")
        if not isinstance(word, str) or len(word) > MAX_WORD:
            return {"found": [], "complete": True}
        found, complete = dic.suggest(word, max(0, min(limit, 50)),
                                      None if budget is None else min(float(budget), 60.0))
        return {"found": found, "complete": complete}
    raise ValueError("neither a check nor a suggest request")


def serve(dic_path: Path, aff_path: Path, inp, out) -> None:
    """Read the dictionary, say so, then answer the requests of ``inp`` on ``out`` until it closes."""
    from engine.spelling.dictionaries import DictionaryInfo
    from engine.spelling.hunspell import load

    def say(obj: dict) -> None:
        out.write(json.dumps(obj).encode() + b"\n")
        out.flush()

    try:
        dic = load(DictionaryInfo("", dic_path, aff_path))
    except Exception as e:  # noqa: BLE001 - told to the editor's process in one line
        say({"error": (str(e) or type(e).__name__).splitlines()[0]})
        return
    say({"ready": True, "pid": os.getpid()})
    for line in inp:
        try:
            ans = _answer(dic, json.loads(line))
        except Exception as e:  # noqa: BLE001 - one line back, the process goes on
            ans = {"error": f"spelling request failed: {type(e).__name__}: {e}".splitlines()[0]}
        say(ans)


def main(argv: list[str]) -> None:
    if hasattr(os, "nice"):
        # Background work: reading de_DE is 2.7-3.1 s of CPU, and on 2 cores at load 5-7 it took
        # them from the editor and its suggestion engine while the translator browsed.
        os.nice(10)
    serve(Path(argv[0]), Path(argv[1]), sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main(sys.argv[1:])
