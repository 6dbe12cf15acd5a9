"""Why code under test did not run: the one place the method check (`engine.run`) and the
component check (`component`) say it from, and the reports show it (`engine.report`).

- where a run's exception was raised: the innermost frame of the version's own files it went
  through (`raised_at`), with the exception as a report shows it (`exception_text`);
- why a function under test was never called (`never_called`): every configuration raised
  before calling it (the exception, where) or never reached its call;
- why a branch was never taken (`missed_reasons`, from what `coverage.BranchTracer` recorded of
  each call): its test never ran because every call that got that far in the function stopped
  before it (each exception that ended them, with how many calls, the line and the expression
  that raised, and where), or returned earlier; or its test ran and never led that way (how
  often it ran, and what it raised when it did).
"""

from __future__ import annotations

import ast
import collections
import re
from dataclasses import dataclass, field

from equivalence.engine.world.world import TRACED

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
MESSAGE = 240  # characters of an exception's message a reason shows (its first lines, joined)
SHOWN = 3  # places (and exceptions per place) a reason names, the commonest first; the others are counted
STANDIN_NOTE = ("(`StandIn`: the stand-in the world gives an input by default; real code that needs a "
                "concrete value, a number or a torch device, rejects it)")
CODE = 160  # characters of the expression that raised
LITERAL_RUNS = 16  # configurations run again to say why a string the code compares with never passed its test


def scrub(text: str) -> str:
    """A message with object addresses left out (the same in every run and version), and the
    harness's traced values named by their plain type: one version may hold the world's traced
    `str` where the other holds a literal, and `'<' not supported between instances of
    'NoneType' and 'TracedStr'` is the same error as `... and 'str'`."""
    return _traced_names().sub(lambda m: TRACED_NAMES[m.group(0)], _ADDRESS.sub(" at 0x…", text))


TRACED_NAMES: dict[str, str] = {}
_TRACED_PATTERN: list[re.Pattern] = []


def _traced_names() -> re.Pattern:
    if len(TRACED_NAMES) != len(TRACED) or not _TRACED_PATTERN:
        TRACED_NAMES.clear()
        TRACED_NAMES.update({cls.__name__: plain.__name__ for cls, plain in TRACED.items()})
        _TRACED_PATTERN[:] = [re.compile(r"\b(" + "|".join(map(re.escape, TRACED_NAMES)) + r")\b"
                                         if TRACED_NAMES else r"(?!)")]
    return _TRACED_PATTERN[0]


def exception_text(error: BaseException) -> tuple[str, str]:
    """(type name, message) of an exception, addresses left out."""
    return type(error).__name__, scrub(str(error))


def raised_at(error: BaseException, files: set[str], tb=None) -> str | None:
    """`file:line` of the innermost frame of `files` (the version's own) the exception went through
    (`tb`: its traceback as a trace function is given it, which the exception holds only later)."""
    tb, where = tb or error.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in files:
            where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def never_called(what: str, exception: tuple | None, where: str | None,
                 reach: str = "the call site's statements", example: str = "") -> str:
    """Why no configuration called `what` (the method, the function, ...): the exception the
    configuration shown raised before calling it (type and message, and `where`), else that
    `reach` never get to its call. `example`: the configuration shown when it is one of several
    that may end otherwise ("the first configuration calling X"); without it, every
    configuration is said to raise so (the method check shows the first, where the call site
    decides alike for all)."""
    if exception is None:
        return f"no configuration called the {what}: {reach} never reach it"
    name, message = exception[:2]
    raised = f"{name}: {message}" + (f" at {where}" if where else "")
    if example:
        return f"no configuration called the {what}; {example} raised before it: {raised}"
    return f"every configuration raised before calling the {what}: {raised}"


@dataclass(frozen=True)
class Stop:
    """How one call of a function under test ended by an exception: the position (in that
    function) of the instruction the exception left it from, the exception, where it was raised."""

    position: tuple  # (line, end line, column, end column)
    exception: str  # "Type: message", shortened
    where: str | None


