"""A path first reached with choices it does not need is also tried with each of them undone, at
once: a run that reached new code has its choices undone one at a time, and a configuration
already waiting further back moves up when such a run asks for it.

The program below is the shape of WeightUpdater's bucketed path (0.5.15.post1): the gate's value
(`group_name in self._model_update_group`) is found only on a path taken with another input set
(`x == 5`, there `names == []`), and what lies behind the gate needs that input at its default
(`x == 0`, there a list of one name whose dtype is a string). Three keys of noise stand for the
many other inputs the runs read first, two more the inputs read behind the gate."""

from __future__ import annotations

from equivalence.engine.run.explore import explore
from equivalence.engine.world.world import Domains, value

NOISE = ("x", "y", "z")
BEHIND = ("u", "v")  # read behind the gate only


def _program():
    domains = Domains({**{k: [value(n) for n in range(10)] for k in NOISE + BEHIND}, "g": [value(0)]})
    seen: set[str] = set()
    last_new = [False]
    reached_target = []

    def run(config, identity):
        read = {}

        def get(key):
            read[key] = config.get(key, domains.options[key][0])
            return read[key][1]

        if "call[0]" in domains.options:
            get("call[0]")
        arcs = ["start"]
        x, _, _ = (get(k) for k in NOISE)
        if x == 5:
            arcs.append("x5")
            domains.grow("g", [value(1)])  # the gate's value, found on this path only (a demand)
        if get("g") == 1:
            arcs.append("gate")
            for k in BEHIND:
                get(k)
            if x == 0:
                arcs.append("target")
                reached_target.append(dict(config))
        last_new[0] = not seen.issuperset(arcs)
        seen.update(arcs)
        return config, read, set()

    return run, domains, (lambda: last_new[0]), reached_target


def test_the_gate_reached_with_an_extra_choice_is_tried_without_it_within_a_small_budget():
    run, domains, novel, reached = _program()
    explored = explore(run, domains, [{}], 55, novel=novel)
    assert reached, f"target never reached in {len(explored.configs)} runs"
    assert reached[0] == {"g": value(1)}  # the gate's value alone: x undone


def test_a_seeds_own_choices_are_never_undone():
    """The keys every seed sets (a component's call sequence) are the shape being explored."""
    run, domains, novel, reached = _program()
    domains.options["call[0]"] = [value("a"), value("b")]
    explore(run, domains, [{"call[0]": value("b")}], 80, novel=novel)
    assert reached and all(config.get("call[0]") == value("b") for config in reached)
