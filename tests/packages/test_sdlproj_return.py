"""The project file of a Trados return package: per returned file, its task file completed and its
confirmation statistics recounted; the task completed once all its files are; nothing else changed."""
from __future__ import annotations

import json
import re
import sys
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from lxml import etree

from datafiles import ROOT
from engine.cli import main
from engine.packages import trados_return
from engine.packages.trados import read_sdlproj
from engine.formats.package import Package
from engine.store import Project

sys.path.insert(0, str(Path(__file__).parent))
from trados import LEVELS, confirmation_stats, without_return_marks, write_sdlppx  # noqa: E402

SEGMENTED = (ROOT / "tests" / "formats" / "fixtures" / "xliff-bytes" / "segmented.sdlxliff").read_bytes()
PROJ = "Acme manuals.sdlproj"


def _run(capsys, *args) -> tuple[int, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, err


def _open_and_confirm(tmp_path, capsys, files: dict[str, bytes], confirm: str) -> tuple[bytes, bytes]:
    """Open a de-DE package of ``files``, confirm every segment of the member ``confirm``, return it:
    (received .sdlproj, returned .sdlproj)."""
    pkg = write_sdlppx(tmp_path / "Acme.sdlppx", "en-US", {"de-DE": files})
    assert _run(capsys, "package", "open", str(pkg), "--project", str(tmp_path / "P"))[0] == 0
    with Project.open(tmp_path / "P") as p:
        doc = next(d for d in p.documents() if d.name == f"de-DE/{confirm}")
        for seg in p.segments(doc.id):
            p.confirm(seg.id, seg.source.with_text(seg.source.text.replace(".", "!")))
    rc, err = _run(capsys, "package", "return", str(tmp_path / "P"), "--out", str(tmp_path / "r.sdlrpx"))
    assert rc == 0, err
    with zipfile.ZipFile(tmp_path / "r.sdlrpx") as z, zipfile.ZipFile(pkg) as rec:
        return rec.read(PROJ), z.read(PROJ)


def _stats(el) -> dict[str, dict[str, int]]:
    cs = el.find("ConfirmationStatistics")
    return {lv: {k: int(v) for k, v in cs.find(lv).attrib.items()} for lv in LEVELS if cs.find(lv) is not None}


def _total(stats, name) -> int:
    return sum(row[name] for row in stats.values())


def test_returned_file_is_completed_and_its_statistics_recounted_the_rest_untouched(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("VERSO_USER", "Ana Translator")
    before, after = _open_and_confirm(tmp_path, capsys, {"a.sdlxliff": SEGMENTED, "b.sdlxliff": SEGMENTED}, "a.sdlxliff")
    assert without_return_marks(after) == without_return_marks(before)       # nothing else changed
    old, new = etree.fromstring(before), etree.fromstring(after)
    assert new.get("PackageType") == "ReturnPackage" and new.get("PackageCreatedBy") == "Ana Translator"
    assert datetime.strptime(new.get("PackageCreatedAt")[:19], "%Y-%m-%dT%H:%M:%S") > datetime(2026, 11, 20, 8)
    files = {lf.get("Guid"): lf for lf in new.iter("LanguageFile")}
    old_files = {lf.get("Guid"): lf for lf in old.iter("LanguageFile")}
    a, b = _stats(files["lf-de-DE-0"]), _stats(files["lf-de-DE-1"])
    a_before = _stats(old_files["lf-de-DE-0"])
    assert a["Translated"]["Segments"] == 3 and a["Draft"]["Segments"] == a["Unspecified"]["Segments"] == 0
    assert (a_before["Translated"]["Segments"], a_before["Draft"]["Segments"], a_before["Unspecified"]["Segments"]) \
        == (1, 1, 1)
    for name in ("Words", "Characters", "Placeables", "Tags"):             # Trados' totals kept, now all Translated
        assert _total(a, name) == _total(a_before, name) == a["Translated"][name]
    assert b == _stats(old_files["lf-de-DE-1"])                              # the untouched file's are as received
    direction = _stats(next(new.iter("LanguageDirection")))
    assert direction == {lv: {k: a[lv][k] + b[lv][k] for k in a[lv]} for lv in LEVELS}
    tasks = {tf.get("LanguageFileGuid"): tf.get("Completed") for tf in new.iter("TaskFile")}
    assert tasks == {"lf-de-DE-0": "true", "lf-de-DE-1": "false"}
    task = next(new.iter("ManualTask"))                                      # one of its files is still to do
    assert (task.get("Status"), task.get("PercentComplete"), task.get("CompletedAt")) == ("Created", "0", None)


def test_task_is_completed_once_all_its_files_of_the_target_are_returned(tmp_path, capsys):
    _, after = _open_and_confirm(tmp_path, capsys, {"a.sdlxliff": SEGMENTED}, "a.sdlxliff")
    task = next(etree.fromstring(after).iter("ManualTask"))
    assert (task.get("Status"), task.get("PercentComplete")) == ("Completed", "100")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z", task.get("CompletedAt"))
    assert [tf.get("Completed") for tf in task.iter("TaskFile")] == ["true"]


def test_a_confirmation_level_the_file_had_none_of_is_added_in_trados_order(tmp_path):
    pkg = write_sdlppx(tmp_path / "Acme.sdlppx", "en-US", {"de-DE": {"a.sdlxliff": SEGMENTED}})
    package = Package(pkg)
    proj = read_sdlproj(package)
    data = package.read(PROJ).decode("utf-8-sig")
    lf = re.search(r'<LanguageFile Guid="lf-de-DE-0".*?</LanguageFile>', data, re.S)
    no_approved = lf.group(0).replace('<ApprovedTranslation Words="0" Characters="0" Segments="0" Placeables="0" '
                                      'Tags="0" />', "")
    assert no_approved != lf.group(0)
    data = data[:lf.start()] + no_approved + data[lf.end():]
    approved = SEGMENTED.replace(b'conf="Translated"', b'conf="ApprovedTranslation"')
    out = trados_return.return_sdlproj(data.encode("utf-8"), proj, "de-DE", {"de-DE/a.sdlxliff": approved})
    lf = next(el for el in etree.fromstring(out).iter("LanguageFile") if el.get("Guid") == "lf-de-DE-0")
    stats = lf.find("ConfirmationStatistics")
    assert [el.tag for el in stats] == list(LEVELS)
    assert stats.find("ApprovedTranslation").get("Segments") == "1"
    assert int(stats.find("ApprovedTranslation").get("Words")) + int(stats.find("Draft").get("Words")) \
        + int(stats.find("Unspecified").get("Words")) == _total(confirmation_stats(SEGMENTED), "Words")


@pytest.mark.parametrize("total, weights, parts", [(10, {"a": 1, "b": 1, "c": 1}, {"a": 4, "b": 3, "c": 3}),
                                                   (7, {"a": 0, "b": 5}, {"a": 0, "b": 7}),
                                                   (5, {"a": 0, "b": 0}, {"a": 0, "b": 0})])
def test_a_count_is_shared_out_without_losing_or_inventing_units(total, weights, parts):
    assert trados_return._share(total, weights) == parts


def test_the_command_line_result_names_what_went_back(tmp_path, capsys):
    pkg = write_sdlppx(tmp_path / "Acme.sdlppx", "en-US", {"de-DE": {"a.sdlxliff": SEGMENTED}})
    assert _run(capsys, "package", "open", str(pkg), "--project", str(tmp_path / "P"))[0] == 0
    with Project.open(tmp_path / "P") as p:
        seg = p.segments(p.documents()[0].id)[2]
        p.confirm(seg.id, "Drei.")
    rc = main(["package", "return", str(tmp_path / "P"), "--out", str(tmp_path / "r.sdlrpx")])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["files"] == ["de-DE/a.sdlxliff"] and out["kind"] == ".sdlrpx"
