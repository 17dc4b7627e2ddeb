"""The dockable panels: TM matches, suggestion, alignment, concordance."""
