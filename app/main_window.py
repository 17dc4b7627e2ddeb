"""The main window: a segment grid over one document of a project."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QStyledItemDelegate,
    QTableView,
    QToolBar,
)

from engine.errors import VersoError
from engine.store import Project

from app.segment_model import COL_SOURCE, COL_STATUS, COL_TARGET, SegmentTableModel


class TargetDelegate(QStyledItemDelegate):
    """Edits a target in a multi-line box; Enter inserts nothing (Ctrl+Enter confirms)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.editor: QPlainTextEdit | None = None

    def createEditor(self, parent, option, index):  # noqa: N802
        ed = QPlainTextEdit(parent)
        ed.setTabChangesFocus(True)
        ed.installEventFilter(self)
        self.editor = ed
        ed.destroyed.connect(lambda *_: setattr(self, "editor", None))
        return ed

    def setEditorData(self, editor, index):  # noqa: N802
        editor.setPlainText(index.data(Qt.EditRole) or "")
        editor.moveCursor(editor.textCursor().MoveOperation.End)

    def setModelData(self, editor, model, index):  # noqa: N802
        model.setData(index, editor.toPlainText(), Qt.EditRole)

    def eventFilter(self, obj, event):  # noqa: N802
        if event.type() == QEvent.KeyPress and event.key() in (Qt.Key_Return, Qt.Key_Enter):
            if event.modifiers() & Qt.ControlModifier:
                return False  # let the window's Confirm action take it
            if not event.modifiers() & Qt.ShiftModifier:
                self.commitData.emit(obj)
                self.closeEditor.emit(obj)
                return True
        return super().eventFilter(obj, event)

    def commit_open_editor(self) -> None:
        """Write what is typed in an open editor to the model (before confirming)."""
        if self.editor is not None:
            self.commitData.emit(self.editor)


