"""Coroutines run to their end without an event loop. The code under test may be async (a method
`async def`, a call site that awaits): its coroutine is stepped by hand, as an event loop would
when every await completes at once (`asyncio.sleep(0)`, an `async def` awaiting nothing pending, a
world value awaited: `StandIn.__await__`). Comparing the coroutine objects instead would compare
nothing: both versions' would look alike whatever their bodies do."""

from __future__ import annotations

import inspect

AWAIT_STEPS = 1000  # a coroutine still suspended after this many steps waits on something outside the run


class NeverCompleted(RuntimeError):
    """The code under test awaited something that does not complete within the run (a real
    future, an event): the run cannot say what it would do."""


def drive(coroutine):
    """The value `coroutine` returns (or the exception it raises), stepping it to its end."""
    try:
        for _ in range(AWAIT_STEPS):
            coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise NeverCompleted(f"the coroutine was still waiting after {AWAIT_STEPS} steps")


def settled(value):
    """`value`, or what it returns when it is a coroutine (an async method's call)."""
    return drive(value) if inspect.iscoroutine(value) else value


def driven(coroutine_function):
    """A function running the coroutine `coroutine_function` makes to its end."""

    def run(*args, **kwargs):
        return drive(coroutine_function(*args, **kwargs))

    run.__wrapped__ = coroutine_function
    return run
