"""What moved between two versions of a package: every method that left its class, and where
its body went (RefactoringMiner's question, answered by body similarity and by the calls that
tie a method to its new place, not by names).

The classes of the changed files are followed first (`classes.follow`): a class that moved to
another file or was renamed keeps its methods; a mixin its users replaced by a component they
hold has moved them into it. A method has left its class when the class no longer defines it,
or defines it as a delegation (or a body shrunk to at most half, calling the destination) where
the old one had a body of its own. Its destination is the new definition (a module-level
function, or a method of another class) whose body, read in the same terms, is most like the
old one (`bodies.tokens`: `self.x` reads `x`, a view of the instance reads as the instance),
above a threshold that is lower when something besides the body ties them: the method left
behind calls it, the class now calls it, the class holds an instance of its class, the code
that used the method (its callers in the class, wherever they went, or the code of its file
reading it) now calls it (`matching`). What the method left behind calls is read with the new
helpers it calls, or, when it existed, for what it gained. A body goes to one origin unless such
a tie names it. A class all of whose moved methods land in one new class was renamed: those are
no moves.

The kind follows from where the body went: a function (the wrapper kept, or every caller
rewritten), a component the owner holds, a base class of the owner (pulled up), another class.
Only files whose text differs are parsed, each once; the result is a list of `Move`, in file order.
"""

from __future__ import annotations

import ast
import collections
import functools
from pathlib import Path

from pysource.moves.call_sites import call_edits
from pysource.moves.outside_calls import ChangedFiles, outside_call_edits
from pysource.moves.bodies import called, delegates, similarity, tokens
from pysource.moves.classes import Owner, OwnerCode, base_names, names_base, called_names, follow, methods, read_owner
from pysource.moves.matching import TINY, Candidates, Match, Tie
from pysource.moves.model import Definition, Move
from pysource.moves.versions import ClassKey, changed_versions

__all__ = ["Definition", "Move", "find_moves"]

THINNED = 0.5  # a method kept whose body shrank to at most this share may have left it behind


