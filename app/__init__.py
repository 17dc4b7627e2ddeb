"""Verso's desktop shell (PySide6).  It calls the engine; the engine never calls it."""
