"""Packaging (issue 29), the fast part: what the spec collects, the desktop entry,
the MIME types, the .deb metadata and the bundle's launcher logic -- no build.

The build itself (packaging/build.sh) and its smoke test (packaging/smoke.sh)
run by hand; their results are in benchmarks/RESULTS.md.
"""
from __future__ import annotations

import ast
import configparser
import importlib.util
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import app.launcher as launcher

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "packaging"


def _config():
    spec = importlib.util.spec_from_file_location("bundle_config", PKG / "bundle_config.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cfg = _config()


def test_every_bundled_data_path_exists_and_holds_the_demo():
    for src, dest in cfg.DATA:
        assert (ROOT / src).exists(), src
        assert dest.startswith(("resources", "engine/segmentation")), dest  # the default SRX rules beside their module
    dests = {dest for _, dest in cfg.DATA}
    assert {"resources/demo", "resources/models/demo"} <= dests
    assert (ROOT / "resources/models/demo/manifest.json").is_file()


def test_resources_land_where_engine_resources_looks_in_a_bundle():
    # engine/resources.py: parents[1] of engine/resources.py, i.e. the bundle's root
    # (sys._MEIPASS) holds resources/.
    src = (ROOT / "engine" / "resources.py").read_text()
    assert 'parents[1] / "resources"' in src
    for src_path, dest in cfg.DATA:
        assert dest == str(Path(src_path).parent if Path(src_path).is_file() or src_path.endswith(".md")
                           else src_path)


def test_drop_patterns_keep_what_verso_needs():
    keep = ["torch/lib/libtorch_cpu.so", "torch/lib/libc10.so", "PySide6/Qt/plugins/platforms/libqxcb.so",
            "PySide6/Qt/plugins/platforms/libqoffscreen.so", "PySide6/Qt/plugins/platforms/libqwayland.so",
            "PySide6/Qt/lib/libQt6Widgets.so.6", "PySide6/Qt/lib/libQt6XcbQpa.so.6",
            "PySide6/Qt/plugins/xcbglintegrations/libqxcb-glx-integration.so",
            "torch/bin/torch_shm_manager", "resources/models/demo/model.safetensors", "sentencepiece/_sentencepiece.cpython-311-x86_64-linux-gnu.so"]
    for path in keep:
        assert not cfg.dropped(path), path
    for name in cfg.QT_PLATFORM_PLUGINS:
        assert not cfg.dropped(f"PySide6/Qt/plugins/platforms/{name}")
    drop = ["torch/include/ATen/ATen.h", "torch/test/test_api", "torch/bin/protoc",
            "torch/lib/libtorchbind_test.so", "PySide6/Qt/translations/qtbase_de.qm", "torch/bin/test_jit",
            "PySide6/Qt/qml/QtQuick/qmldir", "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
            "PySide6/Qt/lib/libQt6Quick.so.6"]
    for path in drop:
        assert cfg.dropped(path), path


def test_excluded_modules_are_not_imported_by_verso():
    imported = set()
    for py in list((ROOT / "engine").rglob("*.py")) + list((ROOT / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module)
    for name in cfg.EXCLUDE_MODULES:
        clash = {m for m in imported if m == name or m.startswith(name + ".")}
        assert not clash, f"{name} is excluded from the bundle but imported: {clash}"


def test_spec_reads_the_shared_config_and_targets_three_platforms():
    spec = (PKG / "verso.spec").read_text()
    ast.parse(spec)  # valid Python
    for needle in ("cfg.data_entries", "cfg.EXCLUDE_MODULES", "cfg.dropped", "collect_submodules",
                   "verso_main.py", "win32", "darwin", "BUNDLE("):
        assert needle in spec, needle
    entry = (PKG / "verso_main.py").read_text()
    assert "from app.launcher import main" in entry and "freeze_support" in entry


def test_desktop_entry_is_valid():
    path = PKG / "linux" / "verso.desktop"
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Name"] == "Verso"
    assert entry["Exec"].split()[0] == "verso" and "%f" in entry["Exec"]
    assert entry["Icon"] == "verso" and entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";") and entry["MimeType"].endswith(";")
    mimes = set(filter(None, entry["MimeType"].split(";")))
    assert {"application/xliff+xml", "text/x-gettext-translation", "application/x-tmx+xml"} <= mimes
    tool = subprocess.run(["which", "desktop-file-validate"], capture_output=True, text=True)
    if tool.returncode == 0:
        r = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True)
        assert r.returncode == 0 and not r.stdout.strip(), r.stdout


def test_mime_types_parse_and_cover_the_desktop_entry():
    ns = "{http://www.freedesktop.org/standards/shared-mime-info}"
    root = ET.parse(PKG / "linux" / "verso-mime.xml").getroot()
    assert root.tag == f"{ns}mime-info"
    globs = {}
    for mt in root.findall(f"{ns}mime-type"):
        globs[mt.get("type")] = {g.get("pattern") for g in mt.findall(f"{ns}glob")}
    assert {"*.xlf", "*.xliff"} <= globs["application/xliff+xml"]
    assert "*.po" in globs["text/x-gettext-translation"]
    assert "*.tmx" in globs["application/x-tmx+xml"]
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read(PKG / "linux" / "verso.desktop", encoding="utf-8")
    assert set(globs) <= set(parser["Desktop Entry"]["MimeType"].split(";"))
    # every suffix the launcher opens as a document has a MIME glob
    all_globs = set().union(*globs.values())
    for suffix in launcher.DOCUMENT_SUFFIXES:
        assert f"*{suffix}" in all_globs, suffix


