"""Settings ▸ Sentence rules: the SRX rules a language is segmented with, read-only, with where they come
from (Verso's default.srx, or the project's own file from ``verso seg import-srx``)."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from engine.segmentation.srx import SRX, default_rules

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ja", "zh")


def project_rules_or_default(project) -> tuple[SRX, str]:
    """The rules new documents of ``project`` are segmented with, and an error line when the project's
    own file cannot be read (then the default rules are shown)."""
    if project is None:
        return default_rules(), ""
    from engine.errors import VersoError
    from engine.store.segrules import project_rules

    try:
        return project_rules(project) or default_rules(), ""
    except VersoError as e:
        return default_rules(), str(e)


def rules_text(rules: SRX, lang: str) -> str:
    """One line a rule, in the order they are tried: break or not, before and after the break."""
    lines = [f"Rule sets: {' + '.join(rules.names_for(lang)) or 'none'}"]
    for r in rules.rules_for(lang):
        lines.append(f"{'break   ' if r.brk else 'no break'}  before: {r.before or '(anything)'}   "
                     f"after: {r.after or '(anything)'}   (line {r.line})")
    return "\n".join(lines)


class SentenceRulesView(QWidget):
    """A language chooser over a read-only list of its rules."""

    def __init__(self, project=None, parent=None):
        super().__init__(parent)
        self.rules, problem = project_rules_or_default(project)
        self.lang = QComboBox(self)
        first = getattr(project, "src_lang", "") or "en"
        for code in dict.fromkeys((first, *LANGUAGES)):
            self.lang.addItem(code, code)
        self.source = QLabel(f"From {self.rules.source}" + (f" ({problem})" if problem else ""), self)
        self.source.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.text.setMinimumHeight(120)
        self.lang.currentIndexChanged.connect(self.show_language)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        for w in (self.lang, self.source, self.text):
            box.addWidget(w)
        self.show_language()

    def show_language(self, *_args) -> None:
        self.text.setPlainText(rules_text(self.rules, self.lang.currentData() or "en"))
