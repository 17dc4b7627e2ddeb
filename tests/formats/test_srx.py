"""Sentence rules as SRX: the default rules keep abbreviations whole, a translator's SRX file decides
where segments break, a malformed one is refused in one line, and segmentation stays loss-free on
real prose."""
from __future__ import annotations

import json

import pytest
from datafiles import data_file

from engine.errors import FormatError
from engine.segmentation import segment_text, segmenter_language, split_sentences, using_rules
from engine.segmentation.srx import default_rules, parse_srx

SRX_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<srx xmlns="http://www.lisa.org/srx20" version="2.0">\n'


def srx_file(tmp_path, rules: str, maps: str = '<languagemap languagepattern=".*" languagerulename="Mine"/>',
             name: str = "mine.srx"):
    p = tmp_path / name
    p.write_text(f'{SRX_HEAD}<header cascade="no" segmentsubflows="yes"/>\n<body>\n<languagerules>\n'
                 f'<languagerule languagerulename="Mine">\n{rules}\n</languagerule>\n</languagerules>\n'
                 f"<maprules>{maps}</maprules>\n</body>\n</srx>\n", "utf-8")
    return p


@pytest.mark.parametrize("lang, text, want", [
    ("es", "La reunión con el Lic. García y la Sra. López terminó. Después salimos.",
     ["La reunión con el Lic. García y la Sra. López terminó.", "Después salimos."]),
    ("es", "El Sr. Pérez firmó el contrato. El Dr. Ruiz no vino.",
     ["El Sr. Pérez firmó el contrato.", "El Dr. Ruiz no vino."]),
    ("de", "Wir brauchen z. B. Papier und Nr. 5 der Liste. Das ist alles.",
     ["Wir brauchen z. B. Papier und Nr. 5 der Liste.", "Das ist alles."]),
    ("de", "Er kam z. B. Montags. Dann ging er.", ["Er kam z. B. Montags.", "Dann ging er."]),
    ("fr", "M. Dupont viendra, p. ex. avec Mme Durand. Elle est prête.",
     ["M. Dupont viendra, p. ex. avec Mme Durand.", "Elle est prête."]),
    ("en", "Bring e.g. Dr. Brown and read No. 5 first. Then stop.",
     ["Bring e.g. Dr. Brown and read No. 5 first.", "Then stop."]),
])
def test_abbreviations_of_each_language_do_not_end_a_sentence(lang, text, want):
    assert split_sentences(text, lang) == want


def test_a_word_that_is_no_abbreviation_still_ends_its_sentence():
    assert split_sentences("He met García. Lic was there.", "es") == ["He met García.", "Lic was there."]
    # "Lic." is a Spanish abbreviation, not an English one
    assert len(split_sentences("Ask the Lic. García knows.", "en")) == 2


def test_the_default_rules_are_an_srx_file_with_a_rule_set_per_language():
    rules = default_rules()
    assert rules.source.endswith("default.srx")
    assert {"English", "German", "French", "Spanish", "Default"} <= set(rules.languagerules)
    assert segmenter_language("es-MX") == "Spanish+Default"
    assert segmenter_language("tlh") == "Default"


def test_a_translators_srx_file_changes_where_segments_break(tmp_path):
    text = "Step one; step two. Call Acme Intl. Now."
    assert split_sentences(text, "en") == ["Step one; step two.", "Call Acme Intl.", "Now."]
    mine = parse_srx(srx_file(tmp_path, r"""
<rule break="no"><beforebreak>\bIntl\.</beforebreak><afterbreak>\s</afterbreak></rule>
<rule break="yes"><beforebreak>[;.]</beforebreak><afterbreak>\s</afterbreak></rule>"""))
    with using_rules(mine):
        assert split_sentences(text, "en") == ["Step one;", "step two.", "Call Acme Intl. Now."]
        seg = segment_text("  " + text + "\n", "en")
        assert seg.join() == "  " + text + "\n"
        assert segmenter_language("en") == "Mine"
    assert split_sentences(text, "en") == ["Step one; step two.", "Call Acme Intl.", "Now."]


def test_cascading_srx_applies_every_matching_map_in_order(tmp_path):
    p = tmp_path / "c.srx"
    p.write_text(SRX_HEAD + """<header cascade="yes"/><body><languagerules>
<languagerule languagerulename="Es"><rule break="no"><beforebreak>\\bLic\\.</beforebreak><afterbreak>\\s</afterbreak></rule></languagerule>
<languagerule languagerulename="All"><rule><beforebreak>\\.</beforebreak><afterbreak>\\s</afterbreak></rule></languagerule>
</languagerules><maprules>
<languagemap languagepattern="es.*" languagerulename="Es"/><languagemap languagepattern=".*" languagerulename="All"/>
</maprules></body></srx>""", "utf-8")
    with using_rules(parse_srx(p)):
        assert split_sentences("Vino el Lic. García. Bien.", "es-AR") == ["Vino el Lic. García.", "Bien."]
        assert split_sentences("Vino el Lic. García. Bien.", "pt") == ["Vino el Lic.", "García.", "Bien."]


