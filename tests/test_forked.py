"""engine.forked: each check in a child of its own, answers in order, a failure said."""

import os
import signal
import time

from equivalence.engine.forked import Failed, run_each


def _slow_first(n):
    time.sleep(0.3 if n == 0 else 0.0)
    return n * 10


def test_answers_come_back_in_the_order_of_the_items_whatever_finishes_first():
    assert run_each(_slow_first, [0, 1, 2, 3], jobs=2) == [0, 10, 20, 30]


def _raising(n):
    if n == 1:
        raise ValueError("no such field")
    return n


def test_a_check_that_raises_is_a_failure_said_in_words_and_the_others_are_kept():
    first, second, third = run_each(_raising, [0, 1, 2], jobs=2)
    assert (first, third) == (0, 2)
    assert second == Failed("ValueError: no such field")


def _killed(n):
    if n == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def test_a_child_that_dies_is_a_failure_naming_the_signal():
    died, lived = run_each(_killed, [0, 1], jobs=1)
    assert isinstance(died, Failed) and "killed by signal 9" in died.why
    assert lived == 1


def test_an_answer_that_cannot_travel_back_is_a_failure_not_lost():
    (answer,) = run_each(lambda n: (lambda: n), [0], jobs=1)
    assert isinstance(answer, Failed) and "could not be sent back" in answer.why


_LEFT = []


def _leaves_state(n):
    _LEFT.append(n)  # what one check leaves behind in its process
    return list(_LEFT)


def test_nothing_one_check_leaves_behind_reaches_the_next():
    assert run_each(_leaves_state, [1, 2, 3], jobs=1) == [[1], [2], [3]]
    assert _LEFT == []
