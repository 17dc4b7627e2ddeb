"""Import speed of real prose: ``verso doc import`` of JRC-Acquis as TXT, HTML and DOCX (issue 46 item 5).

    .venv/bin/python -m benchmarks.import_speed [--mb 3] [--repeat 3] [--tree DIR ...] [--profile FMT]

The document: the English JRC-Acquis sentences (``common.en``, 238 laws in document order), four
consecutive sentences of one law a paragraph, repeated until ``--mb`` megabytes of UTF-8 text.  The
same paragraphs are written as a TXT (blank line between paragraphs), an HTML page (one ``<p>`` each)
and a DOCX (one ``w:p`` each, built with zipfile: python-docx is no dependency); in the HTML and the
DOCX each paragraph's sixth word is bold, a pair of inline codes (``--plain``: none).

Each ``--tree`` (a source tree: this checkout by default, e.g. a worktree of an older commit) runs
``python -m engine doc import`` in a subprocess with ``PYTHONPATH=DIR``, the trees interleaved
repeat by repeat so that a change of machine load falls on all of them alike.  Reported: the CPU
seconds of the child (user + system) and MB of input per CPU second, the best of the repeats; the
children keep compiled bytecode in a temporary ``PYTHONPYCACHEPREFIX`` (filled by one uncounted run
per tree and format), as an installed Verso has its ``.pyc`` files.
``--profile FMT`` instead profiles one import of that format in this process (cProfile, top 25).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from html import escape
from pathlib import Path

from benchmarks.paths import ROOT, SHARED_DATA

JRC = SHARED_DATA / "jrc-acquis-endefr"
FORMATS = ("txt", "html", "docx")


def paragraphs(mb: float, per: int = 4) -> list[str]:
    """JRC-Acquis English sentences, ``per`` consecutive sentences of one law a paragraph, until
    ``mb`` megabytes."""
    lines = (JRC / "common.en").read_text(encoding="utf-8").splitlines()
    docs = (JRC / "common.docid").read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    size, goal = 0, int(mb * 1_000_000)
    while size < goal:
        para: list[str] = []
        last = None
        for line, doc in zip(lines, docs):
            line = line.strip()
            if not line:
                continue
            if para and (doc != last or len(para) == per):
                out.append(" ".join(para))
                size += len(out[-1].encode("utf-8")) + 2
                para = []
                if size >= goal:
                    return out
            para.append(line)
            last = doc
        if para:
            out.append(" ".join(para))
            size += len(out[-1].encode("utf-8")) + 2
    return out


def write_txt(paras: list[str], path: Path) -> None:
    path.write_text("\n\n".join(paras) + "\n", encoding="utf-8")


PYCACHE = Path(tempfile.gettempdir())  # the children's compiled bytecode (a temporary folder in main)
PLAIN = False  # --plain: no bold word (documents without inline codes)


def _bold_word(p: str) -> tuple[str, str, str]:
    """The paragraph around its fifth word, which the HTML and DOCX set in bold (an inline code pair)."""
    words = p.split(" ")
    if PLAIN or len(words) < 7:
        return p, "", ""
    return " ".join(words[:5]) + " ", words[5], " " + " ".join(words[6:])


def write_html(paras: list[str], path: Path) -> None:
    body = "\n".join("<p>{}<b>{}</b>{}</p>".format(*(escape(x, quote=False) for x in _bold_word(p)))
                     if _bold_word(p)[1] else f"<p>{escape(p, quote=False)}</p>" for p in paras)
    path.write_text(f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>JRC-Acquis</title>'
                    f"</head>\n<body>\n{body}\n</body></html>\n", encoding="utf-8")


_CT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
       '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
       '<Default Extension="xml" ContentType="application/xml"/>'
       '<Override PartName="/word/document.xml" '
       'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
       '</Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
         'officeDocument" Target="word/document.xml"/></Relationships>')


def write_docx(paras: list[str], path: Path) -> None:
    def run(text: str, bold: bool = False) -> str:
        props = "<w:rPr><w:b/></w:rPr>" if bold else ""
        return f'<w:r>{props}<w:t xml:space="preserve">{escape(text, quote=False)}</w:t></w:r>' if text else ""

    body = "".join("<w:p>{}{}{}</w:p>".format(run(a), run(b, True), run(c)) for a, b, c in map(_bold_word, paras))
    doc = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
           '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
           f"<w:body>{body}</w:body></w:document>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CT)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("word/document.xml", doc)


def build(folder: Path, mb: float) -> dict[str, tuple[Path, int]]:
    """The three documents and the bytes of text each holds."""
    paras = paragraphs(mb)
    text_bytes = sum(len(p.encode("utf-8")) for p in paras)
    files = {}
    for fmt, writer in (("txt", write_txt), ("html", write_html), ("docx", write_docx)):
        path = folder / f"jrc.{fmt}"
        writer(paras, path)
        files[fmt] = (path, text_bytes)
    return files


def run_import(tree: Path, path: Path, project: Path) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, segments) of one ``doc import`` in a child with PYTHONPATH=tree."""
    # compiled bytecode kept between runs, as an installed wheel has it: this VM sets PYTHONDONTWRITEBYTECODE,
    # and compiling the 61 modules an import loads from source is 0.13 s of CPU (cProfile, 3 MB DOCX)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), OMP_NUM_THREADS="1", PYTHONPYCACHEPREFIX=str(PYCACHE))  # mirrors each tree's path
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "engine", "doc", "import", str(path), "--project", str(project),
                        "--src-lang", "en", "--tgt-lang", "de"], env=env, capture_output=True, text=True,
                       cwd=str(tree))  # ``-m`` puts the working folder first on sys.path
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        raise SystemExit(f"{tree}: import of {path.name} failed: {r.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = json.loads(r.stdout)
    return cpu, wall, int(out.get("segments", 0))


def profile(path: Path) -> None:
    import cProfile
    import pstats

    from engine.store import Project

    with tempfile.TemporaryDirectory() as tmp:
        p = Project.create(Path(tmp) / "p", src_lang="en", tgt_lang="de")
        prof = cProfile.Profile()
        prof.enable()
        p.import_document(path)
        prof.disable()
        p.close()
    pstats.Stats(prof).sort_stats(os.environ.get("SORT", "cumulative")).print_stats(int(os.environ.get("TOP", "25")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=3.0, help="megabytes of text in each document")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tree", type=Path, action="append", default=[], metavar="DIR",
                    help="a source tree to measure (repeatable; default: this checkout)")
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--profile", choices=FORMATS, default=None)
    ap.add_argument("--plain", action="store_true", help="no bold word in the HTML and DOCX paragraphs")
    a = ap.parse_args()
    global PLAIN
    PLAIN = a.plain
    trees = a.tree or [ROOT]
    with tempfile.TemporaryDirectory() as tmp:
        global PYCACHE
        PYCACHE = Path(tmp) / "pycache"
        files = build(Path(tmp), a.mb)
        if a.profile:
            profile(files[a.profile][0])
            return 0
        best: dict[tuple[str, str], tuple[float, float, int]] = {}
        for fmt in a.formats.split(","):  # a first run per tree compiles the bytecode (not counted)
            for tree in trees:
                run_import(tree, files[fmt][0], Path(tmp) / f"warm_{fmt}_{Path(tree).name}")
        for rep in range(a.repeat):
            for fmt in a.formats.split(","):
                for tree in trees:
                    project = Path(tmp) / f"p{rep}_{fmt}_{len(best)}"
                    cpu, wall, n = run_import(tree, files[fmt][0], project)
                    key = (str(tree), fmt)
                    if key not in best or cpu < best[key][0]:
                        best[key] = (cpu, wall, n)
        rows = [{"tree": t, "format": f, "text_mb": round(files[f][1] / 1e6, 2), "segments": n,
                 "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "mb_per_cpu_s": round(files[f][1] / 1e6 / cpu, 2)}
                for (t, f), (cpu, wall, n) in best.items()]
    print(json.dumps({"machine": os.uname().nodename, "cpus": os.cpu_count(), "repeat": a.repeat,
                      "plain": a.plain, "load": os.getloadavg()[0], "rows": rows},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
