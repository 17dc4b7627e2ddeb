"""A received project refers to nothing outside itself unless its user confirms it (issue 45,
item 2): a ``tms`` entry ``../../tmA`` or ``/abs/X`` is refused by the command line in one line
naming the project file and the entry, and never creates a TM folder outside the project."""
import json
import os
import subprocess
import sys

import pytest

from engine.store import Project, trusted
from engine.tm.memory import TranslationMemory


@pytest.fixture(autouse=True)
def _own_trust_record(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_TRUST_FILE", str(tmp_path / "home" / "trusted.json"))


def _cli(*args):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True,
                          timeout=180, env=env)


def _received(tmp_path, listed):
    """Client B's project, as received: its settings list ``listed``; client A's TM lies beside it."""
    with TranslationMemory(tmp_path / "clients" / "tmA", src_lang="en", tgt_lang="de") as tm:
        tm.add("The secret plan of client A.", "Der geheime Plan von Kunde A.")
    src = tmp_path / "doc.txt"
    src.write_text("The secret plan of client A.\n", "utf-8")
    folder = tmp_path / "clients" / "b" / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        p.set_setting("tms", json.dumps([{"path": listed, "writable": True}]))  # as the sender wrote it
    return folder


def _targets(folder):
    with Project(folder) as p:
        return [s.target.text for s in p.segments(p.documents()[0].id)]


def test_pretranslate_refuses_a_tm_the_received_project_lists_outside_itself(tmp_path):
    folder = _received(tmp_path, "../../tmA")
    r = _cli("doc", "pretranslate", "doc.txt", "--project", str(folder), "--model", "none")
    assert r.returncode != 0 and r.stdout == ""
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(folder / "project.verso") in err and "../../tmA" in err
    assert _targets(folder) == [""]  # nothing of client A's TM came in


def test_the_users_flag_or_confirmation_lets_the_outside_tm_in(tmp_path):
    folder = _received(tmp_path, "../../tmA")
    r = _cli("doc", "pretranslate", "doc.txt", "--project", str(folder), "--model", "none", "--trust-project-tms")
    assert r.returncode == 0, r.stderr
    assert _targets(folder) == ["Der geheime Plan von Kunde A."]
    folder2 = _received(tmp_path / "again", "../../tmA")
    trusted.confirm(folder2, [tmp_path / "again" / "clients" / "tmA"])
    r = _cli("doc", "pretranslate", "doc.txt", "--project", str(folder2), "--model", "none")
    assert r.returncode == 0, r.stderr
    assert _targets(folder2) == ["Der geheime Plan von Kunde A."]


def test_a_tm_the_user_added_outside_the_project_needs_no_confirmation(tmp_path):
    folder = _received(tmp_path, "tm")
    with Project(folder) as p:
        p.set_setting("tms", "[]")
        p.add_tm_ref(tmp_path / "clients" / "tmA")  # the user's own doing, on this machine
    r = _cli("doc", "pretranslate", "doc.txt", "--project", str(folder), "--model", "none")
    assert r.returncode == 0, r.stderr
    assert _targets(folder) == ["Der geheime Plan von Kunde A."]


def test_a_link_inside_the_project_leading_out_counts_as_outside(tmp_path):
    folder = _received(tmp_path, "tm")
    (folder / "tm").symlink_to(tmp_path / "clients" / "tmA", target_is_directory=True)
    r = _cli("doc", "pretranslate", "doc.txt", "--project", str(folder), "--model", "none")
    assert r.returncode != 0 and "'tm'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert _targets(folder) == [""]


def test_an_absolute_entry_creates_no_folder(tmp_path):
    far = tmp_path / "elsewhere" / "X"
    folder = _received(tmp_path, str(far))
    r = _cli("doc", "pretranslate", "doc.txt", "--project", str(folder), "--model", "none")
    assert r.returncode != 0 and str(far) in r.stderr
    assert not far.exists() and not far.parent.exists()
