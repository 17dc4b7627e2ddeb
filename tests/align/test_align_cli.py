"""`verso align-docs`: a document and its translation into the TM."""
from __future__ import annotations

import json

from engine.cli import main
from engine.tm import TranslationMemory

EN = ("The Council adopted the regulation on 12 May. It enters into force on the day after its publication.\n\n"
      "Article 2 sets the fee at 40 euros. Member States shall apply it.\n\n"
      "Done at Brussels. For the Council. The President.\n")
DE = ("Der Rat hat die Verordnung am 12. Mai erlassen. Sie tritt am Tag nach ihrer Veröffentlichung in Kraft.\n\n"
      "Artikel 2 legt die Gebühr auf 40 Euro fest. Die Mitgliedstaaten wenden sie an.\n\n"
      "Geschehen zu Brüssel. Im Namen des Rates.\n")   # one of three short sentences left out: a guess


def _run(tmp_path, capsys, *extra):
    (tmp_path / "en.txt").write_text(EN, "utf-8")
    (tmp_path / "de.txt").write_text(DE, "utf-8")
    rc = main(["align-docs", str(tmp_path / "en.txt"), str(tmp_path / "de.txt"), "--tm", str(tmp_path / "tm"),
               "--src-lang", "en", "--tgt-lang", "de", "--links", str(tmp_path / "links.tsv"), *extra])
    return rc, capsys.readouterr()


def test_pairs_over_the_threshold_go_into_the_tm_marked_aligned(tmp_path, capsys):
    rc, out = _run(tmp_path, capsys, "--no-model", "--min-confidence", "0.9")
    assert rc == 0, out.err
    res = json.loads(out.out)
    rows = [r.split("\t") for r in (tmp_path / "links.tsv").read_text("utf-8").splitlines()[1:]]
    sure = [r for r in rows if float(r[0]) >= 0.9 and r[1] and r[2]]
    assert res["method"] == "length" and res["below"] >= 1 and res["added"] == len(sure) >= 4
    with TranslationMemory(tmp_path / "tm", create=False) as tm:
        units = list(tm.entries())
    assert {(u.source.text, u.target.text) for u in units} == {(r[1], r[2]) for r in sure}
    assert ("Article 2 sets the fee at 40 euros.", "Artikel 2 legt die Gebühr auf 40 Euro fest.") in {
        (u.source.text, u.target.text) for u in units}
    for u in units:
        assert u.meta["origin"] == "aligned"
        props = dict(map(tuple, u.meta["props"]))
        assert props["x-aligned-source"] == "en.txt" and props["x-aligned-target"] == "de.txt"
        assert float(props["x-align-confidence"]) >= 0.9


def test_a_missing_document_is_refused_in_one_line_and_no_tm_is_made(tmp_path, capsys):
    (tmp_path / "de.txt").write_text(DE, "utf-8")
    rc = main(["align-docs", str(tmp_path / "gone.docx"), str(tmp_path / "de.txt"), "--tm", str(tmp_path / "tm"),
               "--src-lang", "en", "--tgt-lang", "de"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "gone.docx: no such file" in err
    assert not (tmp_path / "tm").exists()


def test_documents_of_different_formats_align(tmp_path, capsys):
    (tmp_path / "en.html").write_text("<html><body><h1>Quick start</h1><p>Open the <b>File</b> menu. "
                                      "Choose 3 photos.</p><p>Press Save.</p></body></html>", "utf-8")
    (tmp_path / "de.md").write_text("# Schnellstart\n\nÖffnen Sie das Menü **Datei**. Wählen Sie 3 Fotos.\n\n"
                                    "Drücken Sie Speichern.\n", "utf-8")
    rc = main(["align-docs", str(tmp_path / "en.html"), str(tmp_path / "de.md"), "--tm", str(tmp_path / "tm"),
               "--src-lang", "en", "--tgt-lang", "de", "--no-model", "--min-confidence", "0"])
    assert rc == 0, capsys.readouterr().err
    with TranslationMemory(tmp_path / "tm", create=False) as tm:
        pairs = {(u.source.plain(), u.target.plain()) for u in tm.entries()}
    assert ("Choose 3 photos.", "Wählen Sie 3 Fotos.") in pairs and ("Press Save.", "Drücken Sie Speichern.") in pairs


def test_with_a_model_for_the_pair_the_model_aligns(tmp_path, capsys):
    rc, out = _run(tmp_path, capsys, "--min-confidence", "0.9")   # the bundled en->de model
    assert rc == 0, out.err
    res = json.loads(out.out)
    assert res["method"] == "model" and res["added"] >= 4


def test_a_pdf_without_pdftotext_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    (tmp_path / "en.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    (tmp_path / "de.txt").write_text(DE, "utf-8")
    rc = main(["align-docs", str(tmp_path / "en.pdf"), str(tmp_path / "de.txt"), "--tm", str(tmp_path / "tm"),
               "--src-lang", "en", "--tgt-lang", "de", "--no-model"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "en.pdf" in err and "pdftotext" in err
    assert not (tmp_path / "tm").exists()


def test_without_a_model_for_the_pair_the_length_aligner_serves(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("VERSO_MODEL", raising=False)
    (tmp_path / "en.txt").write_text(EN, "utf-8")
    (tmp_path / "fr.txt").write_text("Le Conseil a adopté le règlement le 12 mai. Il entre en vigueur le jour "
                                     "suivant sa publication.\n\nL'article 2 fixe la redevance à 40 euros. Les "
                                     "États membres l'appliquent.\n\nFait à Bruxelles. Par le Conseil.\n", "utf-8")
    rc = main(["align-docs", str(tmp_path / "en.txt"), str(tmp_path / "fr.txt"), "--tm", str(tmp_path / "tm"),
               "--src-lang", "en", "--tgt-lang", "fr"])   # the bundled model translates en -> de only
    out = capsys.readouterr()
    assert rc == 0, out.err
    res = json.loads(out.out)
    assert res["method"] == "length" and "en" in res["why_no_model"] and res["added"] >= 4


def test_a_real_docx_and_odt_are_read_sentence_by_sentence_for_alignment():
    from datafiles import data_file

    from engine.align.run import align_files

    for name in ("openXML/file-OpenXMLFilter-tables.docx", "openDoc/file-OpenDocFilter.odt"):
        f = data_file("format-samples", "omegat", "filters-documents", *name.split("/"))
        al = align_files(f, f, "en", "en", use_model=False)   # a document against itself: every sentence 1-1
        n = len(al.src.sentences)
        assert n >= 2 and [(x.src, x.tgt) for x in al.links] == [((i,), (i,)) for i in range(n)]
