"""Waiting on a condition instead of sleeping a fixed time.

A fixed sleep is either too short on a busy machine (the test fails for no
reason) or longer than needed everywhere. These helpers poll a condition
until it holds and fail, naming what they waited for, at a deadline.

For "nothing happens" checks, wait first for a positive sign that the
server got past the point where the unwanted thing would have happened
(a later event, a recorded result, or a round trip through the room:
:meth:`tests.wsclient.Client.sync`), then assert it did not happen.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")


def _describe(condition: Callable[[], object], what: str | None) -> str:
    return what or str(getattr(condition, "__name__", condition))


@overload
async def wait_for(condition: Callable[[], Awaitable[T | None]], *, timeout: float = ...,
                   interval: float = ..., what: str | None = ...) -> T: ...
@overload
async def wait_for(condition: Callable[[], T | None], *, timeout: float = ...,
                   interval: float = ..., what: str | None = ...) -> T: ...
async def wait_for(condition: Callable[[], Any], *, timeout: float = 5.0,
                   interval: float = 0.01, what: str | None = None) -> Any:
    """Calls ``condition`` (plain or async) until it returns a true value, and returns it.

    Raises AssertionError if it is still false after ``timeout`` seconds.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() >= deadline:
            raise AssertionError(
                f"still waiting after {timeout} s for {_describe(condition, what)}")
        await asyncio.sleep(interval)