def find_moves(before: Path, after: Path, package: str = "sglang") -> list[Move]:
    """Every method of `before` (a folder holding `package`) that left its class in `after`."""
    old, new = changed_versions(Path(before), Path(after), package)
    old_classes, new_classes = old.classes(), new.classes()
    owners = follow(old_classes, new_classes)
    old_defs, new_defs = old.definitions(), new.definitions()
    existed = {(d.rel, d.class_name, d.name) for d in old_defs}
    for key, owner in owners.items():
        if owner.key and owner.key != key:  # the class moved or was renamed: its methods went with it
            existed |= {(*owner.key, name) for name in methods(old_classes[key])}
    before_nodes = {(d.rel, d.class_name, d.name): d.node for d in old_defs}
    # what existed, reached only by name (what a method left behind calls, what its callers now
    # call): a body merged into it, a name now holding a wrapper around it, or a copy it deduplicated
    grown = [(d, before_nodes[(d.rel, d.class_name, d.name)]) for d in new_defs
             if (d.rel, d.class_name, d.name) in before_nodes]
    candidates = Candidates([d for d in new_defs if (d.rel, d.class_name, d.name) not in existed], grown)
    after_defs = {(d.rel, d.class_name, d.name): d for d in new_defs}
    after_methods = {k: d for k, d in after_defs.items() if d.class_name}
    codes: dict[ClassKey, OwnerCode] = {}

    built: list[dict[str, set[str]]] = []

    def factories() -> dict[str, set[str]]:
        if not built:
            built.append(_factories(new_defs, new_classes))
        return built[0]

    def code(key: ClassKey) -> OwnerCode:
        if key not in codes:
            codes[key] = _with_built(read_owner(new_classes[key]), factories())
        return codes[key]

    def left(origin: Definition):
        """The origin, its owner, what is left of it in the class and its tokens: None when it stays."""
        owner = owners[(origin.rel, origin.class_name)]
        kept = after_methods.get((*owner.key, origin.name)) if owner.key else None
        if kept is not None and not _left_behind(origin, kept, candidates.names):
            return None
        if kept is None and owner.key and _inherits_as_before(new_classes[owner.key], origin.name):
            return None  # an override dropped: the class inherits a definition that was there already
        origin_tokens = tokens(origin.node)
        if len(origin_tokens) < TINY and not (kept is None and owner.key and pulled_into(owner.key, origin.name)):
            return None
        return origin, owner, kept, origin_tokens

    @functools.cache  # asked by `left` and again by `propose`, each a walk over the classes
    def pulled_into(key: ClassKey, name: str) -> frozenset[str]:
        """The bases of the class (after; by name, through the bases' bases) where a method
        `name` is new: the class inherits it from there in place of its own."""
        out, seen, names = set(), set(), base_names(new_classes[key])
        while names:
            seen |= names
            bases = [k for k in new_classes if k[1] in names]
            out |= {k[1] for k in bases if (*k, name) in after_defs and (*k, name) not in existed}
            names = {b for k in bases for b in base_names(new_classes[k])} - seen
        return frozenset(out)

    def _inherits_as_before(node: ast.ClassDef, name: str) -> bool:
        """Whether a base of the class (by name, anywhere in the changed files) defines `name` as
        it did before: unchanged, so nothing arrived there."""
        bases = base_names(node)
        keys = [(rel, class_name, name) for rel, class_name in new_classes if class_name in bases]
        return any(key in before_nodes and key in after_defs
                   and ast.dump(before_nodes[key]) == ast.dump(after_defs[key].node) for key in keys)

    holders_code: dict[tuple, tuple] = {}
    class_calls: dict[ClassKey, frozenset[str]] = {}

    def old_calls(key: ClassKey) -> frozenset[str]:
        if key not in class_calls:
            class_calls[key] = called_names(old_classes[key])
        return class_calls[key]

    def holders(key: ClassKey, owner: Owner):
        """The owner's code after, merged over its holders, and the functions it newly calls."""
        if (key, owner.holders) not in holders_code:
            merged = _merged([code(h) for h in owner.holders])
            newly = frozenset()
            if merged:
                newly = merged.called - old_calls(key) - frozenset().union(
                    *(old_calls(h) for h in owner.holders if h in old_classes))
            holders_code[(key, owner.holders)] = (merged, newly)
        return holders_code[(key, owner.holders)]

    def propose(gone, rewired: frozenset[str] = frozenset()):
        origin, owner, kept, origin_tokens = gone
        key = (origin.rel, origin.class_name)
        merged, newly = holders(key, owner)
        newly = newly | rewired
        delegation = kept is not None and delegates(kept.node)
        kept_tokens = tokens(kept.node) if kept else []
        kept_similarity = similarity(kept_tokens, origin_tokens) if kept and not delegation else 0.0
        kept_calls = called(kept.node) if kept else {}
        if kept and not (delegation and len(kept_tokens) <= THINNED * len(origin_tokens)):
            # a call it made before ties nothing, unless all that is left of a long body is that call
            before = called(origin.node)
            kept_calls = {k: v for k, v in kept_calls.items() if k not in before}
        shrank = kept is not None and len(kept_tokens) < len(origin_tokens)
        inherited = pulled_into(owner.key, origin.name) if owner.key and kept is None else frozenset()
        tie = Tie(kept_calls, kept is not None, delegation, merged, newly, kept_similarity, shrank, inherited)
        matches = [m for m in candidates.matches(origin, origin_tokens, tie)
                   if _is_test(origin.rel) or not _is_test(m.destination.rel)]
        own = [m.similarity for m in matches if owner.key and _in(m.destination, owner.key)]
        matches = [m for m in matches if not (owner.key and _in(m.destination, owner.key))]
        if owner.key and kept is None:
            # pulled up: a base of the class now defining it under its name is where it went
            bases = base_names(new_classes[owner.key])
            matches = [m for m in matches if m.destination.class_name in bases
                       and m.destination.name == origin.name] or matches
        if kept is None and own and matches and max(own) >= matches[0].similarity:
            return None  # renamed in place: a new method of its own class is as like it as anything
        return (origin, owner, kept, matches) if matches else None

    gone = [g for g in map(left, (d for d in old_defs if d.class_name)) if g]
    proposals = [p for p in map(propose, gone) if p]
    chosen = _assign(proposals)
    # a second look at what found nothing, through its callers: where they went, what do they call now
    now = {id(proposals[i][0].node): m.destination.node for i, m in chosen.items()}
    proposed = {id(p[0]) for p in proposals}
    self_calls: dict[int, set[str]] = {}
    for g in gone:
        if id(g[0]) in proposed:
            continue
        rewired = _rewired(g[0], old_classes, now, after_methods, owners, self_calls) \
            | _rewired_in_file(g[0], old.trees[g[0].rel], after_defs, self_calls)
        if rewired:
            again = propose(g, rewired)
            if again:
                proposals.append(again)
    chosen = _assign(proposals)
    moves = []
    outside = None
    for i, match in sorted(chosen.items()):
        origin, owner, kept, _ = proposals[i]
        kind, attr = _kind(match.destination, owner, kept, new_classes, code)
        here = (origin.rel, origin.class_name)
        elsewhere = owner.holders[0] if owner.holders and owner.holders[0] != here else None
        edits = call_edits(origin, old_classes[here], new_classes[owner.key], owner.key[0], match.destination,
                           attr if kind == "component" else None, kept is not None) if owner.key else ()
        if kept is None and kind in ("component", "function, callers rewritten"):  # its callers elsewhere changed too
            outside = outside or ChangedFiles(Path(before), Path(after), old.changed)
            edits += outside_call_edits(origin, match.destination, attr if kind == "component" else None, outside)
        moves.append(Move(kind, origin, match.destination, match.similarity, kept is not None, attr, elsewhere,
                          match.evidence, edits))
    moves.sort(key=lambda m: (m.origin.rel, m.origin.node.lineno))
    return _without_renamed_classes(moves, owners, old_classes, new_classes)


