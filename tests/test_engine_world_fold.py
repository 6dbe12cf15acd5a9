"""A loop walking a value the world made up (`text = text[1:]`, `node = node.next`) reaches a
fixed point instead of reading a new input, its key one step longer, every turn; and a pair's
entry lists at most INPUTS_LISTED inputs, each key short, counting the rest."""

from __future__ import annotations

from equivalence.engine.report.models import INPUT_KEY_CHARS, INPUTS_LISTED, PairEntry, listed_inputs
from equivalence.engine.world.standins import REPEATS, derived

SLICE = "['<slice>']"


def test_a_step_repeated_past_its_limit_gives_the_value_it_steps_from():
    key = "local:text"
    chain = [key]
    for _ in range(3 * REPEATS):
        key = derived(key, SLICE)
        chain.append(key)
    assert chain[-1] == chain[-2] == "local:text" + SLICE * REPEATS
    assert len(set(chain)) == REPEATS + 1  # the text, then each of its first REPEATS slices
    # another step in between is another value: only the same step running folds
    assert derived(chain[-1] + ".strip()", SLICE) == chain[-1] + ".strip()" + SLICE
    node = "self.head" + ".next" * 20  # short steps fold once the key is long enough to check
    assert derived(node, ".next") == node


def test_a_pair_lists_its_inputs_up_to_a_limit_and_counts_the_rest():
    options = {f"self.x{i}": ["1", "<stand-in>"] for i in range(INPUTS_LISTED + 7)}
    options["local:" + "y" * INPUT_KEY_CHARS] = ["<stand-in>"]
    listed, left_out = listed_inputs(options)
    assert len(listed) == INPUTS_LISTED and left_out == 8
    assert list(listed) == [f"self.x{i}" for i in range(INPUTS_LISTED)]  # in the order first read
    assert listed_inputs({"self.x": ["1"]}) == ({"self.x": ["1"]}, None)
    entry = PairEntry.from_json({"inputs": listed, "inputs_left_out": left_out})
    assert PairEntry.from_json(entry.to_json()).inputs_left_out == 8
