"""The report of what moved, for a reviewer: the verdict and what it means in plain words, the
moves table, then only what needs reading (the moves that change behaviour, with the smallest
configuration that shows it; the other edits on the moves' paths, both places named; why
anything is not proven or not checked, each reason once), and last each check in full, folded.
Built from the JSON only."""

from __future__ import annotations

import json
from typing import Callable

from equivalence.engine.report.report import EXPLAIN, harness_made
from equivalence.engine.report.verdict import Report, not_modelled_names
from equivalence.component.run import NO_COMPONENT
from equivalence.engine.run.time_limit import CUT, CUTS_PER_PAIR, PAIR_SECONDS, RUN_SECONDS

TABLE_ROWS = 60  # moves listed in the table; the rest counted (the JSON has every one)
LIST_ITEMS = 25  # items of a list shown before the rest is counted
DETAILS_BUDGET = 56_000  # the folded checks stop here: the summary above them always fits a PR comment
DETAIL_ORDER = {"divergent": 0, "inconclusive": 1, "could not run": 2, "equivalent": 3}  # what a reader opens first
MEANING = {
    "equivalent": "every move found behaves as before: on every configuration tried, before and after return, "
                  "raise, write and call the same",
    "divergent": "at least one move behaves differently: it is named below with a configuration that shows it",
    "inconclusive": "no difference was found, but not everything was proven: the reasons are below",
    "could not run": "a check could not run: the reasons are below",
}
GLOSSARY = ("How to read the checks: a *configuration* is one set of values for what the code reads; a "
            "*stand-in* is an object the harness makes up for a value it cannot build (every attribute and call "
            "works on it), so a difference that needs one is shown last; the *map* says which parameter of the "
            "new function stands for which expression of the old method; *residual differences* are the lines "
            "of the moved body that still differ once the map is applied.")


def markdown(report: dict, render_check: Callable[[dict], str]) -> str:
    moves = report["moves"]
    meaning = MEANING.get(report["verdict"], "")
    if report["verdict"] == "divergent" and not any(m["verdict"] == "divergent" for m in moves):
        meaning = "each move alone behaves as before, but edits made on their way change behaviour: named below"
    out = [f"## Equivalence check: **{report['verdict_line']}**", "",
           f"{_counts(moves)} {meaning[:1].upper() + meaning[1:]}.", ""]
    out += _compared(report)
    out += [f"### Moves found: {len(moves)}", "", "| method | moved to | how | verdict |", "|---|---|---|---|"]
    for m in moves[:TABLE_ROWS]:
        how = m["kind"] + (", wrapper kept" if m["wrapper"] else "")
        out.append(f"| `{m['from']}` ({m['from_file']}) | `{m['to']}` ({m['to_file']}) | {how} | {m['verdict']} |")
    if len(moves) > TABLE_ROWS:
        out.append(f"| … {len(moves) - TABLE_ROWS} more moves | | | the JSON lists every one |")
    out += _changes(report)
    out += _one_call(moves)
    out += _edits(moves)
    checked = {name: c["report"] for c in report["checks"] for name in c["moves"]}
    out += _reasons("Not proven", [m for m in moves if m["verdict"] in ("inconclusive", "could not run")],
                    lambda m: why_not_proven(Report.from_json(checked[m["from"]])) if m["from"] in checked
                    else "no reason given")
    out += _reasons("Not checked", [m for m in moves if m["verdict"] == "not checked"], lambda m: "no reason given")
    if report["checks"]:
        out += ["", "### Each check in full", "", GLOSSARY]
        budget = DETAILS_BUDGET - len("\n".join(out))
        order = sorted(report["checks"], key=lambda c: DETAIL_ORDER.get(c["report"]["verdict"], 9))
        left = []
        for c in order:
            block = ["", f"<details><summary>{', '.join(c['moves'])}: {c['report']['verdict']}</summary>", "",
                     _nested(_short_labels(render_check(c), report)), "", "</details>"]
            size = len("\n".join(block))
            if size > budget:
                left.append(c)
                continue
            budget -= size
            out += block
        if left:
            out += ["", f"{len(left)} more check{'s' if len(left) != 1 else ''} in full in the JSON (left out to "
                        f"fit a GitHub comment): " + ", ".join(f"`{c['moves'][0]}`" for c in left[:10])
                    + (f" and {len(left) - 10} more" if len(left) > 10 else "")]
    return "\n".join(out) + "\n"


