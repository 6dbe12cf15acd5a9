"""The generic equivalence engine: prove that any extraction of `CLASS.METHOD` kept its
behaviour, with nothing hand-written about the method.

Static modules (pure `ast`, no loading, no torch):
- `locate`: where a version keeps the method's logic (method, wrapper, moved function, call
  sites, the call of the extracted function and how its result is applied);
- `static_check`: the moved code against the old body, modulo the substitution map, and the
  moved module-level constants value for value;
- `mutate`: generic mutants of the moved function and the wrapper, as file overrides.

Running: `stubs` (sglang neighbours stubbed at import), `faithful` (helpers run as sglang
does), `coverage` (branch coverage), `trees` (versions in temporary trees).
"""
