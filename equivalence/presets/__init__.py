"""Checks specific to one refactoring: each preset names its inputs, findings and mutants."""
