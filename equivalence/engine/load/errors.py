"""The load stage's error, importable without torch (the command line checks paths before importing it)."""


class LoadError(Exception):
    """The version cannot be loaded; the message names the file and line."""
