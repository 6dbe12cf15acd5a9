"""While the harness captures logs, records skip what no event reads (the caller's frame, the
thread, the process); afterwards logging is as it was."""

from __future__ import annotations

import logging

from equivalence.engine.run import observe


class _World:
    def __init__(self):
        self.events = []


def test_records_are_events_and_logging_is_restored():
    before = {name: getattr(logging, name) for name in observe._RECORD_FIELDS}
    seen = []
    probe = logging.getLogger("capture-probe")
    probe.addFilter(lambda record: seen.append((record.funcName, record.thread)) or True)
    restore = observe.capture_logs([])
    world = _World()
    observe.CURRENT.append(world)
    try:
        probe.warning("weights %s", "sent")
    finally:
        observe.CURRENT.pop()
        restore()
    assert world.events == [("log", "WARNING", "weights sent")]
    assert seen == [("(unknown function)", None)]  # no frame looked up, no thread asked for
    assert {name: getattr(logging, name) for name in observe._RECORD_FIELDS} == before
    probe.warning("after")
    assert seen[-1][0] == "test_records_are_events_and_logging_is_restored" and seen[-1][1] is not None
