"""The reviewer role on a shared TM (issue 49), on a real PostgreSQL server: a reviewer's
confirmation replaces the translator's unit for the same source and keeps the translator's
text in the unit's history; a translator's later confirmation never overwrites the
reviewer's text, it is kept as a proposal."""
from __future__ import annotations

import itertools
import os

import psycopg
import pytest
from test_pg_access import _as_user

from engine.tm import open_tm
from engine.tm.model import TMRefused

_n = itertools.count()


def _login(pg_server, schema: str) -> str:
    """A login role with the documented read-write grants on the TM's schema."""
    name = f"rv_{os.getpid()}_{next(_n)}"
    with psycopg.connect(pg_server[0], autocommit=True) as c:
        c.execute(f"CREATE ROLE {name} LOGIN")
        c.execute(f"GRANT USAGE ON SCHEMA {schema} TO {name}")
        c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {name}")
        c.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {name}")
    return name


@pytest.fixture
def team(pg_server, pg_url):
    """(translator's URL, reviewer's URL) of one TM whose owner made the reviewer's role a reviewer."""
    with open_tm(pg_url, src_lang="en", tgt_lang="de") as owner:
        schema = owner.schema
    ana, rita = _login(pg_server, schema), _login(pg_server, schema)
    with open_tm(pg_url) as owner:
        owner.set_reviewer(rita)
    return _as_user(pg_url, ana), _as_user(pg_url, rita)


def _targets(tm, source: str) -> list[str]:
    return sorted(e.target.text for e in tm.entries() if e.source.text == source)


def test_a_reviewers_confirmation_replaces_the_translators_unit_and_keeps_it_in_the_history(team):
    ana_url, rita_url = team
    with open_tm(ana_url) as ana, open_tm(rita_url) as rita:
        assert not ana.is_reviewer() and rita.is_reviewer()
        old = ana.add("The red house is big.", "Das rote Haus ist gross.", creator="Ana")
        uid = rita.add("The red house is big.", "Das rote Haus ist groß.", creator="Rita")
        assert _targets(ana, "The red house is big.") == ["Das rote Haus ist groß."]  # one unit, the reviewer's
        assert ana.search("The red house is big.", k=5)[0].entry.target.text == "Das rote Haus ist groß."
        assert uid != old
        h = ana.history(uid)
        assert [(x["kind"], x["target"], x["author"], x["reviser"]) for x in h] == [
            ("replaced", "Das rote Haus ist gross.", "Ana", "Rita")]
        assert ana.revision_note(uid) == "revised by Rita, was: Das rote Haus ist gross. (Ana)"


def test_a_translators_later_confirmation_does_not_overwrite_the_reviewers_text_but_is_kept_as_a_proposal(team):
    ana_url, rita_url = team
    with open_tm(ana_url) as ana, open_tm(rita_url) as rita:
        ana.add("Close the door.", "Tür zu.", creator="Ana")
        uid = rita.add("Close the door.", "Schließen Sie die Tür.", creator="Rita")
        again = ana.add("Close the door.", "Mach die Tür zu.", creator="Ana")
        assert again == uid
        assert _targets(ana, "Close the door.") == ["Schließen Sie die Tür."]
        assert ana.search("Close the door.", k=5)[0].entry.target.text == "Schließen Sie die Tür."
        assert "proposed by Ana: Mach die Tür zu." in ana.revision_note(uid)
        assert "revised by Rita, was: Tür zu." in ana.revision_note(uid)
        # the translator confirming the reviewer's own text is an ordinary duplicate
        assert ana.add("Close the door.", "Schließen Sie die Tür.", creator="Ana") == uid
        # a second review takes the proposal over, the reviewer's first text goes to the history
        second = rita.add("Close the door.", "Mach die Tür zu.", creator="Rita")
        assert _targets(ana, "Close the door.") == ["Mach die Tür zu."]
        assert "revised by Rita, was: Schließen Sie die Tür." in ana.revision_note(second)


