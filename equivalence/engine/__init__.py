"""The generic equivalence engine: prove that any extraction of `CLASS.METHOD` kept its
behaviour, with nothing hand-written about the method. In the order a check runs:

- `locate` (ast only): where a version keeps the method's logic (method, static method, moved
  function, wrapper, call sites, the call of the extracted function);
- `load`: the version's real modules executed with the rest of the package stubbed (`stubs`,
  `faithful` helpers run as sglang does), and what its code reads from outside itself
  (`inputs`: globals by origin, environment, absent-able attributes, the strings and ints it
  compares with; `bindings`, `literals`, `modules`, `blocks` help);
- `world` / `standins`: one answer per access path, shared by both versions; stand-ins that
  record what each key needs;
- `explore`: the configurations, from the defaults and the code's demands;
- `observe`: one run of one version (events, exception, return, state);
- `compare`: equal, deferred-writes, eager-read, or a divergence;
- `coverage`: branch coverage of the code that ran;
- `pairs`: a pair explored, compared and covered;
- `static_check` (with `substitution`, `constants`): the moved code against the old body;
- `mutate` (with `mutations`): generic mutants, for the self-check;
- `check`: versions -> pairs -> mutants -> `report` (JSON, Markdown, terminal);
- `trees`: versions made by a codemod, in temporary copies.
"""
