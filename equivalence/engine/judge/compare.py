"""Compare two observations of one configuration: equal, a classified consequence of the
extraction, or a divergence.

Two consequences of an extraction are classified, never hidden (load.Caller says, from the
caller's code, which effects and reads they concern):
- "deferred-writes": the function returns its results and the caller applies them (writes to
  the instance, calls like `self._record(...)`). The after trace must equal the before trace
  with those effects moved after everything else, in the same relative order (repeated writes
  of one attribute collapse to one write of the last value, at the first write's place), and
  dropped when the function raises.
- "reordered-independent-effects": the same effects, with independent ones in another order: two
  writes of distinct attributes of the instance itself (`self.x`, not `self.config.x`: another
  object others may hold), or such a write and a call of something that is not the instance's (its key not `self.`, its arguments plain values: numbers, strings, None),
  which in the harness's world cannot see the write. Every other pair of effects (two calls, two
  logs, a write and a call that may see the instance) keeps its order (Mazurkiewicz traces).
- "abandoned-instance-writes": a constructor that raises leaves no instance behind: where both
  versions raise the same, and the instance never left the constructor (no call was given it or
  one of its methods), their writes to its own attributes cannot be seen and are set aside (a
  pull-up that moves a store past a call that may raise).
- "eager-read": the caller's arguments read (or call) `self.` chains up front that the old
  body read on some paths only: the calls the arguments make are set aside before comparing,
  and with an attribute the configuration made absent, the after version fails with that
  AttributeError before any other effect.
Everything else is a divergence, named by what differs first. Every comparison of observed values
goes through `values.same` (a tensor compares by dtype, device, shape and elements).
"""

from __future__ import annotations

from equivalence.engine.load.version import Caller
from equivalence.engine.run.observe import Observation
from equivalence.engine.world.values import same
from equivalence.engine.world.world import ABSENT

EQUAL = "equal"
DEFERRED = "deferred-writes"
EAGER = "eager-read"
REORDERED = "reordered-independent-effects"
NOT_MODELLED = "input-not-modelled"
ALREADY_DIVERGENT = "already-divergent"  # a mutant's difference the unmutated pair shows too: no evidence
EAGER_RAISES = "eager-read-raising?"  # raised evaluating an argument up front: eager-read once the before
                                      # version is seen to raise the same evaluating it (pairs.Pair.settle)
INTENDED = "intended-difference"  # a fix's delta on the findings it names (a preset's intended.py)
UNSET_STATE = "unset-state"  # a component's moved state read before anything set it: the AttributeError
                             # names the class that keeps it (equivalence.component.check.classify)
ABANDONED = "abandoned-instance-writes"
CLASSIFIED = {DEFERRED, EAGER, INTENDED, UNSET_STATE, REORDERED, ABANDONED}


def is_divergence(kind: str) -> bool:
    """A difference the extraction does not explain (an input not modelled is no verdict either way)."""
    return kind not in CLASSIFIED and kind not in (EQUAL, NOT_MODELLED, ALREADY_DIVERGENT, EAGER_RAISES)


def _applied(event, applied: set) -> bool:
    return event[:2] in applied


def _collapse(events: list) -> list:
    """One write per attribute, with its last value, where it was first written; calls all stay."""
    last = {e[1]: e for e in events if e[0] == "set"}
    out, seen = [], set()
    for e in events:
        if e[0] != "set":
            out.append(e)
        elif e[1] not in seen:
            seen.add(e[1])
            out.append(last[e[1]])
    return out


def deferred_trace(events: tuple, exception, applied: set) -> tuple:
    """What a trace becomes when the effects in `applied` are returned and applied by the caller."""
    kept = [e for e in events if not _applied(e, applied)]
    if exception is not None:
        return tuple(kept)
    return tuple(kept + _collapse([e for e in events if _applied(e, applied)]))


def _without_calls(events: tuple, calls: set[str]) -> tuple:
    return tuple(e for e in events if not (e[0] == "call" and e[1] in calls))


def _state_without(state: tuple, applied: set) -> tuple:
    attrs = {target.removeprefix("self.") for kind, target in applied if kind == "set"}
    return tuple((k, v) for k, v in state if k not in attrs)


