"""Build the demo model's En->De corpus from permissively licensed data only.

Sources (../shared/data): KDE 4.13 manuals and UI strings (GPL/LGPL of each
package) and the Magento 2 German pack (MIT).  Multi30k is research-only and
is NOT used.  Whole KDE manuals are held out for dev and test (the realistic
case: a new document).  Inline markup and placeholders become protected tag
characters (engine.inline), numbered as in the source, exactly as the editor
feeds segments to the engine.

    .venv/bin/python -m experiments.demo.prepare --out $VERSO_RUNS/demo-data

Writes train/dev/test .en/.de and SOURCE.txt into --out (outside the repo).
"""
from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from benchmarks.paths import SHARED_DATA

from engine.inline import TAG_BASE, protect, tag_char  # noqa: E402
from engine.nmt.data import read_lines, read_parallel  # noqa: E402


def protect_pair(src: str, tgt: str) -> tuple[str, str] | None:
    """Protect markup on both sides; target tags take the number of the source
    tag with the same original markup.  None when the target has a tag the
    source lacks."""
    s = protect(src)
    t = protect(tgt)
    free: dict[str, list[int]] = {}
    for tag in s.tags:
        free.setdefault(tag.original, []).append(tag.n)
    out = []
    for ch in t.text:
        o = ord(ch)
        if TAG_BASE < o <= TAG_BASE + len(t.tags):
            orig = t.tags[o - TAG_BASE - 1].original
            if not free.get(orig):
                return None
            out.append(tag_char(free[orig].pop(0)))
        else:
            out.append(ch)
    return s.text, "".join(out)


def held_out(doc: str) -> int:
    """0: train, 1: dev, 2: test (by a stable hash of the manual's name)."""
    h = int(hashlib.sha1(doc.encode()).hexdigest(), 16) % 25
    return 1 if h == 0 else 2 if h == 1 else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(SHARED_DATA))
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-words", type=int, default=80)
    ap.add_argument("--max-eval", type=int, default=500)
    a = ap.parse_args()
    data, out = Path(a.data), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    kde = data / "kde4-l10n-de"
    splits: dict[int, list[tuple[str, str]]] = {0: [], 1: [], 2: []}
    en, de = read_parallel(kde / "docs.en", kde / "docs.de")
    for s, t, d in zip(en, de, read_lines(kde / "docs.doc")):
        splits[held_out(d)].append((s, t))
    ui_en, ui_de = read_parallel(kde / "ui.en", kde / "ui.de")
    mg_en, mg_de = read_parallel(data / "magento2-de" / "ui.en", data / "magento2-de" / "ui.de")
    splits[0] += list(zip(ui_en, ui_de)) + list(zip(mg_en, mg_de))
    seen: set[tuple[str, str]] = set()
    stats = {}
    for k, name in ((0, "train"), (1, "dev"), (2, "test")):
        pairs = []
        for s, t in splits[k]:
            if not s.strip() or not t.strip() or len(s.split()) > a.max_words or len(t.split()) > a.max_words:
                continue
            p = protect_pair(s.strip(), t.strip())
            if p is None or p in seen:
                continue
            seen.add(p)
            pairs.append(p)
        if k:
            pairs = pairs[:a.max_eval]
        stats[name] = len(pairs)
        for side, i in (("en", 0), ("de", 1)):
            (out / f"{name}.{side}").write_text("".join(p[i] + "\n" for p in pairs), encoding="utf-8")
    (out / "SOURCE.txt").write_text(
        "Demo corpus built by experiments/demo/prepare.py from ../shared/data:\n"
        "KDE 4.13 manuals (docs.*) and UI strings (ui.*), GPL/LGPL of each package;\n"
        "Magento 2 German pack (ui.*), MIT.  Whole KDE manuals held out for dev/test.\n"
        f"pairs: {stats}\n", encoding="utf-8")
    print(stats)


if __name__ == "__main__":
    main()