def _rewired(origin: Definition, old_classes, now, after_methods, owners, self_calls) -> frozenset[str]:
    """The functions the methods that called `origin` call now and did not before, wherever
    they are now (kept in the class, or moved): the call sites rewired to its new place."""
    node = old_classes[(origin.rel, origin.class_name)]
    owner = owners[(origin.rel, origin.class_name)]
    out = set()
    for caller in (f for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))):
        if id(caller) not in self_calls:
            self_calls[id(caller)] = _self_called(caller)
        if origin.name not in self_calls[id(caller)]:
            continue
        after = now.get(id(caller))
        if after is not None:  # the caller moved: what it calls on its new instance counts too
            out |= (called_names(after) | _self_called(after)) - called_names(caller)
            continue
        if owner.key:
            kept = after_methods.get((*owner.key, caller.name))
            if kept is not None:
                out |= called_names(kept.node) - called_names(caller)
    return frozenset(out)


def _factories(definitions: list[Definition], classes: dict[ClassKey, ast.ClassDef]) -> dict[str, set[str]]:
    """What each function or method of the new version builds, by name: the classes it returns
    (`return C(...)`, `-> C`) and the classes deriving from those (`-> Interface`)."""
    names = {name for _, name in classes}
    out = collections.defaultdict(set)
    for d in definitions:
        returns = d.node.returns
        if isinstance(returns, ast.Constant) and isinstance(returns.value, str):
            returns = ast.Name(returns.value.strip())
        if isinstance(returns, (ast.Name, ast.Attribute)):
            out[d.name].add(returns.id if isinstance(returns, ast.Name) else returns.attr)
        for r in ast.walk(d.node):
            if isinstance(r, ast.Return) and isinstance(r.value, ast.Call) and isinstance(r.value.func, ast.Name):
                out[d.name].add(r.value.func.id)
    derived = collections.defaultdict(set)
    for node in classes.values():
        for b in node.bases:
            base = b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)
            derived[base].add(node.name)
    result = {}
    for f, returned in out.items():
        classes_built = (returned | set().union(*(derived.get(c, set()) for c in returned))) & names
        if classes_built:
            result[f] = classes_built
    return result


