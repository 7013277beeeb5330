"""Step games and the players for them: scheduling tests and the schedule benchmark without a reasoner in
the players.

:func:`step_game_kif` is a real GDL game (clingo plays it) in which every role may play ``(step 1)`` or
``(step 2)`` every turn for ``length`` turns; a role scores 100 when its last move was ``(step 2)``.
:func:`step_player_app` is an HTTP player for any of them: INFO ``available``, START ``ready``, PLAY a
seeded random ``(step 1)``/``(step 2)`` after ``delay_s``, many matches at once.

``python -m tests.helpers.step_players DELAY_S PORT...`` serves one player on each loopback port until
killed (prints ``ready`` once they listen).
"""

from __future__ import annotations

import asyncio
import random
import sys
from collections import Counter

from aiohttp import web


def step_game_kif(roles: int, length: int) -> str:
    """A ``roles``-player step game of ``length`` turns (see the module docstring)."""
    role_facts = " ".join(f"(role p{i + 1})" for i in range(roles))
    succ = " ".join(f"(succ {i} {i + 1})" for i in range(length))
    return f"""{role_facts}
(init (turn 0))
(<= (legal ?r (step 1)) (role ?r))
(<= (legal ?r (step 2)) (role ?r))
(<= (next (turn ?y)) (true (turn ?x)) (succ ?x ?y))
(<= (next (last ?r ?n)) (does ?r (step ?n)))
(<= (goal ?r 100) (true (last ?r 2)))
(<= (goal ?r 0) (role ?r) (not (true (last ?r 2))))
(<= terminal (true (turn {length})))
{succ}
"""


def step_games(count: int = 20) -> dict[str, str]:
    """``count`` step games by key (``step<roles>x<length>``): 1 to 4 roles, lengths 3, 5, 8, 12, 20."""
    games = {}
    for index in range(count):
        roles, length = index % 4 + 1, (3, 5, 8, 12, 20)[index // 4 % 5]
        games[f"step{roles}x{length}"] = step_game_kif(roles, length)
    return games


MESSAGES = web.AppKey("messages", Counter[str])
"""A step player app's count of the messages it received, by kind (``INFO``, ``START``, ...)."""


def step_player_app(seed: int, delay_s: float = 0.0) -> web.Application:
    """An HTTP player for step games (any number of matches at once); counts its messages (``app[MESSAGES]``)."""
    rng = random.Random(seed)
    messages: Counter[str] = Counter()

    async def handle(request: web.Request) -> web.Response:
        kind = (await request.text()).replace("(", " ").replace(")", " ").split()[0].upper()
        messages[kind] += 1
        if kind == "PLAY":
            if delay_s:
                await asyncio.sleep(delay_s)
            reply = rng.choice(["(step 1)", "(step 2)"])
        else:
            reply = {"INFO": "available", "START": "ready", "STOP": "done", "ABORT": "aborted"}.get(kind, "done")
        return web.Response(text=reply, content_type="text/acl")

    app = web.Application()
    app[MESSAGES] = messages
    app.router.add_post("/", handle)
    return app


async def serve(ports: list[int], delay_s: float = 0.0) -> None:
    """Serve one step player on each of ``ports``, forever."""
    for index, port in enumerate(ports):
        runner = web.AppRunner(step_player_app(index, delay_s), access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
    print("ready", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve([int(port) for port in sys.argv[2:]], float(sys.argv[1])))
