"""A received project refers to no glossary and no shared-TM server outside itself unless its user
confirms it: a glossary folder it lists outside its folder is left out (refused by the command line
in one line naming the project file and the entry); a ``postgresql://`` server is confirmed once
per address, for every project that names it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine.glossary import Glossary
from engine.glossary.model import GlossaryEntry
from engine.store import Project, trusted
from engine.store.trusted import Unconfirmed
from engine.tm.open import OutsideProject, project_tms


@pytest.fixture(autouse=True)
def _own_trust_record(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_TRUST_FILE", str(tmp_path / "home" / "trusted.json"))


def _cli(*args):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True,
                          timeout=180, env=env)


def _received(tmp_path, listed: str):
    """Client B's project as received, listing ``listed`` as a glossary; client A's glossary beside it."""
    with Glossary(tmp_path / "clients" / "glossA", create=True) as g:
        g.add(GlossaryEntry("secret plan", ("Geheimplan",), "en", "de"))
    src = tmp_path / "doc.txt"
    src.write_text("The secret plan of client A.\n", "utf-8")
    folder = tmp_path / "clients" / "b" / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        p.set_setting("glossaries", json.dumps([{"path": listed, "writable": False}]))
    return folder


def _terms(folder) -> int:
    with Project(folder) as p:
        index = p.term_index()
        return len(index) if index is not None else 0


@pytest.mark.parametrize("listed", ["../../glossA", "ABS"])
def test_a_glossary_the_received_project_lists_outside_itself_is_left_out(tmp_path, listed):
    listed = str(tmp_path / "clients" / "glossA") if listed == "ABS" else listed
    folder = _received(tmp_path, listed)
    assert _terms(folder) == 0
    with Project(folder) as p, pytest.raises(Unconfirmed) as e:
        p.glossary_refs(outside="refuse")
    msg = str(e.value)
    assert "\n" not in msg and "project.verso" in msg and "glossA" in msg and "'glossaries'" in msg


def test_qa_refuses_the_outside_glossary_in_one_line_unless_trusted(tmp_path):
    folder = _received(tmp_path, "../../glossA")
    r = _cli("qa", "--project", str(folder))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "glossA" in r.stderr and "--trust-project-glossaries" in r.stderr
    r = _cli("qa", "--project", str(folder), "--trust-project-glossaries")
    assert "Traceback" not in r.stderr and "confirmed by no one" not in r.stderr


def test_a_glossary_the_user_confirmed_or_added_is_read(tmp_path):
    folder = _received(tmp_path, "../../glossA")
    trusted.confirm(folder, [tmp_path / "clients" / "glossA"])
    assert _terms(folder) == 1
    other = tmp_path / "mine" / "p"
    with Project.create(other, src_lang="en", tgt_lang="de") as p:
        p.add_glossary_ref(tmp_path / "clients" / "glossA")      # the user's own addition
    assert _terms(other) == 1


def test_a_shared_tm_server_is_refused_until_confirmed_once_for_every_project_naming_it(tmp_path):
    def project(name, url):
        folder = tmp_path / name
        with Project.create(folder, src_lang="en", tgt_lang="de") as p:
            p.set_setting("tms", json.dumps([{"path": url, "writable": True}]))
        return folder

    a = project("a", "postgresql://verso:s3cret@DB.example.org:5432/team?tm=client_a")
    b = project("b", "postgresql://verso@db.example.org/team?tm=client_b")   # the same server
    c = project("c", "postgresql://db.example.org:5433/team?tm=client_a")    # another server
    with Project(a) as p:
        with pytest.raises(OutsideProject) as e:
            project_tms(p)
        assert "db.example.org" in str(e.value.args[0]).lower() and "s3cret" not in str(e.value)
        assert project_tms(p, outside="skip") == []
        trusted.confirm_servers([str(e.value.entries[0].ref)])   # the editor's "yes", once
        assert [t.name for t in project_tms(p)] == ["client_a"]
    with Project(b) as p:
        assert [t.name for t in project_tms(p)] == ["client_b"]
    with Project(c) as p, pytest.raises(OutsideProject):
        project_tms(p)
    assert "s3cret" not in (tmp_path / "home" / "trusted.json").read_text()


def test_a_server_the_user_adds_needs_no_confirmation(tmp_path):
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.add_tm_ref("postgresql://db.example.org/team?tm=mine", writable=True)
        assert [t.name for t in project_tms(p)] == ["mine"]
