"""The aiohttp player server: one GGP match at a time, anytime replies, never down because of one match.

:func:`create_player_app` builds the web application; :class:`PlayerHost` holds the match state and
answers the typed messages. Requests are ``POST /`` (what managers send), ``GET /<url-encoded
message>`` and ``OPTIONS`` preflights; every response carries the CORS headers ggp-base players send
and replies use ``Content-Type: text/acl``. A message that does not parse gets HTTP 400 with a one-line
reason and the server keeps serving. A message over its kind's size (:mod:`ggp.protocol.limits`: a START
carries the rules, anything else is small) gets 413; a large one is parsed off the event loop
(:class:`~ggp.protocol.parsing.ParseLane`). A browser on another site (``Origin``, ``Sec-Fetch-Site``)
may send INFO and PREVIEW only: anything else gets 403, as on the manager. Connections, slow clients and
their log lines are :mod:`ggp.protocol.httpguard`'s.

The reasoning of a match (building the state machine, the player's search) is done by a
:class:`~ggp.protocol.seat.Seat`, never on the event loop. Without :class:`PlayerLimits` the seat runs
in one search thread of this process (tests, players embedded in another program); with them (``ggp
player``) it runs in a worker process whose address space is bounded and whose every call is bounded
in time, relative to the match's clocks (see :class:`PlayerLimits`). A call over a bound kills the
worker (one WARNING line says which bound) and a fresh worker is started. Meanwhile the event loop stays
free: INFO, ABORT and STOP are answered, and SIGTERM stops the server.

**A legal move at any clock.** Besides the player's seat, every GDL match has a *standby* seat in this
process (its own thread) on a cheap engine that builds at once (``standby_factory``, by default the
top-down prover: :func:`~ggp.protocol.seat.standby_machine`); it follows every joint move. Whenever the
player's seat has no move by the reply deadline (its setup is still building the engines, applying the
moves or the search overran, its worker died or was killed over a bound), the reply is the player's
best move so far, else the first legal move its seat knows, else the standby's first legal move. A
player's seat that hits a bound, dies or cannot build its engine is started again, in a fresh worker,
with a fresh player on ``recovery_factory`` (the standby engine unless the command wires one that also
upgrades to the compiled circuit), and replays the match's joint moves from the initial state; after
:data:`~ggp.protocol.server.host.MAX_RESTARTS` restarts, or when even the recovery engine cannot play the rules, the standby seat
plays the rest of the match alone (one WARNING line). ``nil`` is answered only when no engine knows a
legal move (or the role has none).

Match flow (protocol.md §3-4):

- START starts the standby seat, builds the state machine and calls ``player.start`` during the start
  clock, and answers ``ready`` by ``startclock - 0.5 s`` even if setup is still running (the standby
  answers meanwhile); a ``ready`` given after the setup ended carries what the player chose for the match by
  itself, if anything, in an ``X-GGP-Configuration`` header (:func:`~ggp.player.configuration_of`). Rules the
  validator rejects, or a role the game lacks, get the reply ``error:
  <reason>`` (logged) instead of ``ready``; rules the player's engine cannot build (grounding over its
  limits, say) get ``ready`` when the standby engine plays them, and the player starts again on the
  recovery engine.
- PLAY applies the previous joint move (NIL: the initial state) to both seats' states, then runs
  ``player.choose``. At ``playclock - 0.5 s`` the host answers with the best move so far
  (``best_move()`` of an :class:`~ggp.player.AnytimePlayer`, else the first legal move) and the search
  is cancelled; a hand-back that is late waits :data:`~ggp.protocol.server.host.LATE_GRACE` more before the first legal move
  goes; when the player's seat does not even know the legal moves by then, the standby's first legal
  move goes. A joint move that is not legal in a seat's state is logged and, where a recent earlier
  state accepts it, the seat resynchronises from there.
- GDL-II (protocol.md §8): for a game that defines ``sees`` the host needs a
  :class:`~ggp.player.Gdl2Player`; any other player gets ``error: this player does not support
  GDL-II`` at START (logged). ``(PLAY id turn lastmove percepts)`` is passed to the player's
  ``observe`` (the host never knows the state), then ``choose_hidden`` runs like ``choose`` does,
  with the player's ``own_legal_moves`` as fallback and legality check.
- STOP answers ``done`` and ABORT ``aborted`` at once; clean-up runs in the background (a worker
  still busy with the match is killed and replaced instead).
- A START whose clocks are outside :func:`~ggp.protocol.limits.clock_problem`'s bounds gets ``error:``
  naming the bound; a START refused with ``error:`` gets the same answer when it is sent again.
- Messages for another match get ``busy``; a PLAY while no match is played gets ``error: unknown match
  <id>``; a match that has heard nothing for
  ``startclock + 10 * playclock`` seconds (Tiltyard's "wedged" rule) is dropped when a new START comes.
"""

from ggp.protocol.httpguard import CONNECTIONS as CONNECTIONS
from ggp.protocol.httpguard import IDLE_TIMEOUT_S as IDLE_TIMEOUT_S
from ggp.protocol.httpguard import MAX_CONNECTIONS as MAX_CONNECTIONS
from ggp.protocol.httpguard import CappedSite as CappedSite
from ggp.protocol.httpguard import ConnectionCap as ConnectionCap
from ggp.protocol.httpguard import cross_site as cross_site
from ggp.protocol.server.app import PLAYER_HOST as PLAYER_HOST
from ggp.protocol.server.app import create_player_app as create_player_app
from ggp.protocol.server.bounds import LimitHit as LimitHit
from ggp.protocol.server.bounds import PlayerLimits as PlayerLimits
from ggp.protocol.server.host import PlayerFactory as PlayerFactory
from ggp.protocol.server.host import PlayerHost as PlayerHost
