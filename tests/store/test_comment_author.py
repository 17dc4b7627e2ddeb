"""Who signs a comment nobody named an author for: $VERSO_USER, else the login name
(engine.identity.user_name, the one default the editor's Settings ▸ Your name starts from)."""
from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from engine.formats.base import ParsedDocument, ParsedSegment
from engine.identity import user_name
from engine.inline import protect
from engine.store import Project
from engine.store.comments import Comments


@pytest.fixture
def project(tmp_path: Path):
    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de")
    original = tmp_path / "guide.txt"
    original.write_text("x\n", encoding="utf-8")
    p.import_parsed(ParsedDocument("guide.txt", "txt", "en", "de", [ParsedSegment("k0", protect("Open it."))]),
                    original)
    yield p
    p.close()


def test_a_comment_without_an_author_is_signed_with_verso_user(project, monkeypatch):
    monkeypatch.setenv("VERSO_USER", " Ana Lima ")
    seg = project.segments(project.documents()[0].id)[0]
    assert Comments(project).add(seg.id, "Ask the client.").author == "Ana Lima"
    assert Comments(project).add(seg.id, "Asked.", author="  Ben ").author == "Ben"


def test_without_verso_user_the_login_name_signs_and_no_login_name_gives_translator(monkeypatch):
    monkeypatch.delenv("VERSO_USER", raising=False)
    monkeypatch.setattr(getpass, "getuser", lambda: "ana")
    assert user_name() == "ana"

    def no_login():
        raise OSError("no username set in the environment")

    monkeypatch.setattr(getpass, "getuser", no_login)
    assert user_name() == "translator"
