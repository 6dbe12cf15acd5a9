"""The source layer both packages read an sglang tree through, by Python's `ast` alone.

`layout` (where the package is, given the PATH a user typed), `checkout` (its files, read once),
`modules` (dotted names and files), `imports` and `bindings` (what a name stands for),
`names` (the names code binds and reads), `classes` (a class, its members and bases),
`extraction` (where a version keeps a method's logic: the shapes an extraction goes through),
`receivers` (what an expression is an instance of), `text_search` (a pattern tried only near the
name it spells), `parsing` (each text parsed once per run), `commands` (a command's one line
on a Ctrl-C while it imports).
Nothing here imports LibCST, torch, or the codemods and the harness that use it.
"""
