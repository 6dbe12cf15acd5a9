"""Which new definition holds an old method's body: the candidates sharing most of its rare
tokens, compared token by token, each needing a similarity that depends on what else ties it
to the method (RefactoringMiner's idea: a body that moved is matched with the help of the call
sites rewired to it)."""

from __future__ import annotations

import ast
import collections
import difflib
from dataclasses import dataclass

from pysource.moves.bodies import similarity, similarity_and_coverage, tokens
from pysource.moves.classes import OwnerCode
from pysource.moves.model import Definition

SIMILAR = 0.6  # a function nothing else ties to the method
SIMILAR_SAME_NAME = 0.45  # ... named as the method was
OTHER_CLASS = 0.75  # a method of a class the owner does not hold: only a near copy counts
TIED = 0.45  # a function the class now calls, or a method of a component it holds
DELEGATED = 0.3  # what the method left behind, a delegation, calls
THINNED = 0.45  # what the method left behind, shrunk to at most half or calling something new, calls
HELD_CALL = 0.6  # a method of some class the owner now calls on one of its attributes
PULLED_UP = 0.45  # the method of a base of the class, new there, that the class now inherits in its place
SHORT = 30  # a body this short counts as moved only when more than its text ties it
MIN_TOKENS = 12  # a body this short (`return self.x`) matches too much to count on its text
TINY = 6  # ... it counts only when a call names the destination, named as the method was, holding all of it
NEAREST = 8  # candidates compared token by token: those sharing the most rare tokens
RARE = 0.05  # a token in more than this share of the candidates does not pick any
COVERED = 0.85  # ... or, when a name ties them, this share of the old body found in order in the new


LEFT_CALLS = "the method left behind calls it"
REWIRED = "calls rewired to it"
SAME_NAME = "same name"
INHERITED = "the class now inherits it"
NAMING = {LEFT_CALLS, REWIRED, SAME_NAME, INHERITED}  # ties that name the destination, not only its class


@dataclass
class Candidate:
    definition: Definition
    tokens: list[str]
    bag: set[str]


@dataclass(frozen=True)
class Tie:
    """What besides the body ties an origin to candidates: the method left behind and what its
    calls name, the owners' code after, the functions the class did not call before."""

    kept_calls: dict[tuple[str, bool], str | None]  # empty when the method is gone
    kept: bool  # the class still defines the method
    delegation: bool  # the method left behind is a thin delegation (else shrunk, calling something new, or gone)
    owner: OwnerCode | None
    newly_called: frozenset[str]  # by the class, or by the methods that called it, where they are now
    kept_similarity: float = 0.0  # the method left behind against the old body: a destination must beat it
    kept_shrank: bool = False  # the method left behind is shorter than the old body
    inherited_from: frozenset[str] = frozenset()  # bases of the class (after) where the method is new


@dataclass(frozen=True)
class Match:
    destination: Definition
    similarity: float
    evidence: str
    tied: bool  # something beside the body names it (a call left behind, a new call, a holder)
    named: bool = False  # ... the method left behind calls it

    @property
    def score(self) -> float:
        return self.similarity + (0.5 if self.named else 0.1 if self.tied else 0)


