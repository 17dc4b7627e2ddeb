"""Settings: your name (TM units, TM edits and comments are signed with it), keyboard preset, TM matches
shown, auto-propagation, NMT beam/threads/TM pairs read and their minimum match/int8, the memory that reads them, tag errors at confirm (the translator's own preferences, app/preferences.py); the sentence rules in use,
read-only (app/dialogs/seg_rules.py)."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
)

from app import keymap
from app.dialogs.seg_rules import SentenceRulesView
from app.preferences import preferences
from engine.glossary.model import TERMS_MODES

#: What the dialog calls each of the engine's glossary modes (:data:`engine.glossary.model.TERMS_MODES`).
TERMS_MODE_LABELS = {"off": "No", "prefer": "Prefer them (a hint)", "enforce": "Always (every term)"}


class SettingsDialog(QDialog):
    def __init__(self, parent=None, memory_in_use: str = ""):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.p = p = preferences()
        self.user_name = QLineEdit(p.user_name, self)
        self.user_name.setToolTip("TM units you confirm, your TM edits and your comments are signed with this name "
                                  "(empty: your login name, or $VERSO_USER)")
        self.preset = QComboBox(self)
        for key, name in keymap.PRESET_NAMES.items():
            self.preset.addItem(name, key)
        self.preset.setCurrentIndex(max(0, self.preset.findData(p.preset)))
        self.matches = QSpinBox(self)
        self.matches.setRange(1, 9)
        self.matches.setValue(p.tm_matches)
        self.propagate = QCheckBox("Fill identical unconfirmed segments when one is confirmed", self)
        self.propagate.setChecked(p.propagate)
        self.complete = QCheckBox("Complete my typing from the machine suggestion", self)
        self.complete.setChecked(p.complete)
        self.beam = QSpinBox(self)
        self.beam.setRange(1, 12)
        self.beam.setValue(p.beam)
        self.threads = QSpinBox(self)
        self.threads.setRange(0, 64)
        self.threads.setSpecialValueText("automatic")
        self.threads.setValue(p.threads)
        self.memory_pairs = QSpinBox(self)
        self.memory_pairs.setRange(1, 9)
        self.memory_pairs.setValue(p.memory_pairs)
        self.memory_pairs.setToolTip("How many of the best TM matches a memory-guided model reads for its suggestion")
        self.memory_min = QSpinBox(self)
        self.memory_min.setRange(30, 100)  # the TM lookup itself stops at 30 %
        self.memory_min.setSuffix(" %")
        self.memory_min.setValue(p.memory_min_score)
        self.memory_min.setToolTip("A TM match scoring less is shown but not read by the memory-guided model")
        self.quantize = QCheckBox("Quantise the model to int8 on the CPU (about 2-3x faster suggestions)", self)
        self.quantize.setChecked(p.quantize)
        self.glossary_terms = QComboBox(self)
        for mode in TERMS_MODES:
            self.glossary_terms.addItem(TERMS_MODE_LABELS.get(mode, mode), mode)
        self.glossary_terms.setCurrentIndex(max(0, self.glossary_terms.findData(p.glossary_terms)))
        self.glossary_terms.setToolTip("The target terms of the project's glossaries found in a source: in its "
                                       "machine suggestion always, as a preference, or not at all")
        self.memory_mode = QComboBox(self)
        for mode, label in (("auto", "Automatic (the model's best)"), ("knn", "Nearest neighbours (any model)"),
                            ("learned", "Learned memory (SEG-NMT models)"), ("none", "None")):
            self.memory_mode.addItem(label, mode)
        self.memory_mode.setCurrentIndex(max(0, self.memory_mode.findData(p.memory_mode)))
        self.memory_mode.setToolTip("How the machine suggestion copies from the TM matches it reads"
                                    + (f"; in use now: {memory_in_use}" if memory_in_use else ""))
        self.memory_in_use = QLabel(f"In use now: {memory_in_use}" if memory_in_use else "", self)
        self.refuse_tags = QCheckBox("Refuse to confirm a segment with tag errors (instead of asking)", self)
        self.refuse_tags.setChecked(p.refuse_tag_errors)
        form = QFormLayout(self)
        form.addRow("Your &name", self.user_name)
        form.addRow("Keyboard preset", self.preset)
        form.addRow("TM matches shown", self.matches)
        form.addRow("Auto-propagation", self.propagate)
        form.addRow("Interactive translation", self.complete)
        form.addRow("NMT beam width", self.beam)
        form.addRow("NMT CPU threads", self.threads)
        form.addRow("TM matches the NMT reads", self.memory_pairs)
        form.addRow("Minimum match the NMT reads", self.memory_min)
        form.addRow("NMT speed", self.quantize)
        form.addRow("Memory in suggestions", self.memory_mode)
        if memory_in_use:
            form.addRow("", self.memory_in_use)
        form.addRow("Use glossary terms in suggestions", self.glossary_terms)
        form.addRow("Tag errors", self.refuse_tags)
        self.sentence_rules = SentenceRulesView(getattr(parent, "project", None), self)  # read-only
        form.addRow("Sentence rules", self.sentence_rules)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def accept(self) -> None:
        p = self.p
        if self.user_name.text().strip() != p.user_name:  # unchanged: the default keeps following the login
            p.user_name = self.user_name.text().strip()
        p.preset = self.preset.currentData()
        p.tm_matches = self.matches.value()
        p.propagate = self.propagate.isChecked()
        p.complete = self.complete.isChecked()
        p.beam = self.beam.value()
        p.threads = self.threads.value()
        p.memory_pairs = self.memory_pairs.value()
        p.memory_min_score = self.memory_min.value()
        p.quantize = self.quantize.isChecked()
        p.refuse_tag_errors = self.refuse_tags.isChecked()
        p.glossary_terms = self.glossary_terms.currentData()
        p.memory_mode = self.memory_mode.currentData()
        super().accept()
