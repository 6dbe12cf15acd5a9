"""The load stage's error, importable without torch (the command line checks paths before importing it)."""


class LoadError(Exception):
    """The version cannot be loaded; the message names the file and line."""


class CouldNotImport(LoadError):
    """A module of the version raised while being imported (file and line named): the tree is
    fine as input, but its code cannot run here, so the check of its pairs could not run."""
