"""Issue 45 item 7: import and untouched export of large DOCX files of several shapes.

A 475 KB test file of Apache POI (``bug65649.docx``) took 78 s to import and over 120 s to export
untouched.  POI's files are not used here; each shape below is a stress such a file typically holds,
sized to a package of a few hundred KB:

* ``paras``: 30,000 short paragraphs of two runs;
* ``runs``: one paragraph of 20,000 runs, formatting alternating;
* ``fields``: 6,000 fields (``PAGE``, ``REF``: begin, instruction, separate, result, end) in 600
  paragraphs;
* ``field-para``: one paragraph of 3,000 fields;
* ``table``: a table of 400 x 25 cells, a paragraph each;
* ``bookmarks``: 20,000 bookmarks (start and end) in 2,000 paragraphs;
* ``links``: one paragraph of 4,000 hyperlinks;
* ``tracked``: 500 paragraphs of 20 insertions and deletions each;
* ``textboxes``: 2,000 text boxes (``mc:AlternateContent``: the Choice and the VML Fallback);
* ``nested``: tables nested 6 deep, 3 x 3 cells each level, 40 times.

Each file is read (``DocxFormat.read``), exported untouched (``DocxFormat.write`` with no
translation) and exported with one segment in the middle translated (the write timed, not the read
before it), each in a fresh subprocess with a time limit per step.  Usage::

    python -m benchmarks.docx_shapes [--shapes paras,runs] [--limit 300] [--root OTHER_CHECKOUT]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from benchmarks.paths import ROOT

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = (f'xmlns:w="{W_NS}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
      'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
      'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
      'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:wp="http://schemas.openxmlformats.org/'
      'drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"')
CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                 '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                 '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                 '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
                 'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                 '</Types>')
RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/officeDocument" Target="word/document.xml"/></Relationships>')
WORDS = ("the committee met on monday to discuss a new budget several members asked for more time "
         "and chair agreed would report be ready by june while others said no").split()


def _words(i: int, n: int) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n))


def _run(text: str, bold: bool = False) -> str:
    rpr = '<w:rPr><w:b/><w:lang w:val="en-GB"/></w:rPr>' if bold else '<w:rPr><w:lang w:val="en-GB"/></w:rPr>'
    return f'<w:r w:rsidR="00A1B2C3">{rpr}<w:t xml:space="preserve">{text}</w:t></w:r>'


def _p(inner: str) -> str:
    return f'<w:p w:rsidR="00A1B2C3"><w:pPr><w:pStyle w:val="Normal"/></w:pPr>{inner}</w:p>'


def _field(i: int) -> str:
    instr = "PAGE" if i % 2 else f"REF _Ref{i} \\h"
    return (f'<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> {instr} '
            f'</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>{_run(str(i))}'
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>')


def _textbox(i: int) -> str:
    body = _p(_run(f"Box {i}. " + _words(i, 6) + "."))
    return ('<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor><a:graphic>'
            f'<a:graphicData><wps:wsp><wps:txbx><w:txbxContent>{body}</w:txbxContent></wps:txbx></wps:wsp>'
            '</a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape>'
            f'<v:textbox><w:txbxContent>{body}</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>'
            '</mc:AlternateContent></w:r>')


def _table(rows: int, cols: int, cell) -> str:
    return ("<w:tbl><w:tblPr><w:tblW w:w=\"0\" w:type=\"auto\"/></w:tblPr>"
            + "".join("<w:tr>" + "".join(f"<w:tc><w:tcPr/>{cell(r, c)}</w:tc>" for c in range(cols)) + "</w:tr>"
                      for r in range(rows)) + "</w:tbl>")


def _nested(depth: int, i: int) -> str:
    if depth == 0:
        return _p(_run(f"Cell {i}. " + _words(i, 5) + "."))
    return _table(3, 3, lambda r, c: _nested(depth - 1, i * 9 + r * 3 + c) if (r, c) == (1, 1)
                  else _p(_run(_words(i + r + c, 4) + ".")))


SHAPES = {
    "paras": lambda: "".join(_p(_run(f"Paragraph {i}. ") + _run(_words(i, 8) + ".", True)) for i in range(30000)),
    "runs": lambda: _p("".join(_run(_words(i, 2) + " ", bool(i % 2)) for i in range(20000))),
    "fields": lambda: "".join(_p(_run(f"See {i}. ") + "".join(_field(i * 10 + k) for k in range(10))
                                 + _run(" and more.")) for i in range(600)),
    "field-para": lambda: _p(_run("Start. ") + "".join(_field(i) + _run(" text. ") for i in range(3000))),
    "table": lambda: _table(400, 25, lambda r, c: _p(_run(f"Cell {r}-{c}. " + _words(r + c, 4) + "."))),
    "bookmarks": lambda: "".join(
        _p("".join(f'<w:bookmarkStart w:id="{i * 10 + k}" w:name="_Ref{i * 10 + k}"/>{_run(_words(k, 3) + ". ")}'
                   f'<w:bookmarkEnd w:id="{i * 10 + k}"/>' for k in range(10))) for i in range(2000)),
    "links": lambda: _p("".join(f'<w:hyperlink w:anchor="_Ref{i}" w:history="1">{_run(_words(i, 2))}</w:hyperlink>'
                                + _run(" and ") for i in range(4000))),
    "tracked": lambda: "".join(_p("".join(
        f'<w:ins w:id="{i * 40 + k}" w:author="A" w:date="2020-01-01T00:00:00Z">{_run(_words(k, 2) + " ")}</w:ins>'
        f'<w:del w:id="{i * 40 + k + 20}" w:author="B" w:date="2020-01-01T00:00:00Z"><w:r><w:delText>'
        f'{_words(k + 1, 2)} </w:delText></w:r></w:del>' for k in range(20))) for i in range(500)),
    "textboxes": lambda: "".join(_p(_run(f"Anchor {i}. ") + _textbox(i)) for i in range(2000)),
    "nested": lambda: "".join(_nested(6, i) for i in range(40)),
}


def build(shape: str, path: Path) -> Path:
    body = SHAPES[shape]()
    members = {"[Content_Types].xml": CONTENT_TYPES.encode(), "_rels/.rels": RELS.encode()}
    members["word/document.xml"] = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
                                    f'<w:document {NS}><w:body>{body}</w:body></w:document>').encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in members.items():
            z.writestr(n, data)
    return path


CHILD = r"""
import json, sys, time
step, path = sys.argv[1], sys.argv[2]
from engine.formats.base import Translation
from engine.formats.docx import FORMAT
from engine.inline import TaggedText
tr = {}
if step == "edit":  # one segment in the middle translated
    segs = FORMAT.read(path, src_lang="en").segments
    tr = {segs[len(segs) // 2].key: Translation(TaggedText("Edited."))}
t0 = time.perf_counter()
if step == "import":
    doc = FORMAT.read(path, src_lang="en")
    n = len(doc.segments)
else:
    FORMAT.write(path, sys.argv[3], tr, src_lang="en")
    n = 0
print(json.dumps({"s": time.perf_counter() - t0, "segments": n}))
"""


def measure(root: Path, step: str, path: Path, limit: float) -> dict:
    args = [sys.executable, "-c", CHILD, step, str(path), str(path.with_suffix(".out.docx"))]
    try:
        p = subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=limit,
                           env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    except subprocess.TimeoutExpired:
        return {"s": None, "note": f"over {limit:.0f} s"}
    if p.returncode:
        return {"s": None, "note": p.stderr.strip().splitlines()[-1][:80]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--limit", type=float, default=300)
    ap.add_argument("--root", action="append", type=Path)
    a = ap.parse_args()
    roots = a.root or [ROOT]
    print("| shape | package KB | document.xml MB | segments | " + " | ".join(
        f"import s ({r.name}) | untouched export s ({r.name}) | one-edit export s ({r.name})" for r in roots) + " |")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in a.shapes.split(","):
            path = build(shape, Path(tmp) / f"{shape}.docx")
            with zipfile.ZipFile(path) as z:
                xml_mb = z.getinfo("word/document.xml").file_size / 1e6
            cells, segs = [], ""
            for root in roots:
                for step in ("import", "export", "edit"):
                    r = measure(root, step, path, a.limit)
                    cells.append(f"{r['s']:.1f}" if r["s"] is not None else r["note"])
                    segs = str(r.get("segments", segs)) if step == "import" and r["s"] is not None else segs
            print(f"| {shape} | {path.stat().st_size // 1000} | {xml_mb:.1f} | {segs} | " + " | ".join(cells) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
