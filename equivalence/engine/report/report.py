"""The report of a method check: JSON (the contract other tools read), Markdown for a PR comment,
and a short terminal summary. Built only from the results; computes nothing itself."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

from equivalence.engine.judge.compare import CLASSIFIED, NOT_MODELLED, is_divergence
from equivalence.engine.run.explore import size
from equivalence.engine.run.observe import Observation
from equivalence.engine.run.pairs import PairResult, smallest
from equivalence.engine.judge.static_check import StaticReport, inline_code, to_markdown
from equivalence.engine.world.world import describe
from equivalence.engine.report.models import PairEntry, listed_inputs
from equivalence.engine.report.verdict import COULD_NOT_RUN, Report
from equivalence.engine.results import Checked, NotRun


EXPLAIN = {
    "deferred-writes": "the function returns its results and the caller applies them: those writes (and "
    "calls) come after the function's other effects, in the same order, and not at all when it raises",
    "reordered-independent-effects": "the same effects, independent ones in another order (writes of distinct "
    "attributes; a write and a call that is not the instance's, given only plain values): the harness's stand-ins "
    "cannot see the order",
    "abandoned-instance-writes": "the constructor raises the same in both versions, leaving no instance behind: "
    "its writes to the instance's own attributes cannot be seen (the instance was given to nothing before)",
    "eager-read": "the caller reads (or calls) up front, to pass them, instance attributes the old body "
    "used on some paths only; with such an attribute missing it fails before doing anything",
    NOT_MODELLED: "the code reached a value the harness only stubs (no input stands for it), or a run went past "
    "the time allowed to one run and was stopped: not checked",
    "different-outcome": "one version raises where the other does not, or another exception type",
    "different-exception-message": "both raise the same exception type with different messages",
    "different-return": "the versions return different values",
    "different-handed-on": "the call site leaves different values in the locals the rest of its method goes on to use",
    "different-writes": "the versions write different attributes or values",
    "different-calls": "the versions call different functions or with different arguments",
    "different-logs": "the versions log different records",
    "different-effect-order": "the same effects in another order",
    "different-state": "the instance ends in a different state",
    "changed-module-global": "a module global the moved code reads is bound differently (static check)",
}


def _example(config: dict) -> dict:
    return {k: describe(o) for k, o in config.items()}


@dataclass
class Render:
    """How a report shows a configuration and an observation (a preset names its own)."""

    example: Callable[[dict], dict] = _example
    summary: Callable[[Observation], dict] = Observation.summary
    explain: dict = field(default_factory=lambda: EXPLAIN)
    rank: Callable[[dict], tuple] | None = None  # smaller = simpler (default: fewest non-default choices)


def verdict_line(report: dict) -> str:
    """The verdict in words (a report made before `verdict_line` existed: its verdict)."""
    return report.get("verdict_line", report["verdict"])


def _entry(result: PairResult, kind: str, render: Render) -> dict:
    diff = result.differences[kind]
    if render.rank is None:
        i = smallest(diff, result.domains)
    else:
        i = min(range(len(diff.configs)), key=lambda n: (render.rank(diff.configs[n]), n))
    before, after = diff.observations[i]
    config = diff.configs[i]
    options = result.domains.options
    raising = {}
    if kind == "eager-read":  # where the argument evaluated up front raises: the inputs, and which argument
        where = [n for n, (_, a) in enumerate(diff.observations) if a.in_arguments]
        if where:
            j = min(where, key=lambda n: (size(diff.configs[n], options), n))
            raising = {"raises": {"count": len(where), "argument": diff.observations[j][1].in_arguments,
                                  "example": render.example(diff.configs[j]),
                                  "choices": {k: describe(o) for k, o in diff.configs[j].items() if options[k][0] != o},
                                  "before": render.summary(diff.observations[j][0]),
                                  "after": render.summary(diff.observations[j][1])}}
    return {
        "kind": kind,
        "count": len(diff.configs),
        "example": render.example(config),
        "choices": {k: describe(o) for k, o in config.items() if options[k][0] != o},
        "size": size(config, options)[0],
        "before": render.summary(before),
        "after": render.summary(after),
        **({"explanation": render.explain[kind]} if kind in render.explain else {}),
        **raising,
    }


def pair_entry(result: PairResult, static: StaticReport | str, render: Render = Render(),
               judge_static: bool = True) -> PairEntry:
    """`judge_static`: a changed module global is a divergence (not so for a fix's pair, whose
    code changes on purpose: running judges its delta)."""
    divergences = sorted((_entry(result, k, render) for k in sorted(result.differences) if is_divergence(k)),
                         key=harness_made)
    classified = [_entry(result, k, render) for k in sorted(result.differences) if k in CLASSIFIED]
    not_modelled = [_entry(result, k, render) for k in sorted(result.differences) if k == NOT_MODELLED]
    verdict = result.verdict
    if judge_static and isinstance(static, StaticReport) and static.divergent:
        changed = [c.to_json() for c in static.constants if not c.equal]
        divergences.append({"kind": "changed-module-global", "count": len(changed), "globals": changed,
                            "explanation": EXPLAIN["changed-module-global"]})
        verdict = "divergent"
    unexplained = untold_residuals(result, static) if judge_static else []
    if unexplained and verdict == "equivalent":
        verdict = "inconclusive"
    inputs, left_out = listed_inputs({k: [describe(o) for o in options] for k, options in result.inputs.items()})
    return PairEntry(
        before=result.before.label,
        after=result.after.label,
        shapes={"before": result.before.ext.shape, "after": result.after.ext.shape},
        found=found_where(result) or None,
        verdict=verdict,
        could_not_run=result.could_not_run or None,
        untold_residuals=tuple(unexplained) if unexplained and verdict != "divergent" else None,
        imported_with=import_assumptions(result) or None,
        imported_without=import_skips(result) or None,
        configs=len(result.configs),
        budget_reached=result.budget_reached,
        divergences=tuple(divergences),
        classified=tuple(classified),
        not_modelled=tuple(not_modelled),
        coverage={k: c.to_json() for k, c in result.coverage.items()},
        inputs=inputs,
        inputs_left_out=left_out,
        static=static.to_json() if isinstance(static, StaticReport) else {"error": static},
    )


def found_where(result: PairResult) -> dict:
    """Where each version's CLASS finds the method, when one of them inherits it (`defined by
    CLASS (module:line)`, `inherited from BASE (module:line)`); else nothing."""
    sides = (result.before.ext, result.after.ext)
    if all(getattr(ext, "inherited", None) is None for ext in sides):
        return {}
    return {"before": sides[0].found_where, "after": sides[1].found_where}


def found_lines(p: dict, lead: str) -> list[str]:
    found = p.get("found")
    return [f"{lead}before: {found['before']}; after: {found['after']}"] if found else []


def harness_made(entry: dict) -> bool:
    """Whether a difference's smallest configuration needs a stand-in (an object the harness made
    up for an input it cannot build): shown after the differences real values show."""
    shown = json.dumps([entry.get("choices"), entry.get("before"), entry.get("after")], default=str)
    return "<stand-in>" in shown or "StandIn" in shown


CORE_ROLE = {"wrapper": "function", "moved": "function", "static": "static method", "method": "method"}


def untold_residuals(result: PairResult, static: StaticReport | str) -> list[dict]:
    """The static check's residual differences the extraction does not explain, when no
    configuration told the versions apart (the pair is not divergent): each with its line and
    why the runs did not settle it. They leave the verdict inconclusive, never equivalent."""
    if not isinstance(static, StaticReport) or result.divergent:
        return []
    lines = result.coverage.get("after").lines.get(CORE_ROLE.get(result.after.ext.shape, ""), set()) \
        if result.coverage.get("after") else set()
    out = []
    for r in static.residuals:
        if r.explained:
            continue
        where = f"L{r.after_line}" if r.after_line else f"L{r.before_line} (before)"
        if r.kind == "call-site":  # a line of the class's file, which the runs do not execute
            out.append({"line": where, "kind": r.kind, "before": r.before, "after": r.after,
                        "why": f"{r.note}; the runs execute the first call site only"})
            continue
        ran = r.after_line in lines if r.after_line else None
        why = ("the line ran, but no configuration told the versions apart there: the values tried never "
               "make the two differ" if ran else "the line never ran in the configurations tried" if ran is False
               else "the removed line is not in the after version, and no configuration told the versions apart")
        out.append({"line": where, "kind": r.kind, "before": r.before, "after": r.after, "why": why})
    return out


def import_skips(result: PairResult) -> dict:
    """Per version, the module-level calls on stubs left out of its import (load.version._import)."""
    return {v.label: v.stub_scope.skipped for v in (result.before, result.after) if v.stub_scope.skipped}


def import_assumptions(result: PairResult) -> dict:
    """Per version, the stubbed values its modules' import-time code validated, and the literal
    each was taken to be so that the import went through (load.version._import)."""
    out = {}
    for version in (result.before, result.after):
        scope = version.stub_scope
        if scope.pretend:
            out[version.label] = {name: {"value": repr(v), "compared_with": [repr(c) for c in scope.compared.get(name, [])]}
                                  for name, v in scope.pretend.items()}
    return out


def not_run_entry(pair: NotRun) -> PairEntry:
    """A pair whose versions could not be run at all (a module failed to import): nothing proven."""
    return PairEntry(before=pair.before, after=pair.after, shapes={}, verdict=COULD_NOT_RUN,
                     could_not_run=pair.reason, configs=0, budget_reached=False, divergences=(), classified=(),
                     not_modelled=(), coverage={}, inputs={}, static={"error": pair.reason})


def build(results: list[Checked | NotRun], mutants: dict | None) -> Report:
    pairs = [pair_entry(r.result, r.static) if isinstance(r, Checked) else not_run_entry(r) for r in results]
    return Report.of(pairs, mutants)


def _choices(entry: dict) -> str:
    shown = entry["choices"] or {}
    text = ", ".join(f"{k}={v!r}" for k, v in shown.items()) or "every input at its default"
    defaults = len(entry["example"]) - len(shown)
    return text + (f" (and {defaults} input(s) at their default)" if shown and defaults else "")


def _subjects(report: dict) -> dict[str, str]:
    """Label -> subject, when the versions are revisions of a git checkout (--git, --commits)."""
    revisions = report.get("revisions")
    if not revisions:
        return {}
    return {r["short"]: r["subject"] for r in (revisions["base"], *revisions["checked"])}


def revision_lines(report: dict, code=str) -> list[str]:
    """Which revisions were checked, and which commit introduced a divergence (none without
    --git/--commits); `code` quotes a hash."""
    revisions = report.get("revisions")
    if not revisions:
        return []

    def named(r: dict) -> str:
        return f"{code(r['short'])} {r['subject']}"

    base, checked = revisions["base"], revisions["checked"]
    if revisions["mode"] == "commits":
        lines = [f"Commits {code(revisions['range'])}: {len(checked)}, each against its parent "
                 f"(first-parent chain, oldest first; the first one's parent is {named(base)})."]
    else:
        lines = [f"Revisions {code(revisions['range'])}: {named(base)} against {named(checked[0])}."]
    by_short = {r["short"]: r for r in checked}
    if revisions["introduced_by"]:
        later = [named(by_short[s]) for s in revisions["also_divergent"]]
        lines.append(f"Divergence introduced by {named(by_short[revisions['introduced_by']])}"
                     + (f"; also divergent later: {', '.join(later)}" if later else "") + ".")
    return lines


def compared_lines(report: dict, code=str) -> list[str]:
    """What was compared (the `compared` key the command line adds), with the sglang release of
    each version where known; `code` quotes a path or hash."""
    compared = report.get("compared")
    if not compared:
        return []
    versions = compared["versions"]

    def release(entry: dict) -> str:
        return f" (sglang {entry['sglang_version']})" if "sglang_version" in entry else ""

    if compared["mode"] == "trees":
        return ["Compared " + " with ".join(f"{code(v['path'])}{release(v)}" for v in versions) + "."]
    if compared["mode"] == "steps":
        fixes = f", then its fixes {', '.join(compared['fixes'])}" if compared["fixes"] else ""
        return [f"Compared {code(compared['path'])}{release(versions[0])} with the output of {compared['codemod']} "
                f"on it, step by step and in one run{fixes}."]
    releases = [(v["label"], v.get("sglang_version")) for v in versions]
    if len({r for _, r in releases}) == 1:
        where = release(versions[0])
    else:
        changes = [(label, r) for i, (label, r) in enumerate(releases) if i == 0 or r != releases[i - 1][1]]
        where = " (" + ", ".join(f"sglang {r or 'unknown'} at {code(label)}" for label, r in changes) + ")"
    return [f"Compared revisions of the git checkout {code(compared['repository'])}{where}."]


def _cell(text) -> str:
    return str(text).replace("|", "\\|")


def summary_table(report: dict) -> list[str]:
    """The verdict, the revisions checked (with --git/--commits), what was compared and one row
    per pair: the head of every Markdown report."""
    out = [f"## Equivalence check: **{verdict_line(report)}**", ""]
    for line in revision_lines(report, lambda s: f"`{s}`"):
        out += [f"**{line}**" if line.startswith("Divergence") else line, ""]
    for line in compared_lines(report, lambda s: f"`{s}`"):
        out += [line, ""]
    subjects = _subjects(report)
    out.append("| before | after | configs | verdict | classified differences | branch coverage (before / after) |")
    out.append("|---|---|---|---|---|---|")
    for p in report["pairs"]:
        cov = " / ".join(f"{c['hit']}/{c['branches']}" for c in p["coverage"].values()) or "-"
        cls = ", ".join(f"{c['kind']} ({c['count']})" for c in p["classified"]) or "none"
        after = f"`{p['after']}` {subjects[p['after']]}" if p["after"] in subjects else p["after"]
        out.append(f"| {_cell(p['before'])} | {_cell(after)} | {p['configs']} | {p['verdict']} | {cls} | {cov} |")
    return out


def untold_section(p: dict) -> list[str]:
    """The residual differences no configuration told apart, in Markdown (why inconclusive)."""
    if not p.get("untold_residuals"):
        return []
    out = ["", f"### Not proven: {p['before']} → {p['after']}: residual differences no configuration told apart"]
    for r in p["untold_residuals"]:
        out.append(f"- {r['line']} {r['kind']}: `{' '.join(r['before'].split())}` → `{' '.join(r['after'].split())}`"
                   f": {r['why']}")
    return out


def _named(p: dict) -> str:
    return f"{p['before']} → {p['after']}"


def _first_same(p: dict, earlier: list[dict], value: Callable[[dict], object]) -> dict | None:
    """The first of the `earlier` pairs whose `value` equals this pair's."""
    return next((q for q in earlier if value(q) == value(p)), None)


def _unplaced(entries: list[dict]) -> list[dict]:
    """Entries without the line an argument raised at (a step moves the call: the same difference)."""
    return [{**d, "raises": {**d["raises"], "argument": d["raises"]["argument"].rpartition(": ")[2]}}
            if d.get("raises") else d for d in entries]


def difference_sections(p: dict, example_line: Callable[[dict], str] = _choices, earlier: list[dict] = ()) -> list[str]:
    """A pair's divergences, classified differences and what was not modelled, in Markdown,
    each kind with its smallest configuration (`example_line(entry)`) and both observations.
    Classified differences or what was not modelled that an `earlier` pair had word for word
    name that pair instead; divergences are always shown in full, in each pair they make divergent."""
    out = []
    for title, key in (("Divergences", "divergences"), ("Classified differences", "classified"),
                       ("Not modelled", "not_modelled")):
        entries = p.get(key, [])
        if not entries:
            continue
        out += ["", f"### {title}: {_named(p)}"]
        same = _first_same(p, earlier, lambda q: _unplaced(q.get(key, []))) if key != "divergences" else None
        if same:
            kinds = ", ".join(f"{d['kind']} in {d['count']} configurations" for d in entries)
            out.append(f"- the same as {_named(same)}: {kinds}, with the same smallest configurations and observations")
            continue
        for d in entries:
            out.append(f"- **{d['kind']}** in {d['count']} configurations. " + d.get("explanation", ""))
            for g in d.get("globals", []):
                out.append(f"  - `{g['name']}`: before `{g['before']}`, after `{g['after']}` {g['detail']}")
            if d.get("example") is not None:
                out.append(f"  - smallest: `{example_line(d)}`")
                out.append(f"  - before: `{json.dumps(d['before'])}`")
                out.append(f"  - after: `{json.dumps(d['after'])}`")
            if d.get("raises"):
                r = d["raises"]
                out.append(f"  - raises while evaluating the argument ({r['argument']}) in {r['count']} "
                           f"configurations; smallest: `{example_line(r)}`")
                out.append(f"    - before: `{json.dumps(r['before'])}`")
                out.append(f"    - after: `{json.dumps(r['after'])}`")
    return out


def markdown(report: dict) -> str:
    out = summary_table(report)
    for i, p in enumerate(report["pairs"]):
        if p.get("could_not_run"):
            out += ["", f"### Could not run: {_named(p)}", f"- {p['could_not_run']}"]
        out += found_lines(p, "- where the method is found: ")
        out += untold_section(p)
        out += difference_sections(p, earlier=report["pairs"][:i])
        for side, cov in p["coverage"].items():
            units = ", ".join(f"{u['unit']} {u['hit']}/{u['branches']}" for u in cov.get("units", []))
            out.append(f"- {p['before']} → {p['after']}, {side}: branches {cov['hit']}/{cov['branches']}"
                       + (f" ({units})" if units else "")
                       + (f"; not hit: {'; '.join(cov['missed'])}" if cov["missed"] else ""))
            out += why_missed_lines(cov, "  - ")
        if p["budget_reached"]:
            out.append(f"- {p['before']} → {p['after']}: stopped at the budget of {p['configs']} configurations")
        for label, names in p.get("imported_with", {}).items():
            for name, how in names.items():
                out.append(f"- {label}: imported with `{name}` = {how['value']} (its module-level code accepts only "
                           f"{', '.join(how['compared_with'])}; a stub is none of them)")
        for label, lines in p.get("imported_without", {}).items():
            out += [f"- {label}: imported without the module-level call at {line} (it rejected a stub)"
                    for line in lines]
        left_out = p.get("inputs_left_out") or 0
        out.append(f"- inputs varied ({len(p['inputs']) + left_out}): " + "; ".join(
            f"`{k}` {', '.join(map(str, v))}" for k, v in p["inputs"].items())
            + (f"; and {left_out} more (the runs read each; not listed)" if left_out else ""))
        same = _first_same(p, report["pairs"][:i], lambda q: q["static"])
        if "residuals" in p["static"]:
            text = to_markdown(StaticReport.from_json(p["static"])).rstrip()
            out += ["", text.split("\n")[0], "", f"The same as for {_named(same)}."] if same else ["", text]
        else:
            out += ["", f"### Static check: not done ({p['static']['error']})"]
    if "mutants" in report:
        m = report["mutants"]
        out += ["", f"### Self-check: {m['killed']}/{m['total']} mutants killed" + self_check_heading(report)]
        if m.get("note"):
            out.append(f"- note: {m['note']}")
        out += controls_markdown(m)
        for s in m["survivors"]:
            out.append(f"- survived: {s['id']} — {s['description']} ({s['reason']})")
    return "\n".join(out) + "\n"


def pair_line(p: dict, report: dict) -> str:
    if not p["coverage"] and p.get("could_not_run"):
        return f"{p['before']} -> {p['after']}: {p['verdict']}"
    cov = " ".join(f"{k} {c['hit']}/{c['branches']}" for k, c in p["coverage"].items())
    cls = "".join(f" +{c['kind']}:{c['count']}" for c in p["classified"])
    subject = _subjects(report).get(p["after"])
    after = f"{p['after']} ({subject})" if subject else p["after"]
    budget = " (the budget: more were left to try)" if p.get("budget_reached") else ""
    return f"{p['before']} -> {after}: {p['verdict']} over {p['configs']} configs{budget}{cls}; branches {cov}"


def why_missed_lines(cov: dict, lead: str) -> list[str]:
    """Why the branches a side's coverage missed were not hit (`engine.run.why`), one line per
    reason, each starting with `lead`; a reason for every missed branch names none of them."""
    groups = cov.get("why_missed", [])
    if len(groups) == 1 and len(groups[0]["branches"]) == len(cov["missed"]):
        return [f"{lead}why not hit: {groups[0]['why']}"]
    return [f"{lead}why not hit, {'; '.join(g['branches'])}: {g['why']}" for g in groups]


def missed_lines(p: dict) -> list[str]:
    out = []
    for side, c in p["coverage"].items():
        if c["missed"]:
            out.append(f"  {side}: branches not hit: {'; '.join(c['missed'])}")
            out += why_missed_lines(c, "    ")
    return out


def static_lines(p: dict) -> list[str]:
    """The static check of a pair in one line (or why it was not done)."""
    static = p.get("static")
    if not static:
        return []
    if "residuals" not in static:
        return [f"  static check not done: {static['error']}"]
    out = [f"  static: {len(static['map'])} mapped, {len(static['residuals'])} residual difference(s)"
           + ("; a module global changed" if static["divergent"] else "")]
    for r in static["residuals"]:
        where = f"L{r['after_line']}" if r.get("after_line") else f"L{r['before_line']} (before)"
        shown = " ".join((r["after"] or r["before"]).split())
        explained = r.get("explained", r["kind"] == "applied-by-caller")
        out.append(f"    {where} {r['kind']}: `{shown[:100]}` ({'explained' if explained else 'not explained'}"
                   f"{': ' + r['classification'].split(': ', 1)[-1] if explained and r.get('classification') else ''})")
    for c in static.get("constants", []):
        if c["equal"] and c["detail"].startswith("reads __name__"):  # a logger: records now carry another name
            out.append(f"    `{c['name']}` {c['detail']} (the same statement; the name it gives differs)")
    for r in p.get("untold_residuals", []):
        out.append(f"  not proven: {r['line']} {r['kind']}: {r['why']}")
    return out


def static_items(p: dict, earlier: list[dict] = ()) -> list[str]:
    """What a pair's `static_lines` counts, as items under it: the map, each residual difference
    and each changed module global; a list an `earlier` pair had the same names that pair."""
    static = p.get("static") or {}
    if "residuals" not in static:
        return []
    out = []
    same = _first_same(p, earlier, lambda q: (q.get("static") or {}).get("map"))
    if static["map"] and same:
        out.append(f"  - map: the same as {_named(same)}")
    elif static["map"]:
        out.append("  - map: " + "; ".join(f"`{e['name']}` ({e['kind']}) stands for {inline_code(e['expression'])}"
                                          for e in static["map"]))
    same = _first_same(p, earlier, lambda q: (q.get("static") or {}).get("residuals"))
    if static["residuals"] and same:
        out.append(f"  - residual differences: the same as {_named(same)}")
    else:
        for r in static["residuals"]:
            parts = [f"{side} L{r[f'{side}_line']} {inline_code(r[side])}" if r[f"{side}_line"] else
                     f"{side} {inline_code(r[side])}" for side in ("before", "after") if r[side]]
            if r["after_mapped"] and r["after_mapped"] != r["after"]:
                parts.append(f"after, mapped {inline_code(r['after_mapped'])}")
            out.append(f"  - {r['kind']}: {', '.join(parts)}" + (f" — {r['note']}" if r["note"] else ""))
    for c in static["constants"]:
        if not c["equal"]:
            out.append(f"  - module global `{c['name']}` changed: before {inline_code(c['before']) or 'unbound'}, "
                       f"after {inline_code(c['after']) or 'unbound'} ({c['detail']})")
    return out


def terminal(report: dict) -> str:
    lines = revision_lines(report) + compared_lines(report)
    for p in report["pairs"]:
        lines.append(pair_line(p, report))
        lines += found_lines(p, "  ")
        if p.get("could_not_run"):
            lines.append(f"  could not run: {p['could_not_run']}")
        for c in p["classified"]:
            if c.get("raises"):
                lines.append(f"  {c['kind']}: raises evaluating {c['raises']['argument']} up front in "
                             f"{c['raises']['count']} configurations, e.g. {_choices(c['raises'])}")
        for d in p["divergences"] + p["not_modelled"]:
            lines.append(f"  {d['kind']} x{d['count']}: " + (_choices(d) if "example" in d else
                                                            ", ".join(g["name"] for g in d.get("globals", []))))
        lines += missed_lines(p)
        for label, names in p.get("imported_with", {}).items():
            lines += [f"  {label}: imported with {name} = {how['value']} (module-level code accepts "
                      f"{', '.join(how['compared_with'])})" for name, how in names.items()]
        for label, left_out in p.get("imported_without", {}).items():
            lines += [f"  {label}: imported without the module-level call at {line} (it rejected a stub)"
                      for line in left_out]
        lines += static_lines(p)
    if "mutants" in report:
        m = report["mutants"]
        lines.append(f"mutants: {m['killed']}/{m['total']} killed" + "".join(f"; survived {s['id']}" for s in m["survivors"]))
        if m.get("note"):
            lines.append(f"  note: {m['note']}")
        lines += controls_terminal(m)
    lines.append(f"verdict: {verdict_line(report)}")
    return "\n".join(lines)


def controls_markdown(mutants: dict) -> list[str]:
    """The self-check's controls (edits that change nothing, which must survive), in Markdown."""
    if "controls" not in mutants:
        return []
    c = mutants["controls"]
    out = [f"- controls (changes that change nothing, which must survive): {c['survived']}/{c['total']} "
           f"survived" + (f" ({', '.join(c['ids'])})" if c.get("ids") else "")]
    return out + [f"- control killed: {k['id']} — {k['description']} ({k['reason']})" for k in c["killed"]]


def controls_terminal(mutants: dict) -> list[str]:
    if "controls" not in mutants:
        return []
    c = mutants["controls"]
    return [f"controls: {c['survived']}/{c['total']} survived (they change nothing)"
            + "".join(f"; KILLED {k['id']}" for k in c["killed"])]


def self_check_heading(report: dict) -> str:
    """The self-check's heading's end: what it got wrong, when it failed."""
    failed = report.get("self_check", {}).get("failures")
    return f" — failed: it {' and '.join(failed)}" if failed else ""
