"""Where the versions a check compares come from: temporary copies made by a codemod step by step,
and revisions of a git checkout (read with git, never checked out)."""
