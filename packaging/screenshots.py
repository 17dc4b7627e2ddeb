"""Screenshots of the editor for docs/screenshots/, taken on a virtual display.

    .venv/bin/python packaging/screenshots.py [--out docs/screenshots] [--model MODEL_DIR]

Starts ``Xvfb`` on the first free display from ``:99`` (unless ``--no-xvfb`` or ``$DISPLAY`` is already a virtual
display), runs the real editor on the bundled demo project in a temporary
``VERSO_HOME``, and saves one PNG of the main window (the whole virtual screen,
through ``xwd`` + ``convert``) and one of each panel and dialog (``QWidget.grab``).

Suggestion and alignment need a model: ``--model`` (or ``$VERSO_MODEL``, or
the bundled ``resources/models/demo``).  Without one, the script trains a
tiny model on a synthetic corpus (a few seconds) and shows it on a small
document in that corpus' language, so the panels show real engine values.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_display(start: int = 99) -> str:
    """The first display number from ``start`` with no X server (another one may be in use)."""
    n = start
    while Path(f"/tmp/.X11-unix/X{n}").exists() or Path(f"/tmp/.X{n}-lock").exists():
        n += 1
    return f":{n}"


def start_xvfb() -> tuple[subprocess.Popen, str]:
    display = free_display()
    proc = subprocess.Popen(["Xvfb", display, "-screen", "0", "1440x900x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if Path(f"/tmp/.X11-unix/X{display[1:]}").exists():
            break
        if proc.poll() is not None:
            raise SystemExit(f"Xvfb {display} did not start")
        time.sleep(0.1)
    time.sleep(0.3)
    return proc, display


def capture_screen(path: Path) -> bool:
    """The whole virtual screen with xwd, converted to PNG (False if the tools are missing)."""
    if not (shutil.which("xwd") and shutil.which("convert")):
        return False
    xwd = subprocess.run(["xwd", "-root", "-silent", "-display", os.environ["DISPLAY"]], capture_output=True)
    if xwd.returncode:
        return False
    subprocess.run(["convert", "xwd:-", str(path)], input=xwd.stdout, check=True)
    return True


def tiny_model(folder: Path) -> tuple[Path, list[str]]:
    """Train a tiny model on the synthetic corpus of the NMT tests; returns it and a few sentences."""
    sys.path.insert(0, str(ROOT / "tests" / "nmt"))
    import torch
    from toydata import write_corpus

    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train

    torch.set_num_threads(1)  # more threads spin-wait badly on a busy machine
    c = write_corpus(folder / "corpus", n_train=400, n_dev=40)
    cfg = ExperimentConfig.from_dict({
        "data": {"src_lang": "en", "tgt_lang": "de", "train_src": str(c["train_en"]), "train_tgt": str(c["train_de"]),
                 "dev_src": str(c["dev_en"]), "dev_tgt": str(c["dev_de"]), "vocab_size": 80},
        "model": {"emb_dim": 32, "hidden": 48, "dropout": 0.0, "emb_dropout": 0.0, "context_gate": "both"},
        "train": {"batch_tokens": 400, "lr": 0.01, "max_epochs": 50, "max_steps": 150, "eval_every": 150,
                  "log_every": 50, "label_smoothing": 0.0, "patience": 0},
    })
    train(cfg, folder / "model")
    dev = c["dev_en"].read_text(encoding="utf-8").splitlines()
    return folder / "model", dev[:8], c


def pump(app, seconds: float) -> None:
    end = time.time() + seconds
    while time.time() < end:
        app.processEvents()
        time.sleep(0.01)


def wait(app, cond, timeout: float = 60.0) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        app.processEvents()
        if cond():
            return True
        time.sleep(0.02)
    print(f"(gave up waiting after {timeout:.0f} s)", file=sys.stderr, flush=True)
    return False


def shoot_review(app, win, save) -> None:
    """Review ▸ Track Changes on, a confirmed target edited: Segment Changes and Add LQA Error."""
    from PySide6.QtGui import QTextCursor

    from engine import identity

    identity.use("Rita Reviewer")
    win.actions_by_id["track_changes"].trigger()
    row = next(r for r in range(win.model.rowCount()) if win.model.segment(r).status == "confirmed")
    win.nav.go_to(row)
    if win.model.segment(row).locked:  # the lock of the main-window shot
        win.editing.locking.toggle_lock()
    before = win.model.segment(row).target.text
    words = before.split()
    after = " ".join(words[:-1] + ["gleich", words[-1]]) if len(words) > 1 else before + " (geprüft)"
    win.nav.go_to(row)
    win.model.set_target(row, after, status="confirmed")  # the reviewer's edit, recorded as a tracked change
    win.nav.refresh_editor(row)
    pump(app, 0.3)
    dlg = win.review.segment_changes()
    dlg.resize(760, 420)
    pump(app, 0.4)
    save(dlg, "dialog-segment-changes.png")
    dlg.close()
    ed = win.editor()
    cur = ed.textCursor()
    at = after.find("gleich")
    cur.setPosition(max(at, 0))
    cur.setPosition(max(at, 0) + len("gleich"), QTextCursor.KeepAnchor)
    ed.setTextCursor(cur)
    dlg = win.review.add_lqa_error()
    dlg.resize(520, dlg.sizeHint().height())
    dlg.severity.setCurrentIndex(min(1, dlg.severity.count() - 1))
    dlg.comment.setText("'gleich' adds a meaning the source lacks")
    pump(app, 0.3)
    save(dlg, "dialog-lqa-error.png")
    dlg.accept()
    win.dock_comments.raise_()
    pump(app, 0.3)
    save(win.dock_comments, "panel-comments-lqa.png")


def shoot_align(app, win, work: Path, save) -> None:
    """File ▸ Align Documents…: the demo TM's pairs as a document and its translation, one sentence
    of the translation left out, aligned by length (the model's pass is slower on a busy machine)."""
    from engine.demo import DEMO_TM
    from engine.formats.tmfiles import read_tm_file
    from engine.resources import resources_dir

    pairs = []
    for u in read_tm_file(resources_dir() / "demo" / DEMO_TM, src_lang="en", tgt_lang="de"):
        # the TM's inline codes are private-use placeholders: a plain document has none
        by_lang = {code.split("-")[0].lower(): " ".join("".join(c for c in t.text if not "\ue000" <= c <= "\uf8ff")
                                                        .split()) for code, t in u.variants.items()}
        if by_lang.get("en") and by_lang.get("de"):
            pairs.append((by_lang["en"], by_lang["de"]))
    src = [s for s, _ in pairs[:12]]
    tgt = [t for _, t in pairs[:12]]
    del tgt[5]  # a sentence the translator left out: its source is linked to nothing
    (work / "guide-en.txt").write_text("\n\n".join(" ".join(src[i:i + 3]) for i in range(0, len(src), 3)),
                                       encoding="utf-8")
    (work / "guide-de.txt").write_text("\n\n".join(" ".join(tgt[i:i + 3]) for i in range(0, len(tgt), 3)),
                                       encoding="utf-8")
    dlg = win.aligning.align_documents_dialog()
    dlg.src_path.setText(str(work / "guide-en.txt"))
    dlg.tgt_path.setText(str(work / "guide-de.txt"))
    dlg.use_model.setChecked(False)
    dlg.start_align()
    wait(app, lambda: dlg.review.alignment is not None and not dlg.busy(), 120)
    pump(app, 0.4)
    save(dlg, "dialog-align-documents.png")
    dlg.close()


def shoot_package(app, win, work: Path, save) -> None:
    """File ▸ Open Package…: a Trados project package (built as the package tests build one) opened
    as a project, and what the package says shown once.  Opens another project in ``win``."""
    sys.path.insert(0, str(ROOT / "tests" / "packages"))
    from trados import write_sdlppx

    sdlxliff = (
        '<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" '
        'version="1.2" sdl:version="1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="manual.docx" '
        'source-language="en-US" datatype="x-sdlfilterframework2" target-language="de-DE"><body>\n'
        + "".join(f'<trans-unit id="u{i}"><source>{s}</source><seg-source><mrk mtype="seg" mid="{i}">{s}</mrk>'
                  f'</seg-source><target><mrk mtype="seg" mid="{i}"/></target><sdl:seg-defs><sdl:seg id="{i}" '
                  'origin="not-translated"/></sdl:seg-defs></trans-unit>\n'
                  for i, s in enumerate(["Open the album in a new window.", "Select all photos.",
                                         "The photo viewer shows one photo at a time."], 1))
        + "</body></file></xliff>")
    pkg = write_sdlppx(work / "Acme manuals.sdlppx", "en-US", {"de-DE": {"manual.docx.sdlxliff":
                                                                         sdlxliff.encode("utf-8")}})
    win.packages.dialog = None
    win.packages.open_package(pkg, work / "Acme manuals")
    wait(app, lambda: getattr(win.packages, "dialog", None) is not None, 120)
    pump(app, 0.4)
    save(win.packages.dialog, "dialog-open-package.png")
    win.packages.dialog.close()


def shoot_ghost(app, win, out: Path, save, saved: list[str]) -> None:
    """The engine's completion of a half-typed word, grey after the cursor in the target box."""
    from PySide6.QtGui import QInputMethodEvent
    from PySide6.QtWidgets import QApplication

    text = win.suggestion.current.text if win.suggestion.current is not None else ""
    words = text.split()
    if len(words) < 3:
        print("(no suggestion to type along: no ghost-text shot)", file=sys.stderr, flush=True)
        return
    typed = words[0] + " " + words[1][:max(1, len(words[1]) // 2)]
    ed = win.editor()
    ed.setFocus()
    ed.selectAll()
    ed.textCursor().removeSelectedText()
    typing = QInputMethodEvent()  # as an input method types (QTest's keys are ASCII only)
    typing.setCommitString(typed)
    QApplication.sendEvent(ed, typing)
    if not wait(app, lambda: ed.ghost_shown() != "", 60):
        return
    pump(app, 0.3)
    if capture_screen(out / "main-window-ghost.png"):
        saved.append("main-window-ghost.png")
    else:
        save(win, "main-window-ghost.png")
    ed.selectAll()
    ed.textCursor().removeSelectedText()
    pump(app, 0.2)


def shoot_omission(app, win, save) -> None:
    """The suggestion panel's red line on the first segment whose suggestion may leave a source word out."""
    for row in range(win.model.rowCount()):
        win.nav.go_to(row)
        wait(app, lambda: win.shown_for.get("suggestion") == row, 60)
        pump(app, 0.1)
        if not win.suggestion.omissions.isHidden():
            save(win.dock_suggestion, "panel-suggestion-omission.png")
            return
    print("(no suggestion marked as leaving words out: no omission shot)", file=sys.stderr, flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    ap.add_argument("--model", default=os.environ.get("VERSO_MODEL", ""))
    ap.add_argument("--no-xvfb", action="store_true", help="use the current $DISPLAY")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    xvfb = None
    if not a.no_xvfb:
        xvfb, display = start_xvfb()
        os.environ["DISPLAY"] = display
        os.environ["QT_QPA_PLATFORM"] = "xcb"
    work = Path(tempfile.mkdtemp(prefix="verso-shots-"))
    os.environ["VERSO_HOME"] = str(work / "home")
    try:
        return shoot(out, work, a.model)
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)
        shutil.rmtree(work, ignore_errors=True)


def shoot(out: Path, work: Path, model: str) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(["verso"])
    QSettings.setDefaultFormat(QSettings.IniFormat)
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(work / "settings"))

    from app.main_window import MainWindow, settings
    from engine.resources import default_model_dir
    from engine.demo import ensure_demo_project
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.inline import protect
    from engine.store import Project

    from PySide6.QtWidgets import QMessageBox

    settings().setValue("nmt/threads", 1)
    settings().setValue("user/name", "Tom Translator")  # who signs the history (the reviewer signs below)
    # The script answers the questions a translator would (confirm an inserted match as it is).
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.Yes)
    saved: list[str] = []

    def save(widget, name: str) -> None:
        p = out / name
        widget.grab().save(str(p))
        saved.append(p.name)
        print(f"saved {p}", file=sys.stderr, flush=True)

    # -- the demo project: grid, TM matches, concordance, statistics, QA, import
    demo = ensure_demo_project(work / "demo")
    model_dir = Path(model) if model else default_model_dir(None)
    corpus = None
    toy_sentences: list[str] = []
    if model_dir is None:
        model_dir, toy_sentences, corpus = tiny_model(work / "tiny")
    with Project.open(demo) as p:
        p.set_setting("model", str(model_dir))
    # A toy model's "German" for the demo's real English would only confuse: show
    # the demo's TM work without it, and the model on its own corpus further down.
    win = MainWindow(Project.open(demo), nmt=not toy_sentences)
    win.resize(1400, 860)
    win.move(20, 20)
    win.show()
    wait(app, lambda: win.shown_for.get("matches") == 0)
    win.nav.go_to(1)
    wait(app, lambda: win.shown_for.get("matches") == 1)
    win.memory.insert_match(0)
    win.editing.confirm_and_next()
    wait(app, lambda: win.shown_for.get("matches") == win.current_row())
    win.nav.go_to(4)
    wait(app, lambda: win.shown_for.get("matches") == 4)
    if not toy_sentences:
        wait(app, lambda: win.shown_for.get("suggestion") == 4, 30)
    win.comments.add("Client: the product name stays in English here.")  # the # cell's corner mark
    win.nav.go_to(1)
    win.editing.locking.toggle_lock()  # the Status column's lock
    win.nav.go_to(4)
    wait(app, lambda: win.shown_for.get("matches") == 4)
    pump(app, 0.5)
    if not capture_screen(out / "main-window.png"):
        save(win, "main-window.png")
    else:
        saved.append("main-window.png")
    save(win.dock_matches, "panel-tm-matches.png")
    win.dock_comments.raise_()
    pump(app, 0.3)
    save(win.dock_comments, "panel-comments.png")
    win.dock_alignment.raise_()
    win.memory.open_concordance()
    win.concordance.search("album")
    wait(app, lambda: bool(win.concordance.hits))
    pump(app, 0.3)
    save(win.dock_concordance, "panel-concordance.png")

    win.search.open_find(True)
    win.findbar.find_edit.setText("album")
    win.findbar.replace_edit.setText("Fotoalbum")
    pump(app, 0.3)
    save(win.centralWidget(), "find-replace.png")
    from app.dialogs.replace import ReplacePreviewDialog

    win.findbar.find_edit.setText("Bildbetrachter")  # in the confirmed target of segment 2
    win.findbar.replace_edit.setText("Fotobetrachter")
    dlg = ReplacePreviewDialog(win, [(r, win.model.segment(r), new) for r, new in win.search.replace_plan()])
    dlg.show()
    pump(app, 0.3)
    save(dlg, "dialog-replace-all.png")
    dlg.close()
    win.findbar._close()

    dlg = win.help.shortcuts_dialog()
    pump(app, 0.2)
    save(dlg, "dialog-shortcuts.png")
    dlg.close()

    dlg = win.delivery.statistics_dialog()
    wait(app, lambda: bool(dlg.analyses))
    pump(app, 0.2)
    save(dlg, "dialog-statistics.png")
    dlg.close()

    # QA: a confirmed segment with a tag missing
    row = next(r for r in range(win.model.rowCount()) if win.model.segment(r).source.tag_count)
    seg = win.model.segment(row)
    win.model.set_target(row, seg.source.text[:-2] + ".", status="draft")
    dlg = win.delivery.qa_dialog()
    pump(app, 0.2)
    save(dlg, "dialog-qa.png")
    dlg.close()

    dlg = win.memory.tm_editor_dialog()
    dlg.search.setText("Bild")
    wait(app, lambda: bool(dlg.model.entries) and all("Bild" in e.target.text for e in dlg.model.entries))
    dlg.table.setFocus()
    dlg.table.selectRow(1)
    pump(app, 0.2)
    save(dlg, "dialog-tm-editor.png")
    dlg.close()

    dlg = win.pretranslation.pretranslate_dialog()
    pump(app, 0.3)
    save(dlg, "dialog-pretranslate.png")
    dlg.close()

    terms = work / "client-terms.csv"
    terms.write_text("en,de,note\nalbum,Album,\nphoto viewer,Bildbetrachter,product name\nslideshow,Diashow,\n",
                     encoding="utf-8")
    dlg = win.glossaries.import_glossary_dialog(terms)
    wait(app, lambda: dlg.report is not None)
    pump(app, 0.3)
    save(dlg, "dialog-import-glossary.png")
    dlg.close()

    tmx = work / "client-memory.tmx"
    tmx.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en-GB" datatype="plaintext" '
        'segtype="sentence" adminlang="en" creationtool="x" creationtoolversion="1" o-tmf="x"/><body>\n'
        '<tu><tuv xml:lang="en-GB"><seg>Open the album in a new window.</seg></tuv>'
        '<tuv xml:lang="de-DE"><seg>Öffnen Sie das Album in einem neuen Fenster.</seg></tuv></tu>\n'
        '<tu><tuv xml:lang="en-GB"><seg>This unit lost its translation.</seg></tuv></tu>\n'
        '<tu><tuv xml:lang="en-GB"><seg>Select all photos.</seg></tuv>'
        '<tuv xml:lang="de-DE"><seg>Wählen Sie alle Fotos aus.</seg></tuv></tu>\n</body></tmx>\n', encoding="utf-8")
    dlg = win.memory.import_tm_dialog()
    dlg.src.setEditText("en-GB")
    dlg.tgt.setEditText("de-DE")
    dlg.set_file(tmx)
    wait(app, lambda: dlg.report is not None)
    pump(app, 0.2)
    save(dlg, "dialog-import-tmx.png")
    dlg.close()
    shoot_review(app, win, save)
    shoot_align(app, win, work, save)
    shoot_package(app, win, work, save)
    win.close()

    # -- suggestion and alignment on text the model knows
    if toy_sentences:
        folder = work / "toy-project"
        original = work / "toy.txt"
        original.write_text("\n\n".join(toy_sentences), encoding="utf-8")
        with Project.create(folder, src_lang="en", tgt_lang="de", name="Toy corpus (tiny model)") as p:
            p.import_parsed(ParsedDocument("toy.txt", "txt", "en", "de",
                                           [ParsedSegment(f"k{i}", protect(s)) for i, s in enumerate(toy_sentences)]),
                            original)
            p.set_setting("model", str(model_dir))
        shown = folder
    else:
        shown = demo
    win = MainWindow(Project.open(shown))
    win.resize(1400, 860)
    win.move(20, 20)
    win.show()
    wait(app, lambda: win.shown_for.get("suggestion") == win.current_row(), 60)
    if not toy_sentences:  # a real model: show a segment whose TM match the memory reads (copied words shaded)
        for row in range(win.model.rowCount()):
            win.nav.go_to(row)
            wait(app, lambda: win.shown_for.get("matches") == row, 10)
            if any(m.score >= 0.5 for m in win.matches.matches):
                wait(app, lambda: win.shown_for.get("suggestion") == row, 60)
                break
    pump(app, 0.3)
    if capture_screen(out / "main-window-suggestion.png"):
        saved.append("main-window-suggestion.png")
    save(win.dock_suggestion, "panel-suggestion.png")
    save(win.dock_alignment, "panel-alignment.png")
    r0 = win.current_row()  # the forced-decoding view of the suggestion taken as the translation
    win.machine.insert_suggestion()
    ed = win.editor()
    if ed is not None:
        ed.moveCursor(ed.textCursor().MoveOperation.End)
    win.nav.commit_editor()
    win.nav.step(+1)
    wait(app, lambda: win.shown_for.get("suggestion") == r0 + 1, 60)
    win.nav.step(-1)
    wait(app, lambda: win.shown_for.get("forced") == r0, 60)
    win.alignment.show_forced()
    pump(app, 0.3)
    save(win.dock_alignment, "panel-alignment-forced.png")
    if not toy_sentences:
        win.nav.step(+1)
        wait(app, lambda: win.shown_for.get("suggestion") == win.current_row(), 60)
        shoot_ghost(app, win, out, save, saved)
        shoot_omission(app, win, save)

    # -- train a model: a short run to the end on the synthetic corpus (or the demo TM), then the model list
    dlg = win.machine.training_dialog()
    dlg.resize(760, 680)
    dlg.show()
    dlg.new_model.setChecked(True)
    if corpus is None:  # the synthetic corpus of the NMT tests: a few hundred pairs train in a minute
        sys.path.insert(0, str(ROOT / "tests" / "nmt"))
        from toydata import write_corpus

        corpus = write_corpus(work / "corpus", n_train=400, n_dev=40)
    if corpus is not None:
        csv = work / "mine.csv"
        src = corpus["train_en"].read_text(encoding="utf-8").splitlines()
        tgt = corpus["train_de"].read_text(encoding="utf-8").splitlines()
        csv.write_text("en,de\n" + "".join(f'"{s}","{t}"\n' for s, t in zip(src, tgt)), encoding="utf-8")
        dlg.add_file(csv)
    dlg.minutes.setValue(0)
    dlg.max_steps = 150
    dlg.start_run()
    wait(app, lambda: dlg.final is not None and not dlg.run.running(), 600)
    pump(app, 0.3)
    save(dlg, "dialog-train.png")
    dlg.close()
    dlg = win.machine.models_dialog()
    dlg.resize(1000, 360)
    dlg.show()
    pump(app, 0.3)
    save(dlg, "dialog-models.png")
    dlg.close()
    win.close()
    print("\n".join(f"{out / n}" for n in saved))
    return 0


if __name__ == "__main__":
    sys.exit(main())
