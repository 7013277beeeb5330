"""The misbehaving player farm of the soak benchmark (``benchmarks/soak.py``): step-game players of five kinds.

Every player answers INFO ``available`` and plays the step games of ``tests/helpers/step_players.py``
(``(step 1)`` or ``(step 2)`` every turn), each in its own way:

- ``honest``: a random legal move within 0.2 s;
- ``slow``: a move near or just after the play clock (from the play clock - 0.6 s to + 1 s);
- ``garbage``: an illegal move, a malformed reply or an empty body, half of the time;
- ``silent``: accepts the connection and never answers PLAY (and, one time in three, START);
- ``crashing``: honest while it is up, but every 30-90 s its server goes away for 10-40 s (the port is
  closed and every open connection dropped), then comes back.

:func:`kind_of` says which kind the player on the i-th port is. Run as
``python -m soak_players PLAYCLOCK_S SEED PORT...`` (from ``benchmarks/``): serves one player on each loopback
port until killed and prints ``ready`` once they listen.
"""

from __future__ import annotations

import asyncio
import random
import sys

from aiohttp import web

KINDS = ("honest", "honest", "slow", "honest", "crashing", "honest", "garbage", "honest", "silent", "honest")
"""The kinds in the order they are dealt to the ports (half honest, a tenth of each other kind)."""

GARBAGE = ("(step 9)", "(((", "", "(move 1 1)", "step 2)", "\x00\xff junk")


def kind_of(index: int) -> str:
    """The kind of the player on the ``index``-th port."""
    return KINDS[index % len(KINDS)]


def player_app(kind: str, rng: random.Random, play_clock_s: float) -> web.Application:
    """An HTTP player of ``kind`` for step games (any number of matches at once)."""

    async def handle(request: web.Request) -> web.Response:
        text = await request.text()
        words = text.replace("(", " ").replace(")", " ").split()
        message = words[0].upper() if words else ""
        if message == "PLAY":
            reply = await _play(kind, rng, play_clock_s)
        elif message == "START" and kind == "silent" and rng.random() < 1 / 3:
            await asyncio.Event().wait()  # never answers; the manager gives up and closes the connection
            reply = ""
        else:
            reply = {"INFO": "available", "START": "ready", "STOP": "done", "ABORT": "aborted"}.get(message, "done")
        return web.Response(text=reply, content_type="text/acl")

    app = web.Application()
    app.router.add_post("/", handle)
    return app


async def _play(kind: str, rng: random.Random, play_clock_s: float) -> str:
    move = rng.choice(["(step 1)", "(step 2)"])
    if kind == "slow":
        await asyncio.sleep(max(0.0, play_clock_s + rng.uniform(-0.6, 1.0)))
    elif kind == "silent":
        await asyncio.Event().wait()
    elif kind == "garbage" and rng.random() < 0.5:
        return rng.choice(GARBAGE)
    else:
        await asyncio.sleep(rng.uniform(0.0, 0.2))
    return move


class Player:
    """One player on one port, which can go away (its server and connections closed) and come back."""

    def __init__(self, port: int, kind: str, seed: int, play_clock_s: float) -> None:
        self.port, self.kind = port, kind
        self.rng = random.Random(seed)
        self.play_clock_s = play_clock_s
        self.runner: web.AppRunner | None = None

    async def up(self) -> None:
        self.runner = web.AppRunner(player_app(self.kind, self.rng, self.play_clock_s), access_log=None,
                                    shutdown_timeout=0.1)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def down(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    async def crash_forever(self) -> None:
        """Go away every 30-90 s for 10-40 s."""
        while True:
            await asyncio.sleep(self.rng.uniform(30, 90))
            await self.down()
            await asyncio.sleep(self.rng.uniform(10, 40))
            while True:
                try:
                    await self.up()
                    break
                except OSError:  # the port is not free yet
                    await asyncio.sleep(1)


async def serve(play_clock_s: float, seed: int, ports: list[int]) -> None:
    """Serve one player on each of ``ports``, forever."""
    players = [Player(port, kind_of(index), seed * 1000 + index, play_clock_s) for index, port in enumerate(ports)]
    for player in players:
        await player.up()
    crashes = [asyncio.create_task(p.crash_forever()) for p in players if p.kind == "crashing"]
    print("ready", flush=True)
    await asyncio.gather(*crashes, asyncio.Event().wait())


if __name__ == "__main__":
    asyncio.run(serve(float(sys.argv[1]), int(sys.argv[2]), [int(port) for port in sys.argv[3:]]))