@pytest.mark.parametrize("body, line, words", [
    ('<rule break="yes"><beforebreak>[.</beforebreak><afterbreak>\\s</afterbreak></rule>', 7, "does not compile"),
    ('<rule break="maybe"><beforebreak>\\.</beforebreak></rule>', 7, "break='maybe'"),
    ('<rule><beforebreak>\\.</beforebreak><oops/></rule>', 7, "<oops>"),
    ('<rule><beforebreak>\\.</beforebreak>\n</rule', 9, "not well-formed"),
])
def test_a_malformed_srx_file_is_refused_in_one_line_naming_file_and_line(tmp_path, body, line, words):
    p = srx_file(tmp_path, body)
    with pytest.raises(FormatError) as e:
        parse_srx(p)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{p}, line {line}: ") and words in msg


def test_an_srx_map_to_a_missing_rule_set_or_another_xml_file_is_refused(tmp_path):
    p = srx_file(tmp_path, "", maps='<languagemap languagepattern=".*" languagerulename="Nope"/>')
    with pytest.raises(FormatError, match="'Nope', which the file does not hold"):
        parse_srx(p)
    other = tmp_path / "x.srx"
    other.write_text("<xliff/>", "utf-8")
    with pytest.raises(FormatError, match="not an SRX file"):
        parse_srx(other)


def test_an_srx_file_with_entities_is_refused_before_expansion(tmp_path):
    p = tmp_path / "bomb.srx"
    p.write_text('<?xml version="1.0"?><!DOCTYPE srx [<!ENTITY a "aaaa">]><srx><header/><body/></srx>', "utf-8")
    with pytest.raises(FormatError):
        parse_srx(p)


@pytest.mark.data
@pytest.mark.parametrize("folder, name, lang", [
    ("jrc-acquis-endefr", "common.en", "en"), ("jrc-acquis-endefr", "common.de", "de"),
    ("jrc-acquis-endefr", "common.fr", "fr"), ("kde4-l10n-de", "docs.en", "en"),
    ("python-docs-fr", "docs.fr", "fr"),
])
def test_segmentation_is_loss_free_on_real_prose(folder, name, lang):
    """Paragraphs of four consecutive real lines: the sentences and gaps give each paragraph back,
    and most known sentence ends (line ends followed by a capital) are breaks."""
    lines = data_file(folder, name).read_text("utf-8").splitlines()[:2000]
    found = known = 0
    for i in range(0, len(lines), 4):
        para = " ".join(lines[i:i + 4])
        seg = segment_text(para, lang)
        assert seg.join() == para
        assert all(s and s == s.strip() for s in seg.sentences)
        found += len(seg.sentences)
        known += sum(1 for s in lines[i:i + 4] if s.strip())
    assert 0 < found <= known * 1.5


# ------------------------------------------------------------------ a project's own rules, command line
def _cli(capsys, *argv):
    from engine.cli import main

    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _sources(project, name):
    from engine.store import Project

    with Project.open(project) as p:
        return [s.source.text for s in p.segments(p.document(name).id)]


def test_a_projects_srx_file_decides_where_its_documents_break_and_export_keeps_them(tmp_path, capsys):
    doc = tmp_path / "a.txt"
    doc.write_text("Call Acme Intl. Now. Step one; step two.\n", "utf-8")
    project = tmp_path / "p"
    assert _cli(capsys, "project", "create", project, "--src-lang", "en", "--tgt-lang", "de")[0] == 0
    assert _cli(capsys, "doc", "import", doc, "--project", project)[0] == 0
    assert _sources(project, "a.txt") == ["Call Acme Intl.", "Now.", "Step one; step two."]
    mine = srx_file(tmp_path, r"""
<rule break="no"><beforebreak>\bIntl\.</beforebreak><afterbreak>\s</afterbreak></rule>
<rule break="yes"><beforebreak>[;.]</beforebreak><afterbreak>\s</afterbreak></rule>""")
    rc, out, _ = _cli(capsys, "seg", "import-srx", mine, "--project", project)
    assert rc == 0 and json.loads(out)["rules"] == ["Mine"]
    doc2 = tmp_path / "b.txt"
    doc2.write_bytes(doc.read_bytes())
    assert _cli(capsys, "doc", "import", doc2, "--project", project)[0] == 0
    assert _sources(project, "b.txt") == ["Call Acme Intl. Now.", "Step one;", "step two."]
    assert _sources(project, "a.txt") == ["Call Acme Intl.", "Now.", "Step one; step two."]
    # the SRX file the translator edits later does not change the project's copy
    mine.write_text("not srx any more", "utf-8")
    # an untouched document exports byte for byte with the rules it was imported with
    for name in ("a.txt", "b.txt"):
        rc, out, err = _cli(capsys, "doc", "export", name, "--project", project, "--out", tmp_path / f"out-{name}")
        assert rc == 0, err
        assert (tmp_path / f"out-{name}").read_bytes() == doc.read_bytes()
    rc, out, _ = _cli(capsys, "seg", "show", "--project", project, "--lang", "en")
    assert json.loads(out)["rule_sets"] == ["Mine"] and "segmentation/" in json.loads(out)["source"]


