"""A repeatable robustness run: kill -9 in the middle of the work, and hostile or huge files
(issue 23).  Re-run it after every change that touches the store, the TM or a reader:

    .venv/bin/python -m benchmarks.robustness [--kills 20] [--out robustness.json]

* **kill -9 during confirm**: a process confirms segments one by one, printing each id once
  ``Project.confirm`` has returned; it is killed at a random moment; every printed segment must
  be confirmed with its text when the project is opened again, and the database must pass
  ``PRAGMA integrity_check``.
* **kill -9 during TM add**: the same with ``TranslationMemory.add`` (and the index rebuilt or
  caught up on reopening: every printed pair is found by a search).
* **kill -9 during import**: a 20,000-segment document imported again and again, killed at a
  random moment: every document in the project is whole.
* **kill -9 of the editor's TM path during confirms and index flushes**: the editor's own
  :class:`app.tmservice.TMService` (its TM thread, one index flush every 200 adds so a kill often
  lands in one) confirms segment after segment as Ctrl+Enter does (``Project.confirm`` with the
  TM write it owes, then the TM thread's add); every segment printed after its confirm returned
  must be a 100 % match with its target in the TM once the project is opened again as the
  editor opens it (what is still owed is sent).  ``lost_before_resend``: how many the TM lacked
  before that step (what a crash used to lose).
* **kill -9 during export**: a 20,000-segment document exported again and again; the temporary
  files kills leave beside the export are counted, then one more export must remove them all.
* **hostile and huge files**: each is given to ``verso doc import`` (and TM files to ``verso tm
  import``); it passes when the command ends within 30 s with exit 2 and ONE line on stderr
  naming the file, no traceback, and the project as it was.

Prints the counts as JSON (and writes them to ``--out``).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

from benchmarks.paths import ROOT

PY = sys.executable

CONFIRM = textwrap.dedent("""
    import sys
    from engine.store import Project
    p = Project.open(sys.argv[1])
    for s in p.segments(p.documents()[0].id):
        p.confirm(s.id, f"Übersetzung {s.idx}")
        print(s.id, flush=True)
""")
TM_ADD = textwrap.dedent("""
    import sys
    from engine.tm import TranslationMemory
    tm = TranslationMemory(sys.argv[1], src_lang="en", tgt_lang="de")
    for i in range(100000):
        tm.add(f"Sentence number {i} of the robustness run.", f"Satz Nummer {i} des Laufs.")
        print(i, flush=True)
""")
EDITOR_CONFIRM = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QCoreApplication, QTimer
    from engine.store import Project
    from engine.tm import TranslationMemory
    from app.tmservice import TMService
    TranslationMemory.FLUSH_AT = 200
    app = QCoreApplication([])
    p = Project.open(sys.argv[1])
    tm = TMService(p)
    tm.send_pending(p)
    segs = [s for s in p.segments(p.documents()[0].id) if s.status != "confirmed"]
    def step(i=0):
        if i == len(segs):
            return app.quit()
        s = segs[i]
        meta = {"origin": "robustness", "creator": "translator"}
        seg = p.confirm(s.id, f"Übersetzung {s.idx}", tm_meta=meta)
        tm.add(seg.source, seg.target, meta, on_written=lambda sid=seg.id: p.tm_written([sid]))
        print(s.id, flush=True)
        QTimer.singleShot(0, lambda: step(i + 1))
    QTimer.singleShot(0, step)
    app.exec()
""")
EXPORT = textwrap.dedent("""
    import sys
    from engine.store import Project
    p = Project.open(sys.argv[1])
    doc = p.documents()[0].id
    for k in range(1000):
        p.export_document(doc, sys.argv[2])
        print(k, flush=True)
""")
IMPORT = textwrap.dedent("""
    import sys
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.inline import protect
    from engine.store import Project
    p = Project.open(sys.argv[1])
    n = int(sys.argv[3])
    for k in range(1000):
        segs = [ParsedSegment(f"k{i}", protect(f"Sentence <b>{i}</b> of document {k}.")) for i in range(n)]
        p.import_parsed(ParsedDocument(f"d{k}.txt", "txt", "en", "de", segs), sys.argv[2])
        print(k, flush=True)
""")


