"""YAML (Rails-style): comments, anchors, quoting and block styles kept; safe, bounded reading."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from engine.errors import FormatError
from engine.formats import detect, yamlfmt
from engine.formats.base import Translation
from engine.formats.placeholders import protect_software
from engine.formats.yamlfmt import FORMAT

FIX = Path(__file__).parent / "fixtures" / "strings"


def _tr(texts: list) -> dict[str, Translation]:
    return {json.dumps(k, ensure_ascii=False): Translation(protect_software(v)) for k, v in texts}


def test_string_scalars_are_segments_numbers_booleans_and_aliases_are_not():
    doc = FORMAT.read(FIX / "rails.yml")
    assert [s.context for s in doc.segments] == [
        "en.hello", "en.quoted", "en.double", "en.defaults.save", "en.defaults.cancel", "en.dialog.title",
        "en.about", "en.folded", "en.inbox.one", "en.inbox.other", "en.flow.0", "en.flow.1", "en.tagged"]
    by = {s.context: s for s in doc.segments}
    assert by["en.quoted"].source.text == 'It\'s "quoted"'
    assert by["en.about"].source.text == "Line one.\nLine two.\n"
    assert by["en.inbox.one"].note == "plural form 'one'"
    assert by["en.hello"].source.display() == "Hello, <%{name}/>!"


def test_untouched_export_is_byte_identical(tmp_path):
    FORMAT.write(FIX / "rails.yml", tmp_path / "o.yml", {})
    assert (tmp_path / "o.yml").read_bytes() == (FIX / "rails.yml").read_bytes()


def test_edited_export_keeps_styles_comments_and_anchors_and_parses(tmp_path):
    out = tmp_path / "fr.yml"
    FORMAT.write(FIX / "rails.yml", out, _tr([
        (["en", "hello"], "Bonjour, %{name} !"),
        (["en", "quoted"], "C'est « cité »"),
        (["en", "defaults", "save"], "Enregistrer: tout"),  # ": " cannot stay plain
        (["en", "dialog", "title"], "Confirmer"),
        (["en", "about"], "Ligne un.\nLigne deux.\n"),
        (["en", "folded"], "Un long paragraphe."),
        (["en", "flow", 0], "Oui, merci"),
        (["en", "tagged"], "deux mille"),
    ]))
    text = out.read_bytes().decode("utf-8")
    assert "\r\n  # greeting shown on the home page\r\n  hello: Bonjour, %{name} !\r\n" in text
    assert "  quoted: 'C''est « cité »'\r\n" in text
    assert '    save: "Enregistrer: tout"\r\n' in text
    assert "    title: &title Confirmer\r\n    again: *title\r\n" in text
    assert "  about: |\r\n    Ligne un.\r\n    Ligne deux.\r\n\r\n  folded: |-\r\n    Un long paragraphe.\r\n" in text
    assert '  flow: ["Oui, merci", "No thanks"]\r\n' in text
    assert "  tagged: !!str deux mille\r\n" in text
    en = yaml.safe_load(text)["en"]
    assert en["hello"] == "Bonjour, %{name} !"
    assert en["quoted"] == "C'est « cité »"
    assert en["dialog"]["save"] == "Enregistrer: tout"  # through the merge key
    assert en["dialog"]["again"] == "Confirmer"
    assert en["about"] == "Ligne un.\nLigne deux.\n" and en["folded"] == "Un long paragraphe."
    assert en["flow"] == ["Oui, merci", "No thanks"] and en["number"] == 42


def test_value_that_would_read_as_another_type_is_quoted(tmp_path):
    out = tmp_path / "o.yml"
    FORMAT.write(FIX / "rails.yml", out, _tr([(["en", "defaults", "cancel"], "yes"),
                                              (["en", "dialog", "title"], "- dash")]))
    en = yaml.safe_load(out.read_text())["en"]
    assert en["defaults"]["cancel"] == "yes" and en["dialog"]["title"] == "- dash"


def test_tags_make_no_objects(tmp_path):
    p = tmp_path / "evil.yml"
    p.write_text("a: !!python/object/apply:os.system ['echo hacked']\nb: fine\n")
    doc = FORMAT.read(p)
    assert [s.source.text for s in doc.segments] == ["fine"]


def test_alias_bomb_is_read_in_linear_time(tmp_path):
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    p = tmp_path / "bomb.yml"
    p.write_text("\n".join(lines) + "\n")
    t = time.thread_time()  # this thread's CPU: a busy machine's other processes do not count
    doc = FORMAT.read(p)
    assert time.thread_time() - t < 2
    assert len(doc.segments) == 9  # the nine "lol"s, once each


def test_invalid_yaml_names_line_and_column(tmp_path):
    p = tmp_path / "bad.yml"
    p.write_text("a: b\n  c: d\n")
    with pytest.raises(FormatError, match=r"bad\.yml, line 2, column \d+: not valid YAML"):
        FORMAT.read(p)


def test_huge_file_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(yamlfmt, "MAX_YAML_BYTES", 100)
    p = tmp_path / "big.yml"
    p.write_text("".join(f"k{i}: text\n" for i in range(50)))
    with pytest.raises(FormatError, match="split it"):
        FORMAT.read(p)


def test_detected_by_extension():
    assert detect(FIX / "rails.yml").name == "yaml"
