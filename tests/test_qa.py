"""QA checks: what a reviewer would flag before delivery."""
from engine.inline import protect
from engine.qa import check_segment


def _checks(src: str, tgt: str, status: str = "draft") -> list[str]:
    s = protect(src)
    # The target is typed with the source's short tags, as in the editor.
    from engine.inline import from_display
    t = s.with_text(from_display(protect(tgt).display(), s.tags))
    return [i.check for i in check_segment(1, 0, s, t, status)]


def test_clean_translation_has_no_issue():
    assert _checks("Click <b>Save</b> to keep 3 files.", "Klicken Sie auf <b>Speichern</b>, um 3 Dateien zu behalten.") == []


def test_missing_and_extra_tags():
    assert _checks("Click <b>Save</b>.", "Klicken Sie auf Speichern.") == ["missing-tag", "missing-tag"]


def test_closing_before_opening_tag():
    s = protect("Click <b>Save</b>.")
    opening, closing = (t.char for t in s.tags)
    issues = check_segment(1, 0, s, s.with_text(f"Klicken {closing}Speichern{opening}."))
    assert [i.check for i in issues] == ["tag-order"]


def test_numbers_differ_but_locale_formats_agree():
    assert _checks("Pay 1,234.50 euros in 3 days.", "Zahlen Sie 1.234,50 Euro in 3 Tagen.") == []
    assert _checks("Wait 15 minutes.", "Warten Sie 50 Minuten.") == ["number", "number"]


def test_empty_untranslated_and_copied_source():
    assert _checks("Open the file.", "", status="new") == ["untranslated"]
    assert _checks("Open the file.", "   ", status="draft") == ["empty"]
    assert _checks("Open the file.", "Open the file.") == ["source-copied"]
    assert _checks("Qt 6.5", "Qt 6.5") == []  # product names and numbers may stay as they are


def test_placeholders_count_as_tags():
    assert _checks("Delete %1 files?", "%1 Dateien löschen?") == []
    assert _checks("Delete %1 files?", "Dateien löschen?") == ["missing-tag"]