def _with_built(code: OwnerCode, factories: dict[str, set[str]]) -> OwnerCode:
    """The owner's code, holding too the classes its factories build (`self.x = create_x(...)`,
    `self.x = pool.create_x(...)`)."""
    held = dict(code.held)
    for name, attr in code.held.items():
        for c in sorted(factories.get(name, ())):
            held.setdefault(c, attr)
    return OwnerCode(held, code.held_calls, code.called) if len(held) > len(code.held) else code


def _rewired_in_file(origin: Definition, tree: ast.Module, after_defs, reads) -> frozenset[str]:
    """The functions that the other code of its file reading `x.METHOD` (a property, a method
    of an instance it is handed) calls now and did not before, kept where it was."""
    out = set()
    for top in tree.body:
        if isinstance(top, ast.ClassDef) and top.name != origin.class_name:
            defs = [(top.name, f) for f in top.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        elif isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs = [(None, top)]
        else:
            continue
        for class_name, caller in defs:
            key = ("other", id(caller))
            if key not in reads:
                static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in caller.decorator_list)
                me = caller.args.args[0].arg if class_name and caller.args.args and not static else None
                reads[key] = {a.attr for a in ast.walk(caller) if isinstance(a, ast.Attribute)
                              and not (isinstance(a.value, ast.Name) and a.value.id == me)}
            if origin.name not in reads[key]:
                continue
            after = after_defs.get((origin.rel, class_name, caller.name))
            if after is not None:
                out |= called_names(after.node) - called_names(caller)
    return frozenset(out)


def _self_called(node) -> set[str]:
    """What a method reads on its instance (`self.m(...)`, a property `self.p`)."""
    me = node.args.args[0].arg if node.args.args else "self"
    return {a.attr for a in ast.walk(node) if isinstance(a, ast.Attribute)
            and isinstance(a.value, ast.Name) and a.value.id == me}


def _left_behind(origin: Definition, kept: Definition, new_names: frozenset[str]) -> bool:
    """Whether the method kept may be what is left of one that moved: a delegation, a body
    shrunk to at most half, or a changed body calling a new definition (lines first: most
    methods kept did not change length)."""
    if delegates(origin.node):
        return False  # it delegated already: what it calls moved, if anything
    if delegates(kept.node):
        return not _kept_as_it_was(origin, kept)
    if _lines(kept.node) == _lines(origin.node):
        return False
    if _lines(kept.node) <= 0.8 * _lines(origin.node) \
            and len(tokens(kept.node)) <= THINNED * len(tokens(origin.node)):
        return True
    if len(tokens(kept.node)) > len(tokens(origin.node)):
        return False  # it grew: it keeps its work, what it newly calls is a piece taken out of it
    return any(name in new_names for name, _ in called(kept.node)) and not _kept_as_it_was(origin, kept)


KEPT_AS_IT_WAS = 0.8  # a method kept with this much of its old body in order is still that body


def _kept_as_it_was(origin: Definition, kept: Definition) -> bool:
    """Whether the method kept is its old body with a few edits (an argument added, a line
    dropped): what it calls, even by a name some new definition has, took nothing from it."""
    return similarity(tokens(kept.node), tokens(origin.node)) >= KEPT_AS_IT_WAS


def _is_test(rel: str) -> bool:
    """A test module: code does not move into tests (a test's reference copy of it is no move)."""
    parts = rel.split("/")
    return any(p in ("test", "tests") for p in parts[:-1]) or parts[-1].startswith(("test_", "conftest"))


