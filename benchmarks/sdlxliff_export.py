"""SDLXLIFF read and export speed (XLIFF 1.x reader/writer: engine/formats/xliff12*.py).

    .venv/bin/python -m benchmarks.sdlxliff_export [--units 5000] [--repeat 3] [--spaced] [--tree /work/base951]

The file: ``--units`` trans-units of two segments each, every target an MT or TM proposal
(``sdl:seg origin="mt"`` / ``origin="tm" percent="..."``).  Printed (JSON): seconds to read it, to
export it untouched, with every segment edited (each becomes ``origin="interactive"`` with its
``sdl:prev-origin``) and with every segment confirmed unchanged (``--spaced``: its empty elements
written ``<x />``, as Trados Studio writes them, which lxml does not: each edited unit is then
spliced element by element rather than serialised whole), the best of ``--repeat``, in wall
time (``*_s``) and in this process's CPU time (``*_cpu_s``: steadier than wall time on a machine
shared with other work); with ``--tree`` the same on another checkout, interleaved
(:mod:`benchmarks.compare`).
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from benchmarks import compare


def make(path: Path, units: int, spaced: bool = False) -> None:
    out = ['<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" '
           'version="1.2" sdl:version="1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a.docx" '
           'source-language="en-US" datatype="x-sdlfilterframework2" target-language="de-DE"><header/><body>\n']
    for i in range(units):
        a, b = 2 * i + 1, 2 * i + 2
        out.append(
            f'<trans-unit id="u{i}"><source><g id="1">Open file {i}.</g> Save it.</source><seg-source><g id="1">'
            f'<mrk mtype="seg" mid="{a}">Open file {i}.</mrk></g> <mrk mtype="seg" mid="{b}">Save it.</mrk>'
            f'</seg-source><target><g id="1"><mrk mtype="seg" mid="{a}">Datei {i} öffnen.</mrk></g> '
            f'<mrk mtype="seg" mid="{b}">Speichern.</mrk></target><sdl:seg-defs>'
            f'<sdl:seg id="{a}" conf="Draft" origin="mt" origin-system="Engine"/>'
            f'<sdl:seg id="{b}" conf="Draft" origin="tm" origin-system="Main" percent="{80 + i % 20}">'
            f'<sdl:value key="SDL:OriginalTranslationHash">{i}</sdl:value></sdl:seg></sdl:seg-defs></trans-unit>\n')
    out.append("</body></file></xliff>\n")
    text = "".join(out)
    if spaced:  # empty elements as Trados Studio writes them, <x />: not as lxml serialises them
        text = text.replace('"/>', '" />')
    path.write_text(text, "utf-8")


def main() -> None:
    if compare.run_if_asked("sdlxliff_export"):
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--units", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--spaced", action="store_true", help="empty elements written <x /> (as Trados Studio does)")
    a = ap.parse_args()
    from engine.formats.base import Translation
    from engine.formats.xliff12 import FORMAT

    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "big.sdlxliff", Path(tmp) / "out.sdlxliff"
        make(src, a.units, a.spaced)
        times: dict[str, list[float]] = {}

        def timed(name: str, fn, *args):
            t, c = time.perf_counter(), time.process_time()
            out = fn(*args)
            times.setdefault(f"{name}_s", []).append(time.perf_counter() - t)
            times.setdefault(f"{name}_cpu_s", []).append(time.process_time() - c)
            return out

        for _ in range(a.repeat):
            doc = timed("read", FORMAT.read, src)
            edited = {s.key: Translation(s.target.with_text(s.target.text + " x"), "confirmed") for s in doc.segments}
            confirmed = {s.key: Translation(s.target, "confirmed") for s in doc.segments}
            for name, trs in (("export_untouched", {}), ("export_all_edited", edited),
                              ("export_all_confirmed", confirmed)):
                timed(name, FORMAT.write, src, out, trs)
    print(json.dumps({"units": a.units, "segments": len(doc.segments),
                      **{k: round(min(v), 3) for k, v in times.items()}}))


if __name__ == "__main__":
    main()