def test_other_sources_and_translators_without_a_reviewer_behave_as_before(team):
    ana_url, _ = team
    with open_tm(ana_url) as ana:
        ana.add("Save the file", "Datei speichern", creator="Ana")
        ana.add("Save the file", "Die Datei sichern", creator="Bob")
        assert _targets(ana, "Save the file") == ["Datei speichern", "Die Datei sichern"]


def test_only_the_tms_owner_names_reviewers(team):
    ana_url, _ = team
    with open_tm(ana_url) as ana, pytest.raises(TMRefused, match="may not|lacks|GRANT|refuse"):
        ana.set_reviewer("someone_else")


def test_the_tm_editor_page_shows_who_revised_a_unit_and_what_it_was(team):
    from engine.tm.units import page, revision

    ana_url, rita_url = team
    with open_tm(ana_url) as ana, open_tm(rita_url) as rita:
        ana.add("Print the page.", "Seite drucken.", creator="Ana")
        ana.add("Untouched unit.", "Unberührt.", creator="Ana")
        uid = rita.add("Print the page.", "Die Seite drucken.", creator="Rita")
        got = {e.source.text: revision(e) for e in page(ana).entries}
    assert got == {"Print the page.": "revised by Rita, was: Seite drucken. (Ana)", "Untouched unit.": ""}
    assert uid


def test_a_tm_made_before_the_reviewer_role_still_takes_translators_adds_and_gets_it_from_its_owner(
        pg_server, pg_url):
    with open_tm(pg_url, src_lang="en", tgt_lang="de") as owner:
        schema = owner.schema
    with psycopg.connect(pg_server[0], autocommit=True) as c:
        c.execute(f"DROP TABLE {schema}.reviewers, {schema}.reviewed, {schema}.revisions")
    ana = _login(pg_server, schema)
    with open_tm(_as_user(pg_url, ana)) as tm:  # may not create tables: adds as before, nobody reviews
        tm.add("Old TM sentence.", "Alter TM-Satz.", creator="Ana")
        assert not tm.is_reviewer() and tm.history(1) == []
    with open_tm(pg_url) as owner:
        owner.set_reviewer(ana)  # the owner's write adds the tables
    with open_tm(_as_user(pg_url, ana)) as tm:  # not yet granted on the new tables: adds as before
        assert not tm.is_reviewer()
        tm.add("Another sentence.", "Ein anderer Satz.", creator="Ana")
    with psycopg.connect(pg_server[0], autocommit=True) as c:  # the owner re-runs the documented grants
        c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {ana}")
        c.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {ana}")
    with open_tm(_as_user(pg_url, ana)) as tm:
        assert tm.is_reviewer()
        uid = tm.add("Old TM sentence.", "Der alte TM-Satz.", creator="Ana")
        assert "was: Alter TM-Satz." in tm.revision_note(uid)


def test_a_reviewers_confirmation_queued_offline_replaces_the_translators_unit_when_sent(team, tmp_path):
    from engine.inline import TaggedText
    from engine.tm.outbox import Outbox

    ana_url, rita_url = team
    with open_tm(ana_url) as ana:
        ana.add("Turn the key.", "Schlüssel drehen.", creator="Ana")
    box = Outbox.of_project(tmp_path)  # the editor's path: confirmations wait here while the TM is away
    box.put(rita_url, TaggedText("Turn the key."), TaggedText("Drehen Sie den Schlüssel."), creator="Rita")
    with open_tm(rita_url) as rita:
        assert box.send(rita_url, rita) == 1
        assert _targets(rita, "Turn the key.") == ["Drehen Sie den Schlüssel."]
        uid = next(e.id for e in rita.entries() if e.source.text == "Turn the key.")
        assert rita.revision_note(uid) == "revised by Rita, was: Schlüssel drehen. (Ana)"
    box.close()