def stop(position: tuple, error: BaseException, files: set[str], tb=None) -> Stop:
    name, message = exception_text(error)
    message = " ".join(line.strip() for line in message.splitlines() if line.strip())
    if len(message) > MESSAGE:
        message = message[:MESSAGE - 1] + "…"
    return Stop(position, f"{name}: {message}" if message else name, raised_at(error, files, tb))


@dataclass
class Ends:
    """How the calls of one function under test ended: how many there were, and each stop."""

    calls: int = 0
    stops: collections.Counter = field(default_factory=collections.Counter)  # Stop -> calls


@dataclass
class Gate:
    """What must run for a branch outcome to be taken (an `if`'s test, a loop's header, the first
    statement of a `try`), and what the calls that ran it did there."""

    span: tuple  # (line, column, end line, end column)
    text: str  # the code, as shown
    reached: int = 0  # calls of a branch never taken that ran it
    raised: collections.Counter = field(default_factory=collections.Counter)  # Stop inside it -> calls


def _before(position: tuple, span: tuple) -> bool:
    line, _, col, _ = position
    return line is not None and col is not None and (line, col) < (span[0], span[1])


def _shorten(text: str, limit: int = CODE) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _raising_code(fn: ast.AST, position: tuple) -> str:
    """The expression (else the innermost statement) of `fn` the instruction at `position` runs."""
    line, end_line, col, end_col = position
    if line is None or col is None:
        return ""
    best = None
    for node in ast.walk(fn):
        if not isinstance(node, (ast.expr, ast.stmt)) or not hasattr(node, "end_lineno"):
            continue
        span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        if span == (line, col, end_line, end_col):
            return _shorten(ast.unparse(node))
        if isinstance(node, ast.stmt) and (span[0], span[1]) <= (line, col) and (end_line, end_col) <= (span[2], span[3]):
            best = node
    return _shorten(ast.unparse(best)) if best is not None else ""


def _stops_text(stops: list[tuple[Stop, int]], fn: ast.AST) -> str:
    """Where the calls stopped, the place most of them stopped at first: its calls, line,
    expression, where it raised, and its exceptions, the commonest first, each with its calls.
    SHOWN places at most, each with SHOWN exceptions at most; the others are counted."""
    places: dict[tuple, list[tuple[Stop, int]]] = {}
    for s, n in stops:
        places.setdefault((s.position, s.where), []).append((s, n))
    ranked = sorted(places.items(), key=lambda item: (-sum(n for _, n in item[1]), item[0][0][0] or 0))
    parts = []
    for (position, where), found in ranked[:SHOWN]:
        kept, rest = found[:SHOWN], found[SHOWN:]
        code = _raising_code(fn, position)
        exceptions = [s.exception + (f" ({n})" if len(found) > 1 else "") for s, n in kept]
        if rest:
            exceptions.append(f"{len(rest)} other exception(s) ({sum(n for _, n in rest)})")
        parts.append(f"{sum(n for _, n in found)} at line {position[0]}" + (f" `{code}`" if code else "")
                     + (f" ({where})" if where else "") + ", raising " + " or ".join(exceptions))
    others = ranked[len(parts):]
    if others:
        parts.append(f"{sum(n for _, found in others for _, n in found)} at {len(others)} other place(s)")
    return "; ".join(parts)


def _ranked(counter: collections.Counter) -> list[tuple[Stop, int]]:
    return sorted(counter.items(), key=lambda item: (-item[1], item[0].position[0] or 0, item[0].exception))


def missed_reason(gate: Gate, ends: Ends, fn: ast.AST, unit: str, note: str = "") -> str:
    """Why a branch outcome behind `gate` was never taken, in one sentence."""
    text = _missed_reason(gate, ends, fn, unit) + (f"; {note}" if note else "")
    return f"{text} {STANDIN_NOTE}" if "StandIn" in text else text


