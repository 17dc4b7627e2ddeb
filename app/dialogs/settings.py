"""Settings: keyboard preset, TM matches shown, auto-propagation, NMT beam/threads/TM pairs read and their
minimum match/int8 (QSettings)."""
from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QSpinBox

from app import keymap


class SettingsDialog(QDialog):
    def __init__(self, parent=None):
        from app.main_window import MEMORY_PAIRS, settings
        from engine.nmt.retrieval import MEMORY_MIN_SCORE

        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.s = settings()
        self.preset = QComboBox(self)
        for key, name in keymap.PRESET_NAMES.items():
            self.preset.addItem(name, key)
        self.preset.setCurrentIndex(max(0, self.preset.findData(self.s.value("keys/preset", keymap.DEFAULT_PRESET))))
        self.matches = QSpinBox(self)
        self.matches.setRange(1, 9)
        self.matches.setValue(int(self.s.value("tm/matches", 5)))
        self.propagate = QCheckBox("Fill identical unconfirmed segments when one is confirmed", self)
        self.propagate.setChecked(self.s.value("edit/propagate", "true") == "true")
        self.complete = QCheckBox("Complete my typing from the machine suggestion", self)
        self.complete.setChecked(self.s.value("nmt/complete", "true") == "true")
        self.beam = QSpinBox(self)
        self.beam.setRange(1, 12)
        self.beam.setValue(int(self.s.value("nmt/beam", 5)))
        self.threads = QSpinBox(self)
        self.threads.setRange(0, 64)
        self.threads.setSpecialValueText("automatic")
        self.threads.setValue(int(self.s.value("nmt/threads", 0)))
        self.memory_pairs = QSpinBox(self)
        self.memory_pairs.setRange(1, 9)
        self.memory_pairs.setValue(int(self.s.value("nmt/memory_pairs", MEMORY_PAIRS)))
        self.memory_pairs.setToolTip("How many of the best TM matches a memory-guided model reads for its suggestion")
        self.memory_min = QSpinBox(self)
        self.memory_min.setRange(30, 100)  # the TM lookup itself stops at 30 %
        self.memory_min.setSuffix(" %")
        self.memory_min.setValue(int(self.s.value("nmt/memory_min_score", round(MEMORY_MIN_SCORE * 100))))
        self.memory_min.setToolTip("A TM match scoring less is shown but not read by the memory-guided model")
        self.quantize = QCheckBox("Quantise the model to int8 on the CPU (about 2-3x faster suggestions)", self)
        self.quantize.setChecked(self.s.value("nmt/quantize", "true") == "true")
        form = QFormLayout(self)
        form.addRow("Keyboard preset", self.preset)
        form.addRow("TM matches shown", self.matches)
        form.addRow("Auto-propagation", self.propagate)
        form.addRow("Interactive translation", self.complete)
        form.addRow("NMT beam width", self.beam)
        form.addRow("NMT CPU threads", self.threads)
        form.addRow("TM matches the NMT reads", self.memory_pairs)
        form.addRow("Minimum match the NMT reads", self.memory_min)
        form.addRow("NMT speed", self.quantize)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def accept(self) -> None:
        self.s.setValue("keys/preset", self.preset.currentData())
        self.s.setValue("tm/matches", self.matches.value())
        self.s.setValue("edit/propagate", "true" if self.propagate.isChecked() else "false")
        self.s.setValue("nmt/complete", "true" if self.complete.isChecked() else "false")
        self.s.setValue("nmt/beam", self.beam.value())
        self.s.setValue("nmt/threads", self.threads.value())
        self.s.setValue("nmt/memory_pairs", self.memory_pairs.value())
        self.s.setValue("nmt/memory_min_score", self.memory_min.value())
        self.s.setValue("nmt/quantize", "true" if self.quantize.isChecked() else "false")
        super().accept()
