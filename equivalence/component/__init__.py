"""The proof of a component extraction (`python -m equivalence --component CLASS.ATTR`): sequences
of calls of the moved methods on both versions, in one world (`run`), construction compared,
each moved body checked statically against its origin (`static`), mutants (`mutants`)."""
