"""Dialogs of the editor: new project, TM import/export, statistics, QA, fine-tune, settings."""
