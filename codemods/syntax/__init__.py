"""LibCST helpers the refactorings edit code with: nodes, import statements and their placement,
TYPE_CHECKING blocks, f-strings, byte-exact text edits."""
