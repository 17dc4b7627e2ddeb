"""Pre-translation never writes a machine draft with a missing source tag or menu separator silently:
the tag (separator) is placed by the alignment, and what is still left out is named by QA."""
from pathlib import Path

import pytest

from engine.qa import check_segments
from engine.qa_omission import separators

DEMO_MODEL = Path(__file__).resolve().parents[1] / "resources" / "models" / "demo"


@pytest.fixture(scope="module")
def drafts(tmp_path_factory):
    if not (DEMO_MODEL / "model.safetensors").is_file():
        pytest.skip("the demo model is not bundled in this checkout")
    from engine.demo import ensure_demo_project
    from engine.nmt.translator import Translator
    from engine.pretranslate import open_tms, pretranslate
    from engine.store.project import Project

    project = Project(ensure_demo_project(tmp_path_factory.mktemp("demo") / "demo"))
    doc = project.documents()[0].id
    tms = open_tms(project)
    try:
        res = pretranslate(project, doc, tms=tms, translator=Translator.load(DEMO_MODEL, threads=1))
    finally:
        for tm in tms:
            tm.close()
    assert res.mt > 0
    return project.segments(doc)


def test_machine_drafts_hold_every_source_tag(drafts):
    issues = check_segments(drafts)
    tag_errors = [(i.idx + 1, i.message) for i in issues if i.group == "tags"]
    assert tag_errors == []


def test_machine_drafts_keep_each_menu_separator_or_qa_names_it(drafts):
    named = {i.segment_id for i in check_segments(drafts) if i.check == "possible-omission"
             and "menu separator" in i.message}
    for s in drafts:
        if s.origin == "mt" and len(separators(s.target.text)) < len(separators(s.source.text)):
            assert s.id in named, s.target.text
