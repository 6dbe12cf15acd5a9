"""A pair's entry in the report, typed: what its check found. `to_json` is its part of the JSON
contract (written by `Report.to_json`); `from_json` reads it back (a check answered from a child
process, a saved report)."""

from __future__ import annotations

from dataclasses import dataclass, fields

Entries = tuple[dict, ...]  # the JSON entry of each kind of difference (report._entry)

INPUTS_LISTED = 1000  # inputs a pair's entry lists, in the order the runs first read them
INPUT_KEY_CHARS = 300  # ... each named in at most this many characters (a key derived again and again
# in a loop, `text[1:][1:]...`, grows with every turn: listed whole, one check's JSON took 180 MB)


def listed_inputs(options: dict[str, list]) -> tuple[dict[str, list], int | None]:
    """The inputs a pair's entry lists (key -> the options tried, described) and how many it
    leaves out (None: none); the runs themselves used every one."""
    kept = {k: v for k, v in options.items() if len(k) <= INPUT_KEY_CHARS}
    kept = dict(list(kept.items())[:INPUTS_LISTED])
    return kept, (len(options) - len(kept)) or None


@dataclass(frozen=True, kw_only=True)
class PairEntry:
    """One pair of versions checked, its fields in the order its JSON writes them. A field left
    None is not written: `found` (neither version inherits the method), `could_not_run`,
    `untold_residuals` (none, or the pair is divergent), `imported_with` and `imported_without`
    (nothing assumed or left out at import), `inputs_left_out` (every input listed), `intended`
    (not a fix's pair), `component` (not a --component check)."""

    before: str
    after: str
    shapes: dict  # {"before": shape, "after": shape}; {} when the versions could not run
    found: dict | None = None  # where each version's class finds the method
    verdict: str
    could_not_run: str | None = None
    untold_residuals: Entries | None = None
    imported_with: dict | None = None
    imported_without: dict | None = None
    configs: int
    budget_reached: bool
    divergences: Entries
    classified: Entries
    not_modelled: Entries
    coverage: dict  # side -> Coverage.to_json()
    inputs: dict  # key -> the options tried, described (listed_inputs)
    inputs_left_out: int | None = None  # inputs the runs read that `inputs` does not list
    static: dict  # StaticReport.to_json(), or {"error": why it was not done}
    intended: Entries | None = None  # a fix's pair: its delta against what its finding names
    component: dict | None = None  # the methods the sequences call, the state moved

    def to_json(self) -> dict:
        return {f.name: list(value) if isinstance(value, tuple) else value
                for f in fields(self) if (value := getattr(self, f.name)) is not None}

    @classmethod
    def from_json(cls, entry: dict) -> PairEntry:
        """The entry `to_json` wrote; a key an entry written by hand leaves out reads as empty."""
        empty = {"before": "", "after": "", "shapes": {}, "configs": 0, "budget_reached": False, "divergences": (),
                 "classified": (), "not_modelled": (), "coverage": {}, "inputs": {}, "static": {}}
        values = {f.name: entry.get(f.name, empty.get(f.name)) for f in fields(cls)}
        return cls(**{name: tuple(v) if isinstance(v, list) else v for name, v in values.items()})
