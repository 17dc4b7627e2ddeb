"""See README.md in this folder."""