def test_a_malformed_srx_is_refused_by_the_command_in_one_line_and_changes_nothing(tmp_path, capsys):
    project = tmp_path / "p"
    _cli(capsys, "project", "create", project, "--src-lang", "en", "--tgt-lang", "de")
    bad = srx_file(tmp_path, '<rule break="yes"><beforebreak>(</beforebreak></rule>', name="bad.srx")
    rc, out, err = _cli(capsys, "seg", "import-srx", bad, "--project", project)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and f"{bad}, line 7: " in err and "does not compile" in err
    rc, out, _ = _cli(capsys, "seg", "show", "--project", project, "--lang", "es")
    assert json.loads(out)["source"].endswith("default.srx")


def test_the_project_api_and_the_editors_import_use_the_projects_rules_and_export_keeps_them(tmp_path):
    from app.dialogs.import_doc import read_for_import
    from engine.store import Project
    from engine.store.segrules import import_srx, reset

    doc = tmp_path / "a.txt"
    doc.write_text("Call Acme Intl. Now. Step one; step two.\n", "utf-8")
    p = Project.create(tmp_path / "p", src_lang="en", tgt_lang="de")
    import_srx(p, srx_file(tmp_path, r"""
<rule break="no"><beforebreak>\bIntl\.</beforebreak><afterbreak>\s</afterbreak></rule>
<rule break="yes"><beforebreak>[;.]</beforebreak><afterbreak>\s</afterbreak></rule>"""))
    first = p.import_document(doc)
    parsed, conflict = read_for_import(doc, p, None)
    second = p.import_parsed(parsed, doc)
    for d in (first, second):
        assert [s.source.text for s in p.segments(d)] == ["Call Acme Intl. Now.", "Step one;", "step two."]
    reset(p)  # back to the default rules: documents imported before keep theirs
    third = p.import_document(doc)
    assert [s.source.text for s in p.segments(third)] == ["Call Acme Intl.", "Now.", "Step one; step two."]
    for d in (first, second, third):
        out = tmp_path / f"out{d}.txt"
        p.export_document(d, out)
        assert out.read_bytes() == doc.read_bytes()
    # a translated segment that only the project's rules made lands in its place after the rules changed
    p.confirm(p.segments(first)[2].id, "Schritt zwei.")
    p.export_document(first, tmp_path / "de.txt")
    assert (tmp_path / "de.txt").read_text("utf-8") == "Call Acme Intl. Now. Step one; Schritt zwei.\n"
    p.close()


def test_every_default_rule_compiles():
    rules = default_rules()
    for name, rs in rules.languagerules.items():
        assert rs, name
    strict = parse_srx(rules.source)  # the strict reading compiles each pattern
    assert strict.languagerules == rules.languagerules


def test_a_document_imported_before_the_srx_rules_exports_with_the_breaks_it_was_imported_with(tmp_path):
    """Imported while pysbd made the breaks (its meta names no rules): each translation goes back to
    the sentence it was made for, not to where the SRX rules would put that key."""
    from engine.formats import read_document
    from engine.segmentation import PYSBD
    from engine.store import Project

    doc = tmp_path / "old.txt"
    doc.write_text("He paid 5 dollars . the next day he left. Then more.\n", "utf-8")
    p = Project.create(tmp_path / "p", src_lang="en", tgt_lang="de")
    with using_rules(PYSBD):  # what the release before read
        parsed = read_document(doc, src_lang="en", tgt_lang="de")
    doc_id = p.import_parsed(parsed, doc)
    with p._tx():  # a document of the release before has no rules in its meta
        p._conn.execute("UPDATE documents SET meta = json_remove(meta, '$.segmentation_srx') WHERE id = ?", (doc_id,))
    segs = p.segments(doc_id)
    assert [s.source.text for s in segs] == ["He paid 5 dollars .", "the next day he left.", "Then more."]
    p.confirm(segs[2].id, "Dann mehr.")
    p.export_document(doc_id, tmp_path / "de.txt")
    assert (tmp_path / "de.txt").read_text("utf-8") == "He paid 5 dollars . the next day he left. Dann mehr.\n"
    # imported now: the SRX rules, recorded as the default ones
    new_id = p.import_document(doc)
    assert [s.source.text for s in p.segments(new_id)] == ["He paid 5 dollars . the next day he left.", "Then more."]
    assert p.document(new_id).meta["segmentation_srx"] == ""
    p.close()


