"""LibreOffice, headless, as a second opinion on what Verso exports.

Tests that use it skip with :data:`SKIP_WHY` when ``soffice`` is not on PATH (Debian:
``apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui``).
Each call runs one ``soffice`` with a private user profile (never the user's own), under a
timeout, one at a time.  :func:`revise` runs a Basic macro in that profile: it loads the
document hidden, lists its tracked changes (type and author, as LibreOffice's Manage Changes
shows them), runs the dispatcher's ``.uno:AcceptAllTrackedChanges`` or
``.uno:RejectAllTrackedChanges`` and saves the text -- LibreOffice's own reading of the file.
"""
from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path
from xml.sax.saxutils import escape

SOFFICE = shutil.which("soffice")
SKIP_WHY = ("LibreOffice (soffice) is not on PATH: apt-get install libreoffice-writer-nogui "
            "libreoffice-calc-nogui libreoffice-impress-nogui to run these tests")
TIMEOUT = 120
_lock = threading.Lock()

_MACRO = r'''
Sub Revise(inUrl As String, outUrl As String, mode As String, listUrl As String)
    Dim args(0) As New com.sun.star.beans.PropertyValue
    args(0).Name = "Hidden" : args(0).Value = True
    doc = StarDesktop.loadComponentFromURL(inUrl, "_blank", 0, args())
    Dim s As String
    en = doc.Redlines.createEnumeration()
    Do While en.hasMoreElements()
        r = en.nextElement()
        s = s & r.RedlineType & Chr(9) & r.RedlineAuthor & Chr(10)
    Loop
    sfa = createUnoService("com.sun.star.ucb.SimpleFileAccess")
    tos = createUnoService("com.sun.star.io.TextOutputStream")
    tos.setOutputStream(sfa.openFileWrite(listUrl))
    tos.setEncoding("UTF-8")
    tos.writeString(s)
    tos.closeOutput()
    disp = createUnoService("com.sun.star.frame.DispatchHelper")
    Dim none() As New com.sun.star.beans.PropertyValue
    If mode = "accept" Then disp.executeDispatch(doc.CurrentController.Frame, ".uno:AcceptAllTrackedChanges", "", 0, none())
    If mode = "reject" Then disp.executeDispatch(doc.CurrentController.Frame, ".uno:RejectAllTrackedChanges", "", 0, none())
    Dim out(1) As New com.sun.star.beans.PropertyValue
    out(0).Name = "FilterName" : out(0).Value = "Text (encoded)"
    out(1).Name = "FilterOptions" : out(1).Value = "UTF8"
    doc.storeToURL(outUrl, out())
    doc.close(True)
    StarDesktop.terminate()
End Sub
'''


def _profile(root: Path) -> str:
    """A private profile holding the macro (made once per ``root``)."""
    prof = root / "lo-profile"
    url = prof.as_uri()
    module = prof / "user" / "basic" / "Standard" / "Module1.xba"
    if not module.exists():
        subprocess.run([SOFFICE, "--headless", "--norestore", f"-env:UserInstallation={url}",
                        "--terminate_after_init"], capture_output=True, timeout=TIMEOUT, check=False)
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD '
            'OfficeDocument 1.0//EN" "module.dtd">\n<script:module xmlns:script="http://openoffice.org/2000/script" '
            'script:name="Module1" script:language="StarBasic">'
            + escape(_MACRO, {'"': "&quot;"}) + "</script:module>\n", encoding="utf-8")
    return url


def _run(args: list[str], root: Path) -> subprocess.CompletedProcess:
    with _lock:  # one soffice at a time (2 cores; one profile)
        return subprocess.run([SOFFICE, "--headless", "--norestore", "--nologo",
                               f"-env:UserInstallation={_profile(root)}", *args],
                              capture_output=True, text=True, timeout=TIMEOUT, check=False)


def revise(doc: Path, mode: str, root: Path) -> tuple[str, list[tuple[str, str]]]:
    """(the document's text after LibreOffice's accept-all / reject-all / nothing (mode ''),
    [(change type, author)] of its tracked changes as LibreOffice read them)."""
    out, listing = root / f"{doc.stem}-{mode or 'as-is'}.txt", root / f"{doc.stem}-{mode or 'as-is'}.changes"
    for p in (out, listing):
        p.unlink(missing_ok=True)
    macro = (f'macro:///Standard.Module1.Revise("{doc.resolve().as_uri()}","{out.as_uri()}",'
             f'"{mode}","{listing.as_uri()}")')
    r = _run([macro], root)
    if not out.exists():
        raise AssertionError(f"LibreOffice wrote no text for {doc.name} ({mode}): rc {r.returncode} {r.stderr[-500:]}")
    changes = [tuple(line.split("\t", 1)) for line in listing.read_text("utf-8").splitlines() if line]
    return out.read_text("utf-8-sig"), changes


def convert(doc: Path, to: str, root: Path) -> Path:
    """``soffice --convert-to TO``: the converted file (AssertionError naming the file when none)."""
    outdir = root / "converted"
    outdir.mkdir(exist_ok=True)
    want = outdir / f"{doc.stem}.{to.split(':')[0]}"
    want.unlink(missing_ok=True)
    r = _run(["--convert-to", to, "--outdir", str(outdir), str(doc)], root)
    if not want.exists() or want.stat().st_size == 0:
        raise AssertionError(f"LibreOffice did not convert {doc.name} to {to}: rc {r.returncode} "
                             f"{(r.stdout + r.stderr)[-500:]}")
    return want