def terminal(report: dict, render_check: Callable[[dict], str]) -> str:
    from equivalence.engine.report.report import compared_lines, revision_lines

    out = revision_lines(report) + compared_lines(report) + [f"moves found: {len(report['moves'])}"]
    to = {m["from"]: m["to"] for m in report["moves"]}
    for m in report["moves"]:
        out.append(f"  {m['from']} -> {m['to']} ({m['kind']}{', wrapper kept' if m['wrapper'] else ''}; "
                   f"similarity {m['similarity']:.2f}): {m.get('verdict_line', m['verdict'])}"
                   + (f": {m['why']}" if m.get("why") else ""))
        out += [f"    other edit: {_place(e)}: {e['what']}" for e in m.get("other_edits", [])]
        out += [f"    one call: `self.{c.rpartition('.')[2]}(…)` before, `{to.get(c, '?')}(…)` after (moved too: its own row)"
                for c in m.get("one_call_with", [])]
    for c in report["checks"]:  # each check's own last line says its verdict: not the report's
        own = render_check(c).rstrip("\n").split("\n")
        if own and own[-1].startswith("verdict: "):
            own[-1] = f"this check: {own[-1].removeprefix('verdict: ')}"
        out += ["", f"== {', '.join(c['moves'])}", *own]
    out.append(f"verdict: {report['verdict_line']}")
    return "\n".join(out)


def _counts(moves: list[dict]) -> str:
    by = {}
    for m in moves:
        by[m["verdict"]] = by.get(m["verdict"], 0) + 1
    words = {"equivalent": "equivalent", "divergent": "behave differently", "inconclusive": "not proven",
             "could not run": "could not be checked", "not checked": "not checked (a kind the harness does not "
             "check yet)"}
    parts = [f"{n} {words.get(v, v).replace('behave ', 'behaves ') if n == 1 else words.get(v, v)}" for v, n in sorted(by.items(), key=lambda x: list(words).index(x[0])
                                                            if x[0] in words else 99)]
    changing = {(e["file"], e["line"], e["what"]) for m in moves for e in m.get("other_edits", [])
                if e.get("changes_behaviour")}
    unknown = {(e["file"], e["line"], e["what"]) for m in moves for e in m.get("other_edits", [])
               if "changes_behaviour" in e and e["changes_behaviour"] is None}
    edits = (f" {len(changing)} other edit{'s' if len(changing) != 1 else ''} on their way "
             f"change{'s' if len(changing) == 1 else ''} behaviour." if changing else "") + \
        (f" {len(unknown)} other edit{'s' if len(unknown) != 1 else ''} on their way not proven." if unknown else "")
    return (f"**{len(moves)} method{'s' if len(moves) != 1 else ''} moved out of their class: {', '.join(parts)}."
            f"{edits}**")


def _compared(report: dict) -> list[str]:
    from equivalence.engine.report.report import compared_lines, revision_lines

    lines = revision_lines(report, lambda t: f"`{t}`") + compared_lines(report, lambda t: f"`{t}`")
    return [x for line in lines for x in (line, "")]


def _changes(report: dict) -> list[str]:
    """Each move that changes behaviour, with its first difference real values show."""
    out = []
    moved = {m["from"].rpartition(".")[2]: m for m in report.get("moves", []) if "." in m["from"]}
    _difference = lambda d: _difference_of(d, moved)  # noqa: E731
    for c in report["checks"]:
        if c["report"]["verdict"] != "divergent":
            continue
        for p in c["report"].get("pairs", []):
            first = next(iter(p.get("divergences") or []), None)
            if first is None:
                continue
            alone = c["report"].get("move_alone")
            if alone and alone["verdict"] == "equivalent":
                places = "; ".join(f"{_place(e)}: {e['what']}" for e in alone["edits"])
                out.append(f"- `{', '.join(c['moves'])}`: the move alone is equivalent; the edit{'s' if len(alone['edits']) > 1 else ''} "
                           f"on its way ({places}) change{'s' if len(alone['edits']) == 1 else ''} behaviour: "
                           f"{_difference(first)}")
            elif alone and alone.get("first_difference"):  # the move itself diverges: its own difference first
                out.append(f"- `{', '.join(c['moves'])}`: {_difference(alone['first_difference'])} (the move alone, "
                           f"with the edits on its way undone)")
            else:
                out.append(f"- `{', '.join(c['moves'])}`: {_difference(first)}")
    return (["", "### What changes behaviour", ""] + out) if out else []


def _difference_of(d: dict, moved: dict[str, dict] | None = None) -> str:
    """`moved`: the pair's moves by the method's name (a call of one that moved too is said so)."""
    what = d.get("explanation") or EXPLAIN.get(d["kind"], d["kind"])
    if "globals" in d:
        names = ", ".join(f"`{g['name']}`" for g in d["globals"])
        return f"{what}: {names}"
    text = f"{what} ({d['count']} configurations"
    if d.get("choices") is not None:
        given = ", ".join(f"`{k.removeprefix('local:')}` = {_value(v)}" for k, v in d["choices"].items())
        text += f"; e.g. {given or 'every input at its first value'}"
    text += ")"
    if d.get("before") is not None:
        effect = _first_effect_apart(d["before"], d["after"], moved or {})
        if effect:
            text += f": {effect}"
        else:
            text += f": before {_observed(d['before'])}; after {_observed(d['after'])}"
    if harness_made(d):
        text += " (only with a stand-in: no real value of those inputs was found to show it)"
    return text