def literal_note(gate: Gate, configs: list[dict], run) -> str:
    """For a test comparing with a string the code names (`self.device == "cuda:first"`) that never
    led the other way: the configurations giving an input that very string, and what they raised
    before the test, LITERAL_RUNS of them at most (`run(config)` runs one again): the value was
    offered, and real code before the test rejects it (torch cannot read that device string)."""
    try:
        tree = ast.parse(gate.text.strip(), mode="eval")
    except SyntaxError:
        return ""
    literals = [c.value for n in ast.walk(tree) if isinstance(n, ast.Compare)
                and any(isinstance(o, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for o in n.ops)
                for c in ast.walk(n) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    for literal in dict.fromkeys(literals):
        giving = [(c, k) for c in configs for k, o in c.items()
                  if type(o) is tuple and len(o) == 2 and o[0] == "value" and type(o[1]) is str and o[1] == literal]
        if not giving:
            continue
        keys = dict.fromkeys(k for _, k in giving)
        raised: collections.Counter = collections.Counter()
        ran = list({id(c): c for c, _ in giving}.values())[:LITERAL_RUNS]
        for config in ran:
            observation = run(config)[0]
            exception = observation.exception
            if exception is None and type(observation.returned) is tuple:  # a component's calls: (exception, value) each
                exception = next((e for e, _ in observation.returned if e is not None), None)
            if exception is not None:
                raised[f"{exception[0]}: {_shorten(exception[1], MESSAGE)}"] += 1
        if not raised:
            continue
        shown = [f"{text} ({n})" for text, n in raised.most_common(SHOWN)]
        if len(raised) > SHOWN:
            shown.append(f"{len(raised) - SHOWN} other exception(s)")
        calm = len(ran) - sum(raised.values())
        return (f"of the {len(ran)} configuration(s) giving {' or '.join(keys)} {literal!r}, run again, "
                f"{sum(raised.values())} raised: " + "; ".join(shown)
                + (f"; {calm} raised nothing (the test not reached with that value)" if calm else ""))
    return ""


def _missed_reason(gate: Gate, ends: Ends, fn: ast.AST, unit: str) -> str:
    what = unit or "function"
    if ends.calls == 0:
        return f"the {what} was never called"
    if gate.reached:
        text = f"`{_shorten(gate.text)}` was evaluated in {gate.reached} call(s) but never led this way"
        raised = _ranked(gate.raised)
        if raised:
            text += f"; it raised in {sum(n for _, n in raised)} of them: " + _stops_text(raised, fn)
        return text
    before = collections.Counter({s: n for s, n in ends.stops.items() if _before(s.position, gate.span)})
    stopped = sum(before.values())
    elsewhere = sum(ends.stops.values()) - stopped
    returned = ends.calls - stopped - elsewhere
    parts = []
    if stopped:
        parts.append(f"{stopped} of the {ends.calls} call(s) of the {what} raised before it: "
                     + _stops_text(_ranked(before), fn))
    others = []
    if returned:
        others.append(f"{returned} returned")
    if elsewhere:
        others.append(f"{elsewhere} raised further on")
    if others:
        lead = "the other " if stopped else f"of the {ends.calls} call(s) of the {what}, "
        parts.append(lead + " and ".join(others) + " without reaching it")
    return "never reached: " + "; ".join(parts)


def missed_reasons(items: list[tuple[str, Gate, Ends, ast.AST, str]], notes: dict[int, str] | None = None) -> list[dict]:
    """`items`: per missed branch, (where it is, its gate, its function's ends, the function's
    node, the unit); `notes`: id of a gate -> what else explains it (`literal_note`). Branches
    with the same reason are one entry: {"branches", "why"}."""
    grouped: dict[str, list[str]] = {}
    for where, gate, ends, fn, unit in items:
        grouped.setdefault(missed_reason(gate, ends, fn, unit, (notes or {}).get(id(gate), "")), []).append(where)
    return [{"branches": branches, "why": why} for why, branches in grouped.items()]