def test_icons_exist_in_every_size():
    ET.parse(PKG / "icons" / "verso.svg")
    build = (PKG / "build.sh").read_text()
    for size in (16, 32, 48, 64, 128, 256):
        png = PKG / "icons" / f"verso-{size}.png"
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (w, h) == (size, size)
        assert str(size) in build


def test_deb_depends_on_the_libraries_the_launcher_names():
    deps = [line.strip() for line in (PKG / "debian-deps.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    assert sorted(deps) == sorted(launcher.XCB_LIBS.values())
    control = (PKG / "linux" / "control.in").read_text()
    assert "Depends: @DEPENDS@" in control and "Package: verso" in control
    assert "debian-deps.txt" in (PKG / "build.sh").read_text()


def test_build_script_is_valid_bash():
    for script in ("build.sh", "smoke.sh"):
        r = subprocess.run(["bash", "-n", str(PKG / script)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    smoke = (PKG / "smoke.sh").read_text()
    for needle in ("env -i", "--help", "doc import", "translate", "Xvfb", "dpkg -x"):
        assert needle in smoke


@pytest.fixture
def frozen(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    monkeypatch.setattr(launcher.sys, "platform", "linux")
    return tmp_path


def test_bundle_launcher_names_missing_libraries(frozen, monkeypatch):
    monkeypatch.setattr(launcher.ctypes.util, "find_library", lambda name: None)
    (frozen / "libxcb-cursor.so.0").write_bytes(b"")  # the bundle carries this one
    msg = launcher.display_problem({"DISPLAY": ":0"})
    assert "sudo apt-get install" in msg and "libegl1" in msg and "libgl1" in msg
    assert "libxcb-cursor0" not in msg  # bundled: not missing


def test_bundle_launcher_is_quiet_when_everything_is_there(frozen, monkeypatch):
    monkeypatch.setattr(launcher.ctypes.util, "find_library", lambda name: f"lib{name}.so")
    assert launcher.display_problem({"DISPLAY": ":0"}) is None


def test_not_frozen_ignores_bundle_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    monkeypatch.delattr(sys, "frozen", raising=False)
    (tmp_path / "libGL.so.1").write_bytes(b"")
    assert launcher.bundled_library("GL") is False


def test_double_clicked_file_in_a_project_opens_that_project(tmp_path):
    (tmp_path / "project.verso").write_text("{}")
    doc = tmp_path / "source" / "guide.xlf"
    doc.parent.mkdir()
    doc.write_text("<xliff/>")
    assert launcher.project_for_file(doc) == tmp_path


def test_double_clicked_tmx_outside_a_project_opens_the_editor(tmp_path, capsys):
    tmx = tmp_path / "memory.tmx"
    tmx.write_text("<tmx/>")
    assert launcher.project_for_file(tmx) is None
    assert "tm import" in capsys.readouterr().err


def test_double_clicked_po_is_imported_into_a_project(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "home"))
    po = tmp_path / "de.po"
    po.write_text('msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  'msgid "Open the file."\nmsgstr ""\n', encoding="utf-8")
    folder = launcher.project_for_file(po)
    assert folder.parent == tmp_path / "home" / "projects" and (folder / "project.verso").is_file()
    assert launcher.project_for_file(po) == folder  # the second double-click opens, not re-imports


def test_startup_probe_is_inert_without_its_variable(monkeypatch):
    monkeypatch.delenv("VERSO_STARTUP_PROBE", raising=False)
    import app.main

    before = app.main.run_editor
    code = (PKG / "rthook_startup_probe.py").read_text()
    exec(compile(code, "rthook_startup_probe.py", "exec"), {})
    assert app.main.run_editor is before


def test_document_languages_from_xliff_and_po(tmp_path):
    x = tmp_path / "a.xlf"
    x.write_text('<xliff version="1.2"><file source-language="en-US" target-language="fr-FR"/></xliff>')
    assert launcher.document_languages(x) == ("en-US", "fr-FR")
    x2 = tmp_path / "b.xliff"
    x2.write_text('<xliff version="2.0" srcLang="en" trgLang="de"/>')
    assert launcher.document_languages(x2) == ("en", "de")
    nolang = tmp_path / "c.xlf"
    nolang.write_text("<xliff/>")
    assert launcher.document_languages(nolang) is None
    assert launcher.project_for_file(nolang) is None


def test_only_document_files_open_the_editor(tmp_path, monkeypatch):
    # a double-clicked XLIFF goes to the editor; any other single file still goes to the command line
    seen = {}
    monkeypatch.setattr(launcher, "display_problem", lambda env=None: "no display (test)")
    xlf = tmp_path / "a.xlf"
    xlf.write_text("<xliff/>")
    assert launcher.main([str(xlf)]) == 1  # the editor path: refused for want of a display
    txt = tmp_path / "notes.txt"
    txt.write_text("x")
    monkeypatch.setattr("engine.cli.main", lambda argv: seen.setdefault("cli", argv) and 2)
    assert launcher.main([str(txt)]) == 2 and seen["cli"] == [str(txt)]
