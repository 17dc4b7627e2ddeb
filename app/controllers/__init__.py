"""The editor's feature controllers: each owns one job and the actions of the action table
(``app/actions.py``) that name it; the window (``app/main_window.py``) only builds the
widgets, docks and menus and hands every action to its controller.

==============  ==============================================================================
documents       project and documents: new, open, recent, import, choose, the counts
nav             moving between segments, the open target box, autosave, entering a segment
editing         insertions, Ctrl+Z in the segment, document steps, confirm, propagation;
                its ``locking`` (locking.py): Lock/Unlock Segment, Lock 100 % Matches;
                its ``splitjoin`` (splitjoin.py): Split Segment, Join with Next, their undo
search          find, replace and filters
memory          TM and glossary: the TM thread, matches, concordance, TMX, terms; Tools ▸ TM
                Editor (its dialog's controller: tm_editor.py)
glossaries      Glossary ▸ Import Glossary and Attach Glossary Folder (glossary.py)
pretranslation  Tools ▸ Pre-translate on the TM thread, progress and Cancel (pretranslate.py)
delivery        QA, spelling, statistics, preview and export; its ``marks`` (qa_marks.py): the grid's
                QA marks, the QA check run off the UI thread after each change
machine         suggestions, completion, alignment, training and models
help            settings, keyboard shortcuts, about
comments        the Comments dock: add, edit, resolve, reopen, delete; the grid's marks
==============  ==============================================================================

A controller reaches the shared state (``project``, ``model``, ``tm``, ``nmt``, the grid and the
panels) and the other controllers through the window; it never builds a dock or a menu
other than the menu placeholders (:class:`~app.actions.Placeholder`) it owns.
"""