def classify(before: Observation, after: Observation, caller: Caller, read: dict, lazy: frozenset = frozenset()) -> str:
    """`read`: the keys the after run read, with the option each took (absent ones matter);
    `lazy`: the caller's arguments whose expression the before version evaluates itself (in its
    body, on some path): only those can be an eager read when they raise up front."""
    if before.not_modelled or after.not_modelled:
        return NOT_MODELLED
    if same(before, after):
        return EQUAL
    b_events = _without_calls(before.events, caller.eager_calls)
    a_events = _without_calls(after.events, caller.eager_calls)
    eager_calls = len(b_events) != len(before.events) or len(a_events) != len(after.events)
    same_end = (same(before.exception, after.exception) and same(before.returned, after.returned)
                and same(before.handed_on, after.handed_on))
    if same_end and same(a_events, b_events) and same(before.state, after.state) and eager_calls:
        return EAGER
    if same_end and same(a_events, deferred_trace(b_events, before.exception, caller.applied)):
        if before.exception is None and same(before.state, after.state):
            return DEFERRED
        if before.exception is not None and \
                same(_state_without(before.state, caller.applied), _state_without(after.state, caller.applied)):
            return DEFERRED
    if _eager_absent(after, a_events, caller, read):
        return EAGER
    if after.in_arguments and not a_events and before.in_arguments == "" \
            and after.in_arguments.rpartition(": ")[2] in lazy:
        # the caller evaluated an argument up front that the old body evaluated later or not at all,
        # and it raised before the function ran (`self.spec_algorithm.is_dflash()` with no
        # spec_algorithm): an eager read, as the preset's, once the before version is seen to
        # raise just so evaluating it somewhere (else a divergence: pairs.Pair.settle)
        return EAGER_RAISES
    if same_end and same(before.state, after.state) and reordered(before.events, after.events):
        return REORDERED
    if getattr(caller, "constructs", False) and same_end and before.exception is not None and _abandoned(before.events, after.events):
        return ABANDONED
    return kind_of_difference(before, after)


def _abandoned(before: tuple, after: tuple) -> bool:
    """The same effects but for writes of the instance's own attributes, none given the instance."""
    rest = lambda events: tuple(e for e in events if not (e[0] == "set" and _own_attribute(e[1])))  # noqa: E731
    b, a = rest(before), rest(after)
    return same(b, a) and not any(_holds_self(e) for e in b)


def _holds_self(event: tuple) -> bool:
    """An effect that was given the instance or one of its bound methods (its canon is `<self>`)."""
    text = repr(event[2:])
    return "'<self>'" in text or "<self." in text


def reordered(before: tuple, after: tuple) -> bool:
    """Whether `after` is `before` with independent effects swapped (see the module docstring):
    the same effects, each pair of dependent ones in the same order."""
    if len(before) != len(after):
        return False
    rest = list(after)
    for event in before:
        at = next((i for i, e in enumerate(rest) if same(e, event)), None)
        if at is None or not all(_independent(e, event) for e in rest[:at]):
            return False
        del rest[at]
    return True


def _independent(a: tuple, b: tuple) -> bool:
    kinds = {a[0], b[0]}
    if kinds == {"set"}:
        return a[1] != b[1] and _own_attribute(a[1]) and _own_attribute(b[1])
    if kinds == {"set", "call"}:
        write, call = (b, a) if a[0] == "call" else (a, b)
        return len(call) == 4 and _own_attribute(write[1]) and not str(call[1]).startswith("self.") and all(
            _plain(v) for v in (*call[2], *(v for _, v in call[3])))
    return False


def _own_attribute(key) -> bool:
    """`self.x`: an attribute of the instance itself. A write into another object
    (`self.server_args.x`, shared with whoever holds it) keeps its place among the effects."""
    key = str(key)
    return key.startswith("self.") and "." not in key[5:] and "[" not in key


def _plain(value) -> bool:
    """A value no effect can reach the instance through (object canons are `<...>`)."""
    return value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str)
                                                                     and not value.startswith("<"))


def _eager_absent(after: Observation, a_events: tuple, caller: Caller, read: dict) -> bool:
    if after.exception is None or after.exception[0] != "AttributeError" or a_events:
        return False
    name = after.exception[2]
    return any(read.get(key) == ABSENT and key.rpartition(".")[2] == name for key in caller.eager)


def kind_of_difference(before: Observation, after: Observation) -> str:
    if not same(before.exception, after.exception):
        if before.exception is None or after.exception is None or before.exception[0] != after.exception[0]:
            return "different-outcome"
        return "different-exception-message"
    if not same(before.returned, after.returned):
        return "different-return"
    if not same(before.handed_on, after.handed_on):
        return "different-handed-on"
    return kind_of_effects(before, after)


def kind_of_effects(before: Observation, after: Observation) -> str:
    """How two observations that end alike differ: in their writes, calls, logs, the order of
    their effects, else their state."""
    for kind, label in (("set", "different-writes"), ("call", "different-calls"), ("log", "different-logs")):
        mine = lambda o: [e for e in o.events if e[0] == kind]  # noqa: E731
        if not same(mine(before), mine(after)):
            return label
    if not same(before.events, after.events):
        return "different-effect-order"
    return "different-state"