def _first_effect_apart(before, after, moved: dict[str, dict] | None = None) -> str:
    """Where the effects (calls, writes, logs) of the two runs first differ, in words; "" when
    they do not (the difference is in what they return or raise). `moved`: the pair's moves by
    the method's name: a call of `self.M` where the other calls the function M moved to is said
    to be that other move's."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return ""
    b, a = before.get("events") or [], after.get("events") or []
    if b == a:
        return ""
    i = next((n for n, (x, y) in enumerate(zip(b, a)) if x != y), min(len(b), len(a)))
    said = lambda events: _effect(events[i]) if i < len(events) else "nothing more"
    nth = f"effect {i + 1}" if i else "the first effect"
    return f"{nth}: before {said(b)}; after {said(a)}" + _co_moved(b[i:i + 1], a[i:i + 1], moved or {})


def _co_moved(b: list, a: list, moved: dict[str, dict]) -> str:
    """" (`C.M` moved too, ...)" when the two effects are a call of `self.M` and a call of the
    function M moved to."""
    if not (b and a and b[0][0] == a[0][0] == "call" and len(b[0]) == len(a[0]) == 4):
        return ""
    name = str(b[0][1])
    move = moved.get(name.removeprefix("self.")) if name.startswith("self.") and name.count(".") == 1 else None
    if move is None or str(a[0][1]).rpartition(".")[2] != move["to"].rpartition(".")[2]:
        return ""
    return f" (`{move['from']}` moved too, to `{move['to']}`: its own verdict is in its row)"


def _effect(event) -> str:
    kind, *rest = event
    if kind == "call" and len(rest) == 3:
        name, args, kwargs = rest
        shown = [_arg(x) for x in args] + [f"{k}={_arg(v)}" for k, v in kwargs]
        joined = ", ".join(shown)
        return f"calls `{_one_line(f'{name}({joined})')}`"
    if kind == "set" and len(rest) == 2:
        return f"sets `{_one_line(f'{rest[0]} = {_arg(rest[1])}')}`"
    if kind == "setitem" and len(rest) == 3:
        return f"sets `{_one_line(f'{rest[0]}[{_arg(rest[1])}] = {_arg(rest[2])}')}`"
    if kind == "log" and len(rest) >= 2:
        return f"logs {rest[0]} `{_one_line(str(rest[1]))}`"
    if kind == "enter" and rest:
        return f"enters `with {rest[0]}`"
    if kind == "exit" and rest:
        return f"leaves `with {rest[0]}`"
    if kind == "del" and rest:
        return f"deletes `{rest[0]}`"
    if kind == "setenv" and len(rest) == 2:
        return f"sets the environment variable `{rest[0]}` to {_arg(rest[1])}"
    return f"`{_one_line(json.dumps(event, default=str))}`"


def _arg(v) -> str:
    if isinstance(v, str) and v.startswith("<") and v.endswith(">"):
        return v[1:-1].removeprefix("local:")  # a value the run passed on: its expression
    if v is None or isinstance(v, (bool, int, float)):
        return repr(v)  # as Python writes it
    return json.dumps(v, default=str)


def _value(v) -> str:
    return f"`{json.dumps(v, default=str)}`" if not isinstance(v, str) or not v.startswith("<") else v


def _observed(o) -> str:
    if not isinstance(o, dict):
        return f"`{json.dumps(o, default=str)[:200]}`"
    if o.get("exception"):
        return f"raises `{o['exception'][:200]}`"
    shown = f"returns `{json.dumps(o.get('returned'), default=str)[:200]}`"
    if o.get("events"):
        shown += f" after {len(o['events'])} effect(s)"
    return shown


def _one_line(code) -> str:
    text = " ".join(str(code or "").split())
    return text if len(text) <= 160 else text[:150] + f" … ({len(text) - 150} more characters)"


def _one_call(moves: list[dict]) -> list[str]:
    """The moves whose code calls a method that moved too: its call before and the function's
    after were read as one call, so each move is judged on its own (the other in its row)."""
    to = {m["from"]: m["to"] for m in moves}
    out = [f"- `{m['from']}`: " + ", ".join(f"`self.{c.rpartition('.')[2]}(…)` before and `{to.get(c, '?')}(…)` after"
                                             for c in m["one_call_with"])
           for m in moves if m.get("one_call_with")]
    if not out:
        return []
    shown = out[:LIST_ITEMS]
    more = [f"- … {len(out) - len(shown)} more (the JSON lists every one)"] if len(out) > len(shown) else []
    return ["", f"### Calls of methods that moved too, read as one call: {len(out)}", "",
            "Each is the same call in both versions, given the same answer: what the method that moved does is "
            "judged in its own row, not again here.", ""] + shown + more


def _edits(moves: list[dict]) -> list[str]:
    seen, out = set(), []
    for m in moves:
        for e in m.get("other_edits", []):
            key = (e["file"], e["line"], e["what"])
            if key in seen:
                continue
            seen.add(key)
            out.append(f"- `{m['from']}`: {_place(e)}: {e['what']}"
                       + (f" (not proven: {e['why']})" if e.get("why") and e.get("changes_behaviour") is None else ""))
    if not out:
        return []
    shown = out[:LIST_ITEMS]
    more = [f"- … {len(out) - len(shown)} more (the JSON lists every one)"] if len(out) > len(shown) else []
    return ["", f"### Other edits on the moves' paths: {len(out)}", ""] + shown + more


def _place(e: dict) -> str:
    here = f"{e['file']}:{e['line']}" if e.get("line") else e["file"]
    if not e.get("before"):
        return f"after {here}"
    if e["before"] == here:
        return f"before {here}"
    return f"after {here} (before {e['before']})"


def _not_modelled_why(entry: dict) -> str:
    if CUT in not_modelled_names(entry):
        return f"a run went past the {RUN_SECONDS:g} s allowed to one run and was stopped, so it is not checked"
    if NO_COMPONENT in not_modelled_names(entry):
        return ("in some configurations the owner holds None where its component would be (its builder returned "
                "None); what the callers do then, guarding against it, is not what the check runs")
    return "the code reached a value the harness only stubs"


def why_not_proven(report: Report) -> str:
    """Why a check that found no difference proves nothing, from its report, in words."""
    out = []
    for p in report.pairs:
        if p.could_not_run:
            out.append(p.could_not_run)
        for r in (p.untold_residuals or ())[:3]:
            out.append(f"a line of the moved body differs and no configuration told the versions apart there "
                       f"({r.get('line', '')} `{_one_line(r.get('before'))}` → `{_one_line(r.get('after'))}`)")
        for side, c in p.coverage.items():
            if c.get("missed"):
                why = "; ".join(g["why"] for g in c.get("why_missed", [])[:2])
                out.append(f"{len(c['missed'])} of {c['branches']} branches {side} were never run"
                           + (f" ({_one_line(why)})" if why else ""))
        for d in p.not_modelled[:1]:
            out.append(f"{_not_modelled_why(d)} ({d['count']} configurations)")
        if p.budget_reached:
            cut = any(CUT in not_modelled_names(d) for d in p.not_modelled)
            out.append(f"its exploration stopped after {p.configs} configurations ("
                       + (f"at its budget, after {CUTS_PER_PAIR} runs stopped at the time limit" if cut
                          else "at its budget") + f" or after {PAIR_SECONDS:g} s), so some were never tried")
    for failure in (report.self_check or {}).get("failures", []):
        out.append(f"the self-check {failure}")
    return "; ".join(dict.fromkeys(out)) or "the check gives no reason (see its report below)"


def _reasons(title: str, moves: list[dict], why: Callable[[dict], str]) -> list[str]:
    """Each reason once, with the moves it holds for."""
    by: dict[str, list[str]] = {}
    for m in moves:
        by.setdefault(m.get("why") or why(m), []).append(m["from"])
    if not by:
        return []
    out = ["", f"### {title}: {len(moves)}", ""]
    for why, names in list(by.items())[:LIST_ITEMS]:
        listed = ", ".join(f"`{n}`" for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        out.append(f"- {listed}: {_one_reason(why)}")
    if len(by) > LIST_ITEMS:
        out.append(f"- … {len(by) - LIST_ITEMS} more reasons (the JSON lists every one)")
    return out


def _one_reason(why: str) -> str:
    text = " ".join(why.split())
    return text if len(text) <= 700 else text[:690] + " … (the JSON has the rest)"


def _nested(text: str) -> str:
    """A check's own report inside the moves report: its title dropped (the summary says it) and
    its headings one level down."""
    lines = text.rstrip("\n").split("\n")
    if lines and lines[0].startswith("## Equivalence check"):
        lines = lines[1:]
    return "\n".join("#" + line if line.startswith("###") else line for line in lines).strip("\n")


def _short_labels(text: str, report: dict) -> str:
    """With one pair of trees, their paths (long, and the same in every check) read "before" and
    "after"."""
    pairs = {m.get("pair") for m in report["moves"]}
    if len(pairs) != 1 or not next(iter(pairs)):
        return text
    before, _, after = next(iter(pairs)).partition(" -> ")
    return text.replace(f"{before} → {after}", "before → after").replace(f"| {before} | {after} |",
                                                                           "| before | after |")