def test_a_rule_that_backtracks_without_end_is_refused_naming_its_file_and_line(tmp_path, monkeypatch):
    """An SRX file from someone else runs no code; a pattern that backtracks without end is stopped."""
    from engine.segmentation import srx

    monkeypatch.setattr(srx, "RULE_SECONDS", 0.2)
    slow = parse_srx(srx_file(tmp_path, "<rule><beforebreak>(a|aa)+</beforebreak><afterbreak>x</afterbreak></rule>"))
    with using_rules(slow), pytest.raises(FormatError) as e:
        segment_text("a" * 34 + "y. Next one.", "en")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{tmp_path / 'mine.srx'}, line 7: ") and "sentence rule" in msg


def test_rules_needing_a_character_the_text_lacks_are_skipped_without_changing_a_break(tmp_path, monkeypatch):
    import random

    from engine.segmentation import srx

    rules = parse_srx(srx_file(tmp_path, r"""
<rule break="no"><beforebreak>«[^«»]{0,20}+[.?!]+</beforebreak><afterbreak>\s</afterbreak></rule>
<rule break="no"><beforebreak>[#@]\w+\.</beforebreak><afterbreak>\s</afterbreak></rule>
<rule break="no"><beforebreak>x\.|\bNo\.</beforebreak><afterbreak>\s\d</afterbreak></rule>
<rule break="no"><beforebreak>(?i)q\.</beforebreak><afterbreak>\s</afterbreak></rule>
<rule break="yes"><beforebreak>[.?!]+</beforebreak><afterbreak>\s</afterbreak></rule>
<rule break="yes"><beforebreak>;</beforebreak><afterbreak>\s</afterbreak></rule>""")).rules_for("en")
    rng = random.Random(5)
    words = ["«", "»", "#tag.", "@me.", "No.", "5", "x.", "Q.", "end.", "ok", "Yes!", ";", "a;", "Why?", "Go."]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 14))) for _ in range(600)]
    assert any("«" in t for t in texts) and any("«" not in t for t in texts)
    assert any(c in t for t in texts for c in "#@") and any(not set("#@;") & set(t) for t in texts)
    skipping = [srx.Segmenter(rules).cuts(t) for t in texts]
    monkeypatch.setattr(srx, "first_chars", lambda pattern: None)  # every rule tried on every text
    assert skipping == [srx.Segmenter(rules).cuts(t) for t in texts]


def test_the_default_rules_break_where_a_scan_of_every_position_breaks(monkeypatch):
    """Verso's own rules look for a break rule's first characters (``.``, ``?``, ``…``, ``;``) with
    ``str.find`` and try the rule only there: the breaks of texts dense with them (runs of dots,
    ``?!``, quotes after the mark, list items, CJK marks, abbreviations) are those of the rule scanned
    at every position."""
    import random

    from engine.segmentation import srx

    rng = random.Random(11)
    words = ["End.", "...", "Wait?!", "…", "No.", "5", "(a)", "(iv)", "a;", ";", "Mr.", "e.g.", "«Oui.", "»", "x",
             "said.\u201d", "Ok.)", "。", "好！", "\u00a0", "1.", "Then", "the", "\n", ".", "?"]
    texts = ["".join(rng.choice(words) + rng.choice(" \u00a0\n") for _ in range(rng.randint(1, 30)))
             for _ in range(600)]
    rules = default_rules()
    langs = ["en", "de", "fr", "ja", "xx"]
    fast = [rules.segmenter(lang).cuts(t) for t in texts for lang in langs]
    assert sum(map(len, fast)) > 1000
    monkeypatch.setattr(srx, "first_chars", lambda pattern: None)  # every finder scans the whole text
    slow_rules = srx.SRX(rules.source, rules.cascade, rules.languagerules, rules.maps, trusted=True)
    assert fast == [slow_rules.segmenter(lang).cuts(t) for t in texts for lang in langs]


@pytest.mark.parametrize("pattern, chars", [
    ("«[^«»\\n]{0,400}+[.?!…]+", "«"), ("[。！？]+[」』]*", "。！？"), (";", ";"), ("[#@]\\w", "#@"),
    ("«a|b", None), ("(?i)q\\.", None), ("«*x", None), ("[a-c]x", None), ("\\.x", None), ("\\bNo\\.", None),
    ("(a|b)c", None), ("[^a]x", None), ("a{0,2}b", None), (" x", None), ("", None),
])
def test_the_first_characters_a_rule_needs_are_known_only_where_the_pattern_says_so(pattern, chars):
    from engine.segmentation.srx import first_chars

    assert first_chars(pattern) == (frozenset(chars) if chars else None)
