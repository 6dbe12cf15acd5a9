"""The subject the command line checks, chosen here and nowhere else: a method given with
`--method` (subjects/method.py), a component given with `--component` (subjects/component.py), else
PR #31147's preset (presets/kv_dtype/preset.py)."""

from __future__ import annotations

from equivalence.subject import Subject


def choose(args) -> Subject:
    from equivalence.presets.kv_dtype.preset import KvPreset
    from equivalence.subjects.component import ComponentSubject
    from equivalence.subjects.method import MethodSubject

    from equivalence.subjects.moves import MovesSubject

    if getattr(args, "component", None):
        return ComponentSubject(args)
    if args.method:
        return MethodSubject(args)
    if getattr(args, "preset", None) or args.steps or args.fix or args.intended:
        return KvPreset(args)
    return MovesSubject(args)  # nothing named: what moved is found, the preset only when its method did
