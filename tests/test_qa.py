"""QA checks: what a reviewer would flag before delivery."""
from engine.inline import protect
from engine.qa import QAOptions, check_segment, check_segments, tag_issues


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


def test_overlapping_tag_pairs_are_an_error():
    s = protect("<b>Bold <i>both</i></b> done.")
    b_open, i_open, i_close, b_close = (t.char for t in s.tags)
    t = s.with_text(f"{b_open}Fett {i_open}beides{b_close}{i_close} fertig.")
    assert [i.check for i in check_segment(1, 0, s, t)] == ["tag-overlap"]
    assert tag_issues(1, 0, s, t) and not tag_issues(1, 0, s, s.with_text(
        f"{b_open}Fett {i_open}beides{i_close}{b_close} fertig."))


def test_a_tag_twice_in_the_target_is_extra():
    s = protect("Press %1 now.")
    ph = s.tags[0].char
    assert [i.check for i in check_segment(1, 0, s, s.with_text(f"Drücken Sie {ph} {ph} jetzt."))] == ["extra-tag"]


def test_spaces_and_end_punctuation():
    assert _checks("Open the file.", " Datei öffnen.") == ["leading-space"]
    assert _checks("Open the file. ", "Datei öffnen.") == ["trailing-space"]
    assert _checks("Open the file.", "Datei  öffnen.") == ["double-space"]
    assert _checks("Open the file?", "Datei öffnen.") == ["end-punctuation"]
    assert _checks("Open the file:", "Datei öffnen") == ["end-punctuation"]
    assert _checks("Open the file.", "ファイルを開く。") == []  # 。 is a full stop


def test_length_ratio_only_on_long_enough_sources():
    assert _checks("The file could not be saved to the disk.", "Fehler.") == ["length"]
    assert _checks("OK", "Einverstanden") == []


class Seg:
    def __init__(self, id, src, tgt, status="confirmed"):
        self.id, self.idx, self.status = id, id - 1, status
        self.source, self.target = protect(src), protect(tgt)


def test_consistency_across_segments():
    segs = [Seg(1, "Save", "Speichern"), Seg(2, "Save", "Sichern"), Seg(3, "Store", "Speichern"),
            Seg(4, "Open", "Öffnen")]
    found = [(i.idx + 1, i.check) for i in check_segments(segs)]
    assert (1, "inconsistent-target") in found and (2, "inconsistent-target") in found
    assert (1, "same-target") in found and (3, "same-target") in found
    assert not any(n == 4 for n, _ in found)


def test_checks_can_be_turned_off_per_project():
    segs = [Seg(1, "Open the file?", "Datei öffnen."), Seg(2, "Save %1", "Speichern")]
    everything = {i.check for i in check_segments(segs)}
    assert {"end-punctuation", "missing-tag"} <= everything
    opts = QAOptions.from_setting(QAOptions().with_check("punctuation", False).to_setting())
    found = {i.check for i in check_segments(segs, opts)}
    assert "end-punctuation" not in found and "missing-tag" in found


def test_spelling_without_a_dictionary_is_reported_once():
    segs = [Seg(1, "Open", "Öffnen"), Seg(2, "Save", "Speichern")]
    found = [i for i in check_segments(segs) if i.group == "spelling"]
    assert [i.check for i in found] == ["no-dictionary"]


def test_a_tracked_change_of_the_target_is_not_an_extra_tag():
    """An SDL/memoQ file's target may carry a reviewer's deletion the source has not."""
    from engine.inline import Tag, TaggedText, tag_char

    s = protect("Open the file.")
    deleted = Tag(7, "ph", '<mrk mtype="x-sdl-deleted">alte </mrk>', "deleted", attrs={"mtype": "x-sdl-deleted"})
    t = TaggedText(f"Öffnen Sie die {tag_char(7)}Datei.", (deleted,))
    assert check_segment(1, 0, s, t) == []
    stray = Tag(7, "ph", "<x/>", "x7")
    assert [i.check for i in check_segment(1, 0, s, TaggedText(t.text, (stray,)))] == ["extra-tag"]


def test_a_word_or_phrase_written_twice_in_a_row_is_found_unless_the_source_repeats_too():
    from engine.inline import TaggedText
    from engine.qa import check_segment

    def found(src, tgt):
        return [i.message for i in check_segment(1, 0, TaggedText(src), TaggedText(tgt)) if i.check == "repeated-word"]

    assert found("Customise the individual settings.", "Passen Sie die individuelle individuelle individuelle "
                 "Einstellungen an.") == ["'individuelle' is written twice in a row"]
    assert found("Save the changes of the file.", "Speichern der Datei der Datei.") == ["'der Datei' is written twice in a row"]
    assert found("Very, very good.", "Sehr sehr gut.") == ["'Sehr' is written twice in a row"]
    assert found("Very very good.", "Sehr sehr gut.") == []                 # the source repeats too
    assert found("The one that I mean.", "Die, die ich meine.") == []       # a comma between: grammar
    assert found("We get up.", "Nous nous levons.") == []                   # a French reflexive
    assert found("Page 1 1", "Seite 1 1") == []                             # numbers are the numbers check's