class MainWindow(QMainWindow):
    def __init__(self, project: Project | None = None):
        super().__init__()
        self.project: Project | None = None
        self.model: SegmentTableModel | None = None
        self.resize(1200, 760)

        self.table = QTableView(self)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setWordWrap(True)
        self.table.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                                   | QAbstractItemView.AnyKeyPressed)
        self.table.verticalHeader().setVisible(False)
        self.delegate = TargetDelegate(self.table)
        self.table.setItemDelegateForColumn(COL_TARGET, self.delegate)
        self.setCentralWidget(self.table)

        self.doc_combo = QComboBox(self)
        self.doc_combo.currentIndexChanged.connect(self._on_document_chosen)
        self.counts_label = QLabel(self)
        self.statusBar().addPermanentWidget(self.counts_label)

        self._build_actions()
        if project is not None:
            self.set_project(project)
        else:
            self.setWindowTitle("Verso")

    # ------------------------------------------------------------ actions
    def _action(self, text: str, slot, shortcut=None, menu=None) -> QAction:
        a = QAction(text, self)
        if shortcut:
            a.setShortcuts(shortcut if isinstance(shortcut, list) else [QKeySequence(shortcut)])
            a.setShortcutContext(Qt.WindowShortcut)
        a.triggered.connect(slot)
        if menu is not None:
            menu.addAction(a)
        self.addAction(a)
        return a

    def _build_actions(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        self.act_open = self._action("&Open Project…", self.open_project_dialog, QKeySequence.Open, file_menu)
        self.act_import = self._action("&Import Document…", self.import_document_dialog, "Ctrl+Shift+O", file_menu)
        self.act_export = self._action("&Export Translated Document…", self.export_document_dialog,
                                       "Ctrl+Shift+E", file_menu)
        file_menu.addSeparator()
        self._action("&Quit", self.close, QKeySequence.Quit, file_menu)

        seg_menu = mb.addMenu("&Segment")
        self.act_confirm = self._action(
            "&Confirm and Go to Next Unconfirmed", self.confirm_and_next,
            [QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")], seg_menu)
        self.act_prev = self._action("&Previous Segment", lambda: self.move(-1), "Ctrl+Up", seg_menu)
        self.act_next = self._action("&Next Segment", lambda: self.move(+1), "Ctrl+Down", seg_menu)
        self.act_copy_source = self._action("Copy &Source to Target", self.copy_source, "Ctrl+Insert", seg_menu)

        tb = QToolBar("Document", self)
        tb.setObjectName("documentToolbar")
        tb.addWidget(QLabel(" Document: "))
        tb.addWidget(self.doc_combo)
        tb.addAction(self.act_confirm)
        self.addToolBar(tb)

    # ------------------------------------------------------------ project
    def set_project(self, project: Project) -> None:
        if self.project is not None and self.project is not project:
            self.project.close()
        self.project = project
        self.setWindowTitle(f"{project.name} [{project.src_lang} → {project.tgt_lang}] — Verso")
        self.doc_combo.blockSignals(True)
        self.doc_combo.clear()
        for d in project.documents():
            self.doc_combo.addItem(d.name, d.id)
        self.doc_combo.blockSignals(False)
        if self.doc_combo.count():
            self.doc_combo.setCurrentIndex(0)
            self._on_document_chosen(0)

    def _on_document_chosen(self, i: int) -> None:
        if self.project is None or i < 0:
            return
        self.show_document(self.doc_combo.itemData(i))

    def show_document(self, document_id: int) -> None:
        self.model = SegmentTableModel(self.project, document_id, self)
        self.model.segmentChanged.connect(lambda _row: self._update_counts())
        self.table.setModel(self.model)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        hh.setSectionResizeMode(COL_SOURCE, QHeaderView.Stretch)
        hh.setSectionResizeMode(COL_TARGET, QHeaderView.Stretch)
        hh.setSectionResizeMode(COL_STATUS, QHeaderView.ResizeToContents)
        self.table.resizeRowsToContents()
        first = self.model.next_unconfirmed(-1)
        self.go_to(first if first is not None else 0)
        self._update_counts()

    def _update_counts(self) -> None:
        if self.project is None or self.model is None:
            return
        c = self.project.counts(self.model.document_id)
        total = sum(c.values())
        self.counts_label.setText(f"{c['confirmed']}/{total} confirmed · {c['draft']} draft · {c['new']} new")

    # --------------------------------------------------------- navigation
    def current_row(self) -> int:
        idx = self.table.currentIndex()
        return idx.row() if idx.isValid() else 0

    def go_to(self, row: int, edit: bool = True) -> None:
        if self.model is None or not self.model.rowCount():
            return
        row = max(0, min(row, self.model.rowCount() - 1))
        idx = self.model.index(row, COL_TARGET)
        self.table.setCurrentIndex(idx)
        self.table.scrollTo(idx)
        if edit:
            self.table.edit(idx)

    def move(self, delta: int) -> None:
        self.delegate.commit_open_editor()
        self.go_to(self.current_row() + delta)

    def confirm_and_next(self) -> None:
        """Ctrl+Enter: save what is typed, confirm, go to the next unconfirmed segment."""
        if self.model is None:
            return
        self.delegate.commit_open_editor()
        row = self.current_row()
        seg = self.model.segment(row)
        if not seg.target.plain().strip() and not seg.target.tag_count:
            self.statusBar().showMessage(f"Segment {row + 1} has no translation to confirm.", 4000)
            return
        try:
            self.model.confirm(row)
        except VersoError as e:
            QMessageBox.critical(self, "Verso", str(e))
            return
        self.table.resizeRowToContents(row)
        nxt = self.model.next_unconfirmed(row)
        if nxt is None:
            self.statusBar().showMessage("All segments are confirmed.", 5000)
            self.go_to(row, edit=False)
        else:
            self.go_to(nxt)

    def copy_source(self) -> None:
        if self.model is None:
            return
        row = self.current_row()
        seg = self.model.segment(row)
        self.model.setData(self.model.index(row, COL_TARGET), seg.source.display())
        self.go_to(row)

    # ------------------------------------------------------------ dialogs
    def open_project_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open Verso project")
        if folder:
            self.open_project(Path(folder))

    def open_project(self, folder: Path) -> None:
        try:
            self.set_project(Project.open(folder))
        except VersoError as e:
            QMessageBox.critical(self, "Verso", str(e))

    def import_document_dialog(self) -> None:
        if self.project is None:
            return
        path, _ = QFileDialog.getOpenFileName(
            self, "Import document", "", "Documents (*.txt *.xlf *.xliff *.sdlxliff *.mqxliff *.po *.pot *.csv *.tsv)")
        if path:
            self.import_document(Path(path))

    def import_document(self, path: Path) -> int | None:
        try:
            doc_id = self.project.import_document(path)
        except VersoError as e:
            QMessageBox.critical(self, "Verso", str(e))
            return None
        self.doc_combo.addItem(path.name, doc_id)
        self.doc_combo.setCurrentIndex(self.doc_combo.count() - 1)
        return doc_id

    def export_document_dialog(self) -> None:
        if self.project is None or self.model is None:
            return
        info = self.project.document(self.model.document_id)
        path, _ = QFileDialog.getSaveFileName(self, "Export translated document", info.name)
        if path:
            try:
                self.project.export_document(info.id, path)
                self.statusBar().showMessage(f"Exported to {path}", 5000)
            except VersoError as e:
                QMessageBox.critical(self, "Verso", str(e))

    def closeEvent(self, event) -> None:  # noqa: N802
        self.delegate.commit_open_editor()
        if self.project is not None:
            self.project.close()
            self.project = None
        super().closeEvent(event)


__all__ = ["MainWindow"]
