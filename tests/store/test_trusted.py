"""The trust file: the user's confirmations of folders outside a project and of shared-TM
servers, all kept in one file that every confirmation reads, changes and writes back."""
from __future__ import annotations

import json
import threading

from engine.store import trusted


def test_confirming_a_folder_and_a_server_keeps_both(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_TRUST_FILE", str(tmp_path / "trusted.json"))
    project, tm = tmp_path / "proj", tmp_path / "shared" / "tmA"
    project.mkdir()
    tm.mkdir(parents=True)
    trusted.confirm(project, [tm])
    trusted.confirm_servers(["postgresql://ann:pw@DB.example:5432/verso?tm=x"])
    trusted.confirm(project, [tm, tmp_path / "other"])
    assert trusted.confirmed(project, tm) and trusted.confirmed(project, tmp_path / "other")
    assert trusted.server_confirmed("postgresql://bob@db.example/verso?tm=y")
    assert not trusted.server_confirmed("postgresql://db.example:5433/verso")
    data = json.loads((tmp_path / "trusted.json").read_text("utf-8"))
    assert data[trusted.SERVERS] == ["postgresql://db.example:5432/verso"]
    assert data[str(project.resolve())] == [str(tm.resolve()), str((tmp_path / "other").resolve())]


def test_a_folder_inside_the_project_is_never_written_to_the_trust_file(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_TRUST_FILE", str(tmp_path / "trusted.json"))
    (tmp_path / "proj" / "tms").mkdir(parents=True)
    trusted.confirm(tmp_path / "proj", [tmp_path / "proj" / "tms"])
    assert not (tmp_path / "trusted.json").exists()
    assert trusted.confirmed(tmp_path / "proj", tmp_path / "proj" / "tms")


def test_confirmations_made_at_once_from_several_threads_are_all_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_TRUST_FILE", str(tmp_path / "trusted.json"))
    project = tmp_path / "proj"
    project.mkdir()
    folders = [tmp_path / f"tm{i}" for i in range(12)]
    servers = [f"postgresql://db{i}.example/verso" for i in range(12)]
    jobs = [threading.Thread(target=trusted.confirm, args=(project, [f])) for f in folders]
    jobs += [threading.Thread(target=trusted.confirm_servers, args=([s],)) for s in servers]
    for j in jobs:
        j.start()
    for j in jobs:
        j.join()
    assert all(trusted.confirmed(project, f) for f in folders)
    assert all(trusted.server_confirmed(s) for s in servers)
