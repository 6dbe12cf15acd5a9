"""The generic equivalence engine: prove that any extraction of `CLASS.METHOD` kept its
behaviour, with nothing hand-written about the method. Its stages, in the order a check runs
(where a version keeps the method's logic is `pysource.extraction`):

- `load/`: the version's real modules executed with the rest of the package stubbed (`stubs`,
  `faithful` helpers run as sglang does, `run_imports` for imports the code runs), and what its
  code reads from outside itself (`inputs`, `literals`, `defaults`);
- `world/`: one answer per access path, shared by both versions (`world`); stand-ins that
  record what each key needs (`standins`);
- `run/`: the configurations (`explore`), one run of one version (`observe`), branch coverage
  (`coverage`), a pair explored, compared and covered (`pairs`);
- `judge/`: equal, deferred-writes, eager-read, or a divergence (`compare`); the moved code
  against the old body (`static_check`, with `substitution` and `constants`);
- `selfcheck/`: generic mutants (`mutate`, `mutations`);
- `report/`: JSON, Markdown, terminal (`report`), a pull request comment's size (`pr_comment`);
- `check`: versions -> pairs -> mutants -> report.
"""
