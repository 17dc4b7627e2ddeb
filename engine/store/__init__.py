"""The project store (SQLite in WAL mode through sqlite-utils).  No torch, no Qt."""
from engine.store.project import DocumentInfo, Project, Segment

__all__ = ["Project", "Segment", "DocumentInfo"]