def spawn(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([PY, "-c", code, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def read_until_killed(proc: subprocess.Popen, after_s: float) -> list[str]:
    """The complete lines a process printed until it was killed, ``after_s`` seconds after its
    first line (a line cut by the kill, without its newline, was never acknowledged: left out)."""
    lines: list[str] = []
    first = threading.Event()

    def reader() -> None:
        for raw in proc.stdout:
            if raw.endswith("\n") and raw.strip():
                lines.append(raw.strip())
                first.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    first.wait(60)
    time.sleep(after_s)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    t.join(10)
    return list(lines)


def kill_confirm(work: Path, rng: random.Random, kills: int) -> dict:
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.inline import protect
    from engine.store import Project

    lost = checked = 0
    for k in range(kills):
        folder = work / f"confirm{k}"
        original = work / "original.txt"
        original.write_text("x", encoding="utf-8")
        with Project.create(folder, src_lang="en", tgt_lang="de") as p:
            p.import_parsed(ParsedDocument("g.txt", "txt", "en", "de",
                                           [ParsedSegment(f"k{i}", protect(f"Sentence {i}.")) for i in range(3000)]),
                            original)
        printed = read_until_killed(spawn(CONFIRM, str(folder)), rng.uniform(0.05, 1.0))
        with Project.open(folder) as p:
            ok = p._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            for sid in printed:
                seg = p.segment(int(sid))
                checked += 1
                lost += seg.status != "confirmed" or seg.target.text != f"Übersetzung {seg.idx}"
            lost += not ok
    return {"kills": kills, "confirmed_checked": checked, "lost": lost}


def kill_tm_add(work: Path, rng: random.Random, kills: int) -> dict:
    from engine.tm import TranslationMemory

    lost = checked = 0
    for k in range(kills):
        folder = work / f"tm{k}"
        printed = read_until_killed(spawn(TM_ADD, str(folder)), rng.uniform(0.05, 1.0))
        with TranslationMemory(folder, src_lang="en", tgt_lang="de") as tm:
            for i in printed[-20:]:  # the newest pairs: those a kill could have lost
                checked += 1
                hits = tm.search(f"Sentence number {i} of the robustness run.", k=1)
                lost += not hits or hits[0].score < 1.0
    return {"kills": kills, "pairs_checked": checked, "lost": lost}


def kill_editor_confirm(work: Path, rng: random.Random, kills: int) -> dict:
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.inline import protect
    from engine.store import Project
    from engine.tm import TranslationMemory
    from engine.tmsync import send_pending

    lost = lost_before = checked = 0
    for k in range(kills):
        folder = work / f"editor{k}"
        original = work / "original.txt"
        original.write_text("x", encoding="utf-8")
        with Project.create(folder, src_lang="en", tgt_lang="de") as p:
            p.import_parsed(ParsedDocument("g.txt", "txt", "en", "de", [
                ParsedSegment(f"k{i}", protect(f"Sentence number {i} of the editor run.")) for i in range(4000)]),
                original)
            p.set_setting("tms", '[{"path": "tm", "writable": true}]')
        env_code = "import os; os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')\n" + EDITOR_CONFIRM
        printed = read_until_killed(spawn(env_code, str(folder)), rng.uniform(0.2, 4.0))
        with Project.open(folder) as p, TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
            def missing() -> int:
                n = 0
                for sid in printed:
                    seg = p.segment(int(sid))
                    hits = tm.search(seg.source.text, k=1)
                    n += not hits or hits[0].score < 1.0 or hits[0].target.text != seg.target.text
                return n
            lost_before += missing()
            send_pending(p, tm)    # what the editor does when it opens the project
            lost += missing()
            checked += len(printed)
    return {"kills": kills, "confirmed_checked": checked, "lost_before_resend": lost_before, "lost": lost}


def kill_export(work: Path, rng: random.Random, kills: int) -> dict:
    from engine.store import Project

    folder = work / "export"
    original = work / "export-original.txt"
    sources = [f"Sentence {i} of the exported manual, long enough to make the file a few MB." for i in range(20000)]
    original.write_text("\n\n".join(sources), encoding="utf-8")
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(original)
        p.set_targets([(s.id, f"Satz {s.idx}.") for s in p.segments(doc)])
    out = work / "out" / "manual.de.txt"
    out.parent.mkdir()
    left = 0
    for _ in range(kills):  # (each new export removes what the kill before left)
        read_until_killed(spawn(EXPORT, str(folder), str(out)), rng.uniform(0.0, 0.5))
        left += len([f for f in out.parent.iterdir() if f.name.endswith(".tmp")])
    with Project.open(folder) as p:
        p.export_document(p.documents()[0].id, out)
    after = len([f for f in out.parent.iterdir() if f.name.endswith(".tmp")])
    return {"kills": kills, "temp_files_left_by_kills": left, "temp_files_after_next_export": after}


def kill_import(work: Path, rng: random.Random, kills: int) -> dict:
    from engine.store import Project

    half = 0
    docs = 0
    for k in range(kills):
        folder = work / f"import{k}"
        Project.create(folder, src_lang="en", tgt_lang="de").close()
        original = work / "original.txt"
        original.write_text("x", encoding="utf-8")
        read_until_killed(spawn(IMPORT, str(folder), str(original), "20000"), rng.uniform(0.05, 1.5))
        with Project.open(folder) as p:
            for d in p.documents():
                docs += 1
                half += d.segment_count != 20000
    return {"kills": kills, "documents": docs, "half_imported": half}


def hostile_files(work: Path) -> dict[str, Path]:
    """Files a stranger might send; each must end in one clear line, quickly."""
    d = work / "hostile"
    d.mkdir()
    files: dict[str, Path] = {}

    def put(name: str, data: bytes | str) -> None:
        p = d / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        files[name] = p

    laughs = "".join(f'<!ENTITY l{i} "&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};">' for i in range(1, 12))
    put("billion-laughs.xlf", f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY l0 "ha">{laughs}]>'
        '<xliff version="1.2"><file source-language="en" target-language="de"><body>'
        '<trans-unit id="1"><source>&l11;</source></trans-unit></body></file></xliff>')
    put("external-entity.xlf", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        '<xliff version="1.2"><file source-language="en" target-language="de"><body>'
        '<trans-unit id="1"><source>&e;</source></trans-unit></body></file></xliff>')
    put("late-doctype.xlf", '<?xml version="1.0"?><!--' + "x" * 100_000 + '-->\n<!DOCTYPE x [<!ENTITY e "e">]>'
        '<xliff version="1.2"><file source-language="en" target-language="de"><body>'
        '<trans-unit id="1"><source>&e;</source></trans-unit></body></file></xliff>')
    put("deep-nesting.xlf", '<?xml version="1.0"?><xliff version="1.2"><file source-language="en" '
        'target-language="de"><body><trans-unit id="1"><source>' + "<g id='1'>" * 100_000 + "x"
        + "</g>" * 100_000 + "</source></trans-unit></body></file></xliff>")
    noise = random.Random(1)
    put("binary.txt", bytes(noise.randrange(256) for _ in range(200_000)))
    put("utf16-no-bom.po", 'msgid "Hello"\nmsgstr "Hallo"\n'.encode("utf-16-le"))
    put("truncated.tmx", '<?xml version="1.0"?><tmx version="1.4"><header srclang="en"/><body><tu><tuv '
        'xml:lang="en"><seg>Open')
    put("huge-line.txt", "word " * 2_000_000)  # 10 MB on one line
    put("huge-line.po", 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "'
        + "word " * 2_000_000 + '"\nmsgstr ""\n')
    put("empty.xlf", "")
    put("rot13-charset.po", 'msgid ""\nmsgstr "Content-Type: text/plain; charset=rot13\\n"\n\nmsgid "Hello"\nmsgstr ""\n')
    put("zlib-charset.html", '<html><head><meta charset="zlib"></head><body><p>Hello</p></body></html>')
    put("too-many-segments.txt", "".join(f"Line {i}.\n\n" for i in range(150_000)))
    return files


def run_hostile(work: Path) -> dict:
    files = hostile_files(work)
    rows = {}
    for name, path in files.items():
        proj = work / f"proj-{name}"
        t0 = time.time()
        try:
            r = subprocess.run([PY, "-m", "engine", "doc", "import", str(path), "--project", str(proj),
                                "--src-lang", "en", "--tgt-lang", "de"], cwd=ROOT, capture_output=True, text=True,
                               timeout=30)
            rc, err = r.returncode, r.stderr.strip()
        except subprocess.TimeoutExpired:
            rc, err = None, "timed out after 30 s"
        seconds = round(time.time() - t0, 2)
        one_line = bool(err) and "\n" not in err and "Traceback" not in err and path.name in err
        rows[name] = {"rc": rc, "seconds": seconds, "one_line_error": one_line, "stderr": err[:200]}
    passed = sum(1 for r in rows.values() if r["rc"] == 2 and r["one_line_error"])
    return {"files": len(rows), "passed": passed, "rows": rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20, help="kills per kind (confirm, TM add, import)")
    ap.add_argument("--editor-kills", type=int, default=50, help="kills of the editor's TM path")
    ap.add_argument("--only", nargs="*", default=None, help="run only these parts (e.g. kill_editor_confirm)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory(prefix="verso-robust-") as tmp:
        work = Path(tmp)
        t0 = time.time()
        parts = {"kill_confirm": lambda: kill_confirm(work, rng, a.kills),
                 "kill_tm_add": lambda: kill_tm_add(work, rng, a.kills),
                 "kill_editor_confirm": lambda: kill_editor_confirm(work, rng, a.editor_kills),
                 "kill_export": lambda: kill_export(work, rng, a.kills),
                 "kill_import": lambda: kill_import(work, rng, max(1, a.kills // 4)),
                 "hostile": lambda: run_hostile(work)}
        out = {name: run() for name, run in parts.items() if not a.only or name in a.only}
        out["seconds"] = round(time.time() - t0, 1)
    text = json.dumps(out, indent=1, ensure_ascii=False)
    print(text)
    if a.out:
        a.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