def _lines(node) -> int:
    return node.end_lineno - node.lineno + 1


def _merged(holders: list[OwnerCode]) -> OwnerCode | None:
    if not holders:
        return None
    held, calls = {}, {}
    for h in holders:
        held = {**h.held, **held}
        calls = {**h.held_calls, **calls}
    return OwnerCode(held, calls, frozenset().union(*(h.called for h in holders)))


def _in(d: Definition, key: ClassKey) -> bool:
    return (d.rel, d.class_name) == key


def _assign(proposals) -> dict[int, Match]:
    """Best matches first; a body goes to one origin unless a call or holder ties it to more
    (several methods merged into one function)."""
    ranked = sorted(((m.score, i, m) for i, p in enumerate(proposals) for m in p[3]), key=lambda t: (-t[0], t[1]))
    chosen, taken = {}, set()
    for _, i, m in ranked:
        if i in chosen or (id(m.destination.node) in taken and not m.tied):
            continue
        chosen[i] = m
        taken.add(id(m.destination.node))
    return chosen


def _kind(destination: Definition, owner: Owner, kept, new_classes, code) -> tuple[str, str | None]:
    if destination.class_name is None:
        return ("function" if kept is not None else "function, callers rewritten"), None
    for key in owner.holders:
        node = new_classes[key]
        if destination.class_name in base_names(node):
            return "superclass", None
    for key in owner.holders:
        c = code(key)
        if destination.class_name in c.held:
            return "component", c.held[destination.class_name]
        if destination.name in c.held_calls:
            return "component", c.held_calls[destination.name]
    return "other class", None


def _without_renamed_classes(moves: list[Move], owners, old_classes, new_classes) -> list[Move]:
    """A class renamed (or moved and renamed) took its methods with it: no moves. Either most of
    its moved methods land in one new class nobody holds, or a class new in this version holds at
    least half of its methods under their names with their bodies, while what its old name now
    names (nothing, an alias subclass, another class) keeps none of them."""
    landed = collections.defaultdict(collections.Counter)
    for m in moves:
        key = (m.origin.rel, m.origin.class_name)
        if m.kind in ("other class", "superclass"):
            landed[key][(m.destination.rel, m.destination.class_name)] += 1
    renamed = set()
    for key, counts in landed.items():
        (where, n), = counts.most_common(1)
        if owners[key].key is None and n >= 2 and n >= 0.5 * len(methods(old_classes[key])):
            renamed.add((key, where))
        renamed |= {(key, d) for d in counts if d not in old_classes and d in new_classes
                    and _carried(old_classes[key], new_classes[d], new_classes.get(owners[key].key))}
    return [m for m in moves if ((m.origin.rel, m.origin.class_name), (m.destination.rel, m.destination.class_name))
            not in renamed]


CARRIED = 0.8  # a method the renamed class holds with this much of its body is the same method


def _carried(old: ast.ClassDef, new: ast.ClassDef, old_name_now: ast.ClassDef | None) -> bool:
    """Whether `new` holds at least half of `old`'s methods, each under its name with its body,
    and its old name now names no class, an empty alias deriving from `new`, or another class
    holding none of its methods and not using `new` (a subclass of `new` with methods of its own had them
    pulled up; a class naming `new` in its body holds or builds it: they moved into it)."""
    def own(node):
        return {f.name: f for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    mine, theirs = own(old), own(new)
    same = {name for name, f in mine.items()
            if name in theirs and similarity(tokens(f), tokens(theirs[name])) >= CARRIED}
    if not same or len(same) < 0.5 * len(mine):
        return False
    if old_name_now is None:
        return True
    if names_base(old_name_now, new.name):
        return not own(old_name_now)
    if any(isinstance(n, ast.Name) and n.id == new.name for n in ast.walk(old_name_now)):
        return False  # the class its name now names uses the new one (holds it, builds it): they moved into it
    return not set(own(old_name_now)) & set(mine)  # keeping any of its methods, it is the same class
