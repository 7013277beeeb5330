"""``python -m tests.helpers.slow_player PORT [SPEC]``: a player server (as ``ggp player`` serves one, in a
worker process under limits) whose machine factory's setup takes an hour (:func:`never_built`), for the
interoperability test of "a legal move at any clock" on ggp-base's host. Serves until killed."""

from __future__ import annotations

import sys
from functools import partial

from aiohttp import web

from ggp.players.registry import make_player
from ggp.protocol.server import PlayerLimits, create_player_app
from tests.helpers.slow_setup import never_built

LIMITS = PlayerLimits(memory_mb=1024, max_call_s=2.0, min_call_s=1.0)
"""A setup past 2 s is killed: the player then starts again on the recovery engine."""


def main(argv: list[str]) -> None:
    port = int(argv[0])
    spec = argv[1] if len(argv) > 1 else "mcts"
    app = create_player_app(partial(make_player, spec, 0), "slow", never_built, limits=LIMITS)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(sys.argv[1:])
