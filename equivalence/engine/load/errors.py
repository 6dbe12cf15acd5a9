"""The load stage's error, importable without torch (the command line checks paths before importing it)."""


class LoadError(Exception):
    """The version cannot be loaded; the message names the file and line."""


class CouldNotImport(LoadError):
    """A module of the version raised while being imported (file and line named): the tree is
    fine as input, but its code cannot run here, so the check of its pairs could not run.
    `side_effect`: the line of the module-level statement that raised, when it is a bare call
    reading a stub (`asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())`), which binds no
    name the code under test could read: the import can go on without it."""

    def __init__(self, message: str, side_effect: int | None = None):
        super().__init__(message)
        self.side_effect = side_effect
