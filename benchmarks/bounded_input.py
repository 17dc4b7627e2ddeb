"""Issues 23 and 35, every input bounded: time and peak memory of reading huge inputs.

``--issue 35`` (the files of issue 35's hostile-input run, each imported by the command line in
a fresh subprocess: ``verso doc import`` into a new project, ``verso glossary import``):

* ``txt-lines``: prose in short lines (one sentence a line, no blank line), 1 MB, 10 MB (134 s
  before) and 500 MB (over the size limit);
* ``po``: 10,000 and 100,000 entries, and 200,000 (over the entry limit);
* ``xlsx``: a glossary of 50,000 terms as Excel writes it (shared strings), and a shared-strings
  bomb (5 million strings that no cell uses).

``--issue 35 --formats`` imports one file of each document format under the limits (3 MB of short
lines, 100,000 PO entries, long paragraphs, CSV, TSV, HTML, Markdown, XLIFF) the same way;
``--root OLD --root NEW`` measures two checkouts' engines on the same files, back to back.

``--issue 45`` (refused before parsing, in a fresh subprocess each): a SubRip file of 1,000,000
cues, a properties file of 1,000,000 lines, a JSON of 300,000 strings, one HTML paragraph of
100,000 nested ``<b>``, 64 MiB of such paragraphs; and ``verso tm import`` of a 200,000-unit TMX
(its progress lines counted).

``--issue 23`` (the default, as before):

For 100 KB, 1 MB and 10 MB of prose on ONE line it measures, each in a fresh
subprocess (peak memory = that process's ``ru_maxrss``):

* ``txt``: reading a plain-text document (``read_document``: decode, protect,
  sentence segmentation);
* ``po``: reading a PO file whose one msgid is that line;
* ``tm-pair``: ``verso tm import`` of two line-aligned text files, one line each.

Inputs over the 1 MiB line limit are refused; the table shows how fast and
in how much memory.  Usage::

    python -m benchmarks.bounded_input [--sizes 100000,1000000,10000000]
    python -m benchmarks.bounded_input --issue 35
    python -m benchmarks.bounded_input --issue 35 --formats [--root ../old --root .]
    python -m benchmarks.bounded_input --issue 45
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

from benchmarks.paths import ROOT

PROSE = ("The committee met on Monday to discuss the new budget. Several members asked "
         "for more time, and the chair agreed! Would the report be ready by June? ")

CHILD = r"""
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]  # run in the repository root: engine imports from there
from engine.errors import VersoError
t0 = time.perf_counter()
try:
    if kind in ("doc", "glossary"):
        import contextlib, io
        from engine.cli import main
        err = io.StringIO()
        args = (["doc", "import", path, "--project", sys.argv[3]] if kind == "doc" else
                ["glossary", "import", path, "--glossary", sys.argv[3]])
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = main(args + ["--src-lang", "en", "--tgt-lang", "de"])
        outcome = "imported" if rc == 0 else "refused: " + err.getvalue().strip().split(": ", 2)[-1]
    elif kind == "tm-pair":
        import contextlib, io
        from engine.cli import main
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = main(["tm", "import", path, "--target-file", sys.argv[3], "--tm", sys.argv[4],
                       "--src-lang", "en", "--tgt-lang", "de"])
        outcome = "imported" if rc == 0 else "refused: " + err.getvalue().strip().split(": ", 2)[-1]
    else:
        from engine.formats import read_document
        doc = read_document(path, src_lang="en", tgt_lang="de")
        outcome = f"{len(doc.segments)} segments"
except VersoError as e:
    outcome = "refused: " + e.message