class Candidates:
    """The new definitions, and those that existed (`grown`, with their body before: a body merged
    into them, a name that now holds a wrapper around it, or a copy of the body the method now
    calls), the latter reached only by name from a delegation or a rewired call."""

    def __init__(self, definitions: list[Definition], grown: list[tuple[Definition, object]] = ()):
        self.items = [Candidate(d, t, set(t)) for d in definitions for t in [tokens(d.node)]]
        self._grown = collections.defaultdict(list)
        self._gained: dict[int, list[str]] = {}  # a grown definition's index -> the tokens it gained
        for d, before in grown:
            self._grown[d.name].append((d, before))
        self.names = frozenset(d.name for d in definitions) | frozenset(
            d.name for d, before in grown if before.end_lineno - before.lineno < d.node.end_lineno - d.node.lineno)
        self._index = collections.defaultdict(list)
        for i, c in enumerate(self.items):
            for token in c.bag:
                self._index[token].append(i)
        limit = max(50, RARE * len(self.items))
        self._index = {t: ids for t, ids in self._index.items() if len(ids) <= limit}
        self._by_name = collections.defaultdict(list)
        for i, c in enumerate(self.items):
            self._by_name[c.definition.name.lstrip("_")].append(i)
        self._grown_by_name = collections.defaultdict(list)
        self._before: dict[int, object] = {}

    def matches(self, origin: Definition, origin_tokens: list[str], tie: Tie) -> list[Match]:
        """The candidates alike enough to `origin`, best first."""
        bag = set(origin_tokens)
        shared = collections.Counter(i for t in bag for i in self._index.get(t, ()))
        picked = {i for i, _ in shared.most_common(3 * NEAREST)}
        near = sorted(picked, key=lambda i: -len(bag & self.items[i].bag) / len(bag | self.items[i].bag))[:NEAREST]
        named = {i for (name, top) in tie.kept_calls for i in self._by_name.get(name.lstrip("_"), ())
                 if self.items[i].definition.name == name and (self.items[i].definition.class_name is None) == top}
        named |= {i for i in self._reach_grown({n for n, _ in tie.kept_calls if not n.startswith("__")})
                  if (self.items[i].definition.name, self.items[i].definition.class_name is None) in tie.kept_calls}
        near = set(near) | named | set(self._by_name.get(origin.name.lstrip("_"), ()))
        near |= self._reach_grown(tie.newly_called, changed_only=True)
        near |= {i for name in tie.newly_called for i in self._by_name.get(name.lstrip("_"), ())
                     if self.items[i].definition.name == name}
        out = []
        for i in sorted(near):
            c = self.items[i]
            if tie.kept and not tie.delegation and i not in named:
                continue  # a method kept, not as a thin delegation: only what it newly calls
            need, evidence = _need(origin, c.definition, tie, i in named, len(origin_tokens) < SHORT)
            if evidence is None and (len(origin_tokens) < SHORT or len(c.tokens) < MIN_TOKENS
                                     or not (len(origin_tokens) <= 3 * len(c.tokens) <= 9 * len(origin_tokens))):
                continue
            s, covered = similarity_and_coverage(origin_tokens, c.tokens)
            same_name = c.definition.name.lstrip("_") == origin.name.lstrip("_")
            if len(origin_tokens) < MIN_TOKENS and not (evidence in (LEFT_CALLS, REWIRED, INHERITED) and same_name
                                                        and covered >= COVERED and len(c.tokens) <= 3 * len(origin_tokens)):
                continue
            if i in named:
                # what the method left behind calls: with the new functions it calls in turn (the body
                # split in helpers), or, when it existed and grew, what it gained (the body merged in)
                for more in (self._with_helpers(i), self._gained.get(i)):
                    if more:
                        s = max(s, similarity(origin_tokens, more))
            within = len(c.tokens) <= 3 * len(origin_tokens) or (evidence == LEFT_CALLS and len(origin_tokens) >= SHORT)
            alike = s >= need or (evidence in NAMING and covered >= COVERED and within)
            if alike and (i not in named or (same_name and tie.kept_shrank) or s >= 2 * tie.kept_similarity):
                out.append(Match(c.definition, s, evidence or "similar body", evidence is not None, i in named))
        return sorted(out, key=lambda m: -m.score)


    def _with_helpers(self, i: int) -> list[str] | None:
        """The tokens of a new definition followed by those of the new helpers it uses, and those
        they use (two levels): functions of its module it names (`f(...)`, `run(f)`), or methods
        of its class it reads on the instance (`self.f(...)`, `(self.f, self.g)`); None when
        it uses none."""
        first = self.items[i].definition
        out, seen, level = list(self.items[i].tokens), {i}, [i]
        for _ in range(2):
            following = []
            for k in level:
                for name in _used(self.items[k].definition):
                    for j in self._by_name.get(name.lstrip("_"), ()):
                        d = self.items[j].definition
                        if j not in seen and d.name == name and d.class_name == first.class_name \
                                and d.rel == first.rel:
                            seen.add(j)
                            following.append(j)
                            out += self.items[j].tokens
            level = following
        return out if len(seen) > 1 else None

    def _reach_grown(self, names, changed_only: bool = False) -> set[int]:
        """The grown definitions of these names, added to the items (once): their indices; only
        those whose length changed when `changed_only` (a function that existed as it was is a
        destination only when what the method left behind calls it: a call newly made to it
        elsewhere is no tie)."""
        out = set()
        for name in names:
            waiting = self._grown.pop(name, [])
            pending = [p for p in waiting if not (changed_only and _same_length(*p))]
            if len(pending) < len(waiting):
                self._grown[name] = [p for p in waiting if _same_length(*p)]
            for d, before in pending:
                t = tokens(d.node)
                self.items.append(Candidate(d, t, set(t)))
                self._gained[len(self.items) - 1] = gained(tokens(before), t)
                self._before[len(self.items) - 1] = before
                self._grown_by_name[d.name].append(len(self.items) - 1)  # not found by a same name
                out.add(len(self.items) - 1)
        for name in names:
            out.update(i for i in self._grown_by_name.get(name, ())
                       if not (changed_only and _same_length(self.items[i].definition, self._before[i])))
        return out


def _used(d: Definition) -> list[str]:
    """The names a definition uses, in order: the instance's attributes for a method, plain names
    for a function."""
    node = d.node
    if d.class_name is None:
        names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    else:
        me = node.args.args[0].arg if node.args.args else "self"
        names = [n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                 and n.value.id == me]
    return list(dict.fromkeys(names))


def _same_length(d: Definition, before) -> bool:
    return d.node.end_lineno - d.node.lineno == before.end_lineno - before.lineno


def gained(before: list[str], after: list[str]) -> list[str]:
    """The tokens `after` has that `before` did not: what was added or rewritten, in order."""
    ops = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    return [t for tag, _, _, j1, j2 in ops if tag in ("insert", "replace") for t in after[j1:j2]]


def _need(origin: Definition, d: Definition, tie: Tie, named: bool, short: bool) -> tuple[float, str | None]:
    same_name = d.name.lstrip("_") == origin.name.lstrip("_")
    if named:
        return (DELEGATED if tie.delegation and not short else THINNED), LEFT_CALLS
    if d.class_name in tie.inherited_from and d.name == origin.name:
        return PULLED_UP, INHERITED
    if d.class_name is None:
        if d.name in tie.newly_called:
            return TIED, REWIRED
        if same_name:
            return (SIMILAR if short else SIMILAR_SAME_NAME), SAME_NAME
        return SIMILAR, None
    if d.name.startswith("__"):
        return OTHER_CLASS, None  # every class has an `__init__`: holding one ties none of them
    if tie.owner and d.class_name in tie.owner.held:
        if d.name in tie.newly_called:  # a caller that moved into the component calls it there
            return TIED, REWIRED
        return min(TIED, SIMILAR_SAME_NAME), f"the class holds a {d.class_name} (self.{tie.owner.held[d.class_name]})"
    if d.class_name in tie.newly_called:
        return TIED, f"the class now builds a {d.class_name}"
    if tie.owner and d.name in tie.owner.held_calls:
        return HELD_CALL, f"the class calls it on self.{tie.owner.held_calls[d.name]}"
    return OTHER_CLASS, None