dt = time.perf_counter() - t0
print(json.dumps({"s": dt, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "outcome": outcome}))
"""


def line_of(size: int) -> str:
    return (PROSE * (size // len(PROSE) + 1))[:size]


def run(kind: str, size: int, tmp: Path) -> dict:
    text = line_of(size)
    args: list[str]
    if kind == "txt":
        p = tmp / f"one-{size}.txt"
        p.write_text(text, "utf-8")
        args = [str(p)]
    elif kind == "po":
        p = tmp / f"one-{size}.po"
        p.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                     f'msgid "{text}"\nmsgstr ""\n', "utf-8")
        args = [str(p)]
    else:
        s, t = tmp / f"s-{size}.txt", tmp / f"t-{size}.txt"
        s.write_text(text, "utf-8")
        t.write_text(text.replace("the", "die"), "utf-8")
        args = [str(s), str(t), str(tmp / f"tm-{size}")]
    out = subprocess.run([sys.executable, "-c", CHILD, kind, *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        return {"s": float("nan"), "maxrss_mb": float("nan"), "outcome": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


WORDS = ("the committee met on monday to discuss new budget several members asked for more time "
         "and chair agreed report would be ready by june").split()


def _sentences():
    import random

    rnd = random.Random(1)
    while True:
        yield " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 14))).capitalize() + "."


def text_lines(path: Path, size: int) -> None:
    """Prose in short lines, one sentence a line, no blank line (hard-wrapped text)."""
    with open(path, "w", encoding="utf-8") as fh:
        n, block, gen = 0, [], _sentences()
        while n < size:
            line = next(gen) + "\n"
            block.append(line)
            n += len(line)
            if len(block) == 10_000:
                fh.write("".join(block))
                block = []
        fh.write("".join(block))


def po_entries(path: Path, n: int) -> None:
    gen = _sentences()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n')
        for i in range(n):
            fh.write(f'#: src/file{i % 97}.c:{i}\nmsgid "{next(gen)} {i}"\nmsgstr ""\n\n')


def shared_strings_xlsx(path: Path, rows, extra_strings: int = 0) -> None:
    """A one-sheet workbook as Excel writes it: every text cell an index into
    ``xl/sharedStrings.xml`` (openpyxl writes inline strings instead); ``extra_strings``
    more strings that no cell uses (the bomb: they compress to almost nothing)."""
    strings: list[str] = []
    index: dict[str, int] = {}
    sheet = []
    for r, row in enumerate(rows, 1):
        cells = []
        for c, value in enumerate(row):
            k = index.setdefault(str(value), len(strings))
            if k == len(strings):
                strings.append(str(value))
            cells.append(f'<c r="{chr(65 + c)}{r}" t="s"><v>{k}</v></c>')
        sheet.append(f'<row r="{r}">{"".join(cells)}</row>')
    ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/content-types"><Default Extension="rels" ContentType="application/'
                   'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
                   '"application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/'
                   'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName='
                   '"/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                   'spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType='
                   '"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
        z.writestr("_rels/.rels", f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
                   f'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{rel}/'
                   'officeDocument" Target="xl/workbook.xml"/></Relationships>')
        z.writestr("xl/workbook.xml", f'<?xml version="1.0" encoding="UTF-8"?><workbook {ns} xmlns:r="{rel}">'
                   '<sheets><sheet name="Terms" sheetId="1" r:id="rId1"/></sheets></workbook>')
        z.writestr("xl/_rels/workbook.xml.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns='
                   '"http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" '
                   f'Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" '
                   f'Type="{rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>')
        z.writestr("xl/worksheets/sheet1.xml", f'<?xml version="1.0" encoding="UTF-8"?><worksheet {ns}>'
                   f'<sheetData>{"".join(sheet)}</sheetData></worksheet>')
        with z.open("xl/sharedStrings.xml", "w") as fh:
            total = len(strings) + extra_strings
            fh.write(f'<?xml version="1.0" encoding="UTF-8"?><sst {ns} count="{total}" '
                     f'uniqueCount="{total}">'.encode())
            fh.write("".join(f"<si><t>{escape(s)}</t></si>" for s in strings).encode())
            for start in range(0, extra_strings, 100_000):
                fh.write(b"<si><t>x</t></si>" * min(100_000, extra_strings - start))
            fh.write(b"</sst>")


def _prose_with_codes(gen, i: int) -> str:
    """Two or three sentences as documents have them: a bold word, a link, a number now and then."""
    a, b, c = next(gen), next(gen), next(gen)
    words = b.split()
    words.insert(len(words) // 2, f"<b>{words[len(words) // 2]}</b>")
    return f"{a} {' '.join(words)} See <a href=\"p{i}.html\">page {i}</a> for {c[0].lower()}{c[1:]}"


def format_files(tmp: Path, scale: int = 30_000) -> list[tuple[str, Path]]:
    """One file of each document format under the limits, ``scale`` paragraphs or units."""
    gen = _sentences()
    out = []
    p = tmp / "paragraphs.txt"  # long paragraphs, blank line between
    with open(p, "w", encoding="utf-8") as fh:
        for i in range(scale // 3):
            fh.write(" ".join(next(gen) for _ in range(8)) + "\n\n")
    out.append(("TXT, paragraphs of 8 sentences", p))
    p = tmp / "strings.csv"
    with open(p, "w", encoding="utf-8") as fh:
        fh.write("key,source,target\n")
        for i in range(scale * 3):
            fh.write(f'k{i},"{next(gen)} {i}",\n')
    out.append((f"CSV, {scale * 3:,} rows", p))
    p = tmp / "strings.tsv"
    with open(p, "w", encoding="utf-8") as fh:
        for i in range(scale * 3):
            fh.write(f"{next(gen)} {i}\t\n")
    out.append((f"TSV, {scale * 3:,} rows", p))
    p = tmp / "page.html"
    with open(p, "w", encoding="utf-8") as fh:
        fh.write("<html><head><meta charset=\"utf-8\"><title>T</title></head><body>\n")
        for i in range(scale):
            if i % 10 == 0:
                fh.write(f"<h2>Section {i}</h2>\n")
            fh.write(f"<p>{_prose_with_codes(gen, i)}</p>\n")
        fh.write("</body></html>\n")
    out.append((f"HTML, {scale:,} paragraphs", p))
    p = tmp / "page.md"
    with open(p, "w", encoding="utf-8") as fh:
        for i in range(scale):
            if i % 10 == 0:
                fh.write(f"## Section {i}\n\n")
            para = _prose_with_codes(gen, i).replace("<b>", "**").replace("</b>", "**")
            fh.write(para.replace(f'<a href="p{i}.html">page {i}</a>', f"[page {i}](p{i}.html)") + "\n\n")
    out.append((f"Markdown, {scale:,} paragraphs", p))
    p = tmp / "units.xlf"
    with open(p, "w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" xmlns="urn:oasis:names:tc:'
                 'xliff:document:1.2"><file original="a" source-language="en" target-language="de" '
                 'datatype="plaintext"><body>\n')
        for i in range(scale * 2):
            words = next(gen).split()
            words.insert(1, f'<g id="1">{words[1]}</g>')
            fh.write(f'<trans-unit id="u{i}"><source>{" ".join(words)} {i}</source></trans-unit>\n')
        fh.write("</body></file></xliff>\n")
    out.append((f"XLIFF 1.2, {scale * 2:,} units", p))
    return out


def formats35(tmp: Path, roots: list[Path]) -> None:
    """``--issue 35 --formats``: each document format under the limits, imported as in issue35,
    by each checkout of ``roots`` in turn (back to back, so that load beside it hits both alike)."""
    print("| input | engine | file size | segments | time (s) | MB/s | peak RSS (MiB) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    cases = format_files(tmp)
    lines = tmp / "lines.txt"
    text_lines(lines, 3_000_000)
    po = tmp / "entries.po"
    po_entries(po, 100_000)
    for label, f in [("TXT, 3 MB of short lines", lines), ("PO, 100,000 entries", po)] + cases:
        size = f.stat().st_size
        for k, root in enumerate(roots):
            project = tmp / f"store-{k}-{f.name}"
            name = root.name if len(roots) > 1 else "this"
            out = subprocess.run([sys.executable, "-c", CHILD, "doc", str(f), str(project)], cwd=root,
                                 capture_output=True, text=True, timeout=1800)
            if out.returncode != 0:
                print(f"| {label} | {name} | {size / 1e6:.1f} MB | - | - | - | - | "
                      f"{out.stderr.strip().splitlines()[-1]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            with sqlite3.connect(project / "project.verso") as db:
                n = db.execute("SELECT COUNT(*) FROM segments").fetchone()[0]
            print(f"| {label} | {name} | {size / 1e6:.1f} MB | {n:,} | {r['s']:.2f} | "
                  f"{size / 1e6 / r['s']:.2f} | {r['maxrss_mb']:.0f} |", flush=True)


def issue35(tmp: Path) -> None:
    print("| input | file size | time (s) | MB/s | peak RSS (MiB) | outcome |")
    print("|---|---:|---:|---:|---:|---|")
    cases = [("txt-lines", 1_000_000), ("txt-lines", 10_000_000), ("txt-lines", 500_000_000),
             ("po", 10_000), ("po", 100_000), ("po", 200_000), ("xlsx", 50_000), ("xlsx-bomb", 5_000_000)]
    for kind, n in cases:
        if kind == "txt-lines":
            f, label = tmp / f"lines-{n}.txt", f"{n / 1e6:g} MB of short lines"
            text_lines(f, n)
        elif kind == "po":
            f, label = tmp / f"entries-{n}.po", f"{n:,} PO entries"
            po_entries(f, n)
        else:
            f = tmp / f"{kind}-{n}.xlsx"
            gen = _sentences()
            if kind == "xlsx":
                label = f"{n:,}-term glossary"
                shared_strings_xlsx(f, [("en", "de")] + [(f"{next(gen)} {i}", f"Begriff {i}") for i in range(n)])
            else:
                label = f"{n:,} shared strings (bomb)"
                shared_strings_xlsx(f, [("en", "de"), ("file", "Datei")], extra_strings=n)
        size = f.stat().st_size
        out = subprocess.run([sys.executable, "-c", CHILD, "glossary" if kind.startswith("xlsx") else "doc",
                              str(f), str(tmp / f"store-{kind}-{n}")], cwd=ROOT, capture_output=True, text=True,
                             timeout=1800)
        f.unlink()
        if out.returncode != 0:
            r = {"s": float("nan"), "maxrss_mb": float("nan"), "outcome": out.stderr.strip().splitlines()[-1]}
        else:
            r = json.loads(out.stdout.strip().splitlines()[-1])
        outcome = r["outcome"] if len(r["outcome"]) < 80 else r["outcome"][:77] + "..."
        rate = f"{size / 1e6 / r['s']:.2f}" if outcome == "imported" else "-"
        print(f"| {label} | {size / 1e6:.1f} MB | {r['s']:.2f} | {rate} | {r['maxrss_mb']:.0f} | {outcome} |",
              flush=True)


def issue45_files(tmp: Path) -> list[tuple[str, str, Path]]:
    """Issue 45's huge inputs: (label, kind, file); each is to be refused (or read, a TMX) fast."""
    out = []
    p = tmp / "million.srt"
    with open(p, "w", encoding="utf-8") as fh:
        for start in range(1, 1_000_001, 10_000):
            fh.write("".join(f"{i}\n00:{i // 60 % 60:02d}:{i % 60:02d},000 --> 00:{i // 60 % 60:02d}:{i % 60:02d},"
                             f"900\nLine number {i}.\n\n" for i in range(start, start + 10_000)))
    out.append(("SubRip, 1,000,000 cues", "doc", p))
    p = tmp / "million.properties"
    with open(p, "w", encoding="utf-8") as fh:
        for start in range(0, 1_000_000, 10_000):
            fh.write("".join(f"key.{i} = Value number {i}\n" for i in range(start, start + 10_000)))
    out.append(("properties, 1,000,000 lines", "doc", p))
    p = tmp / "strings.json"
    with open(p, "w", encoding="utf-8") as fh:
        fh.write("{\n" + ",\n".join(f'  "k{i}": "Value number {i}"' for i in range(300_000)) + "\n}\n")
    out.append(("JSON, 300,000 strings", "doc", p))
    p = tmp / "nested.html"
    p.write_text("<html><body><p>" + "<b>" * 100_000 + "deep" + "</b>" * 100_000 + "</p></body></html>\n", "utf-8")
    out.append(("HTML, 100,000 nested <b> in one paragraph", "doc", p))
    p = tmp / "nested64.html"
    para = "<p>" + "<span>" * 20_000 + "deep" + "</span>" * 20_000 + "</p>\n"
    with open(p, "w", encoding="utf-8") as fh:
        fh.write("<html><body>\n")
        for _ in range((64 << 20) // len(para) - 1):
            fh.write(para)
        fh.write("</body></html>\n")
    out.append(("HTML, 64 MiB of nested <span> paragraphs", "doc", p))
    p = tmp / "units.tmx"
    with open(p, "w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en" creationtool="t" '
                 'creationtoolversion="1" segtype="sentence" o-tmf="t" adminlang="en" datatype="plaintext"/><body>\n')
        for start in range(0, 200_000, 10_000):
            fh.write("".join(f'<tu><tuv xml:lang="en"><seg>Unit number {i} of the memory.</seg></tuv><tuv xml:lang='
                             f'"de"><seg>Einheit Nummer {i} des Speichers.</seg></tuv></tu>\n'
                             for i in range(start, start + 10_000)))
        fh.write("</body></tmx>\n")
    out.append(("TMX, 200,000 units (verso tm import)", "tm", p))
    return out


def issue45(tmp: Path) -> None:
    print("| input | file size | time (s) | peak RSS (MiB) | outcome |")
    print("|---|---:|---:|---:|---|")
    for label, kind, f in issue45_files(tmp):
        store = tmp / f"store-{f.stem}"
        if kind == "tm":
            cmd = [sys.executable, "-m", "engine", "tm", "import", str(f), "--tm", str(store),
                   "--src-lang", "en", "--tgt-lang", "de"]
            wrap = ("import resource, subprocess, sys, time, json; t=time.perf_counter(); "
                    "r=subprocess.run(sys.argv[1:], capture_output=True, text=True); "
                    "print(json.dumps({'s': time.perf_counter()-t, 'maxrss_mb': resource.getrusage("
                    "resource.RUSAGE_CHILDREN).ru_maxrss/1024, 'outcome': 'imported, %d progress lines' % "
                    "r.stderr.count('units read') if r.returncode == 0 else r.stderr.strip()}))")
            out = subprocess.run([sys.executable, "-c", wrap, *cmd], cwd=ROOT, capture_output=True, text=True,
                                 timeout=1800)
        else:
            out = subprocess.run([sys.executable, "-c", CHILD, "doc", str(f), str(store)], cwd=ROOT,
                                 capture_output=True, text=True, timeout=1800)
        size = f.stat().st_size
        f.unlink()
        if out.returncode != 0:
            r = {"s": float("nan"), "maxrss_mb": float("nan"), "outcome": out.stderr.strip().splitlines()[-1]}
        else:
            r = json.loads(out.stdout.strip().splitlines()[-1])
        outcome = r["outcome"].replace(str(tmp) + "/", "")
        print(f"| {label} | {size / 1e6:.1f} MB | {r['s']:.2f} | {r['maxrss_mb']:.0f} | {outcome} |", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100000,1000000,10000000")
    ap.add_argument("--issue", type=int, choices=(23, 35, 45), default=23)
    ap.add_argument("--formats", action="store_true",
                    help="with --issue 35: each document format under the limits (speed of import)")
    ap.add_argument("--root", type=Path, action="append",
                    help="a Verso checkout whose engine is measured (default: this one); repeat it for a "
                         "before/after, each file imported by each in turn")
    a = ap.parse_args()
    if a.issue == 35 and a.formats:
        with tempfile.TemporaryDirectory() as d:
            formats35(Path(d), [r.resolve() for r in a.root or [ROOT]])
        return 0
    if a.issue == 35:
        with tempfile.TemporaryDirectory() as d:
            issue35(Path(d))
        return 0
    if a.issue == 45:
        with tempfile.TemporaryDirectory() as d:
            issue45(Path(d))
        return 0
    sizes = [int(x) for x in a.sizes.split(",")]
    print("| input | one line of | time (s) | peak RSS (MiB) | outcome |")
    print("|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as d:
        for kind in ("txt", "po", "tm-pair"):
            for size in sizes:
                r = run(kind, size, Path(d))
                outcome = r["outcome"] if len(r["outcome"]) < 70 else r["outcome"][:67] + "..."
                print(f"| {kind} | {size:,} B | {r['s']:.2f} | {r['maxrss_mb']:.0f} | {outcome} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
