"""Continuous scheduling, as Tiltyard did: registered players meet on repository games, round after round.

Every ``round_s`` seconds (``ggp serve --schedule``) the scheduler

1. gives suspended players another chance once they have been suspended ``retry_s`` seconds;
2. pings (INFO, ``ping_s``) every registered remote player that is not paused, not suspended and not
   seated in a running match (a player plays at most one match at a time, scheduled or not), except
   those that completed a scheduled match without an error within the last ``fresh_s`` seconds: they
   have just answered every message of a match, so they are counted available without a ping (at 50
   players most idle players are those that just finished, and a ping costs the manager what a move does);
3. seats the players that answered ``available``, in a seeded random order, on games drawn with weight
   ``1 / (1 + matches of the game started in the last recent_s seconds)``, so games that have had few
   recent matches come up more often; a game needs as many players as it has roles (the chance role
   ``random`` is the manager's); players left over wait for the next round;
4. starts each match with the game's clocks (``startClock``/``playClock`` in the repository's METADATA)
   or the defaults. Scheduled matches carry ``tournamentNameFromHost: "schedule"``.

Restart-safe: the scheduler keeps nothing in memory that matters. Pauses and suspension times live in
the table ``schedule_players`` of the manager's database; matches a crashed manager left running are
marked aborted when the store is opened (:class:`~ggp.manager.store.Store`), and the next round seats
their players again.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections import Counter, deque
from contextlib import suppress
from dataclasses import asdict, dataclass
from typing import Any

from aiohttp import web

from ggp.errors import InputError
from ggp.manager.match_requests import MatchRequest, player_roles
from ggp.manager.service import Manager
from ggp.manager.store import GameRow, PlayerRow, StoreUnavailable

log = logging.getLogger(__name__)

STARTED_KEPT = 100_000
"""Match ids :attr:`Scheduler.started` keeps: a site scheduling for months must not grow without bound."""
SCHEDULE_TOURNAMENT = "schedule"
"""``tournamentNameFromHost`` of the matches the scheduler starts."""

@dataclass(frozen=True, slots=True)
class ScheduleSettings:
    """Seconds between rounds, the INFO deadline, how long a clean finish counts as an answered ping, the
    window that counts a game's recent matches, how long a suspended player waits before it is retried,
    default clocks (seconds), the games to draw from (empty: every stored game) and the seed of the pairing
    order (``None``: a fresh one)."""

    round_s: float = 5.0
    ping_s: float = 1.0
    fresh_s: float = 10.0
    recent_s: float = 3600.0
    retry_s: float = 600.0
    start_clock: int = 30
    play_clock: int = 15
    games: tuple[str, ...] = ()
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.round_s <= 0 or self.ping_s <= 0 or self.recent_s <= 0 or self.retry_s < 0 or self.fresh_s < 0:
            raise InputError("schedule round, ping and recent-window seconds must be positive, retry and fresh "
                             "0 or more")
        for clock in (self.start_clock, self.play_clock):
            if not 1 <= clock <= 3600:
                raise InputError("schedule clocks must be whole seconds from 1 to 3600")


def draw_game(rng: random.Random, games: list[GameRow], recent: Counter[str], players: int) -> GameRow | None:
    """A game for ``players`` waiting players (one that needs at most that many), drawn with weight
    ``1 / (1 + recent matches)``; ``None`` when no game fits.

    >>> rows = [GameRow("a", 1, "a", "", ("x", "y"), 0.0), GameRow("b", 1, "b", "", ("x", "y", "z"), 0.0)]
    >>> draw_game(random.Random(0), rows, Counter(), 2).key
    'a'
    """
    fitting = [g for g in games if 1 <= len(player_roles(g.roles)) <= players]
    if not fitting:
        return None
    return rng.choices(fitting, [1.0 / (1 + recent[g.key]) for g in fitting])[0]


class Scheduler:
    """Pairs players continuously for one :class:`Manager` (use from its event loop).

    :meth:`run_round` is one round (tests call it directly); :meth:`start` runs rounds in the background
    until :meth:`stop`. Pauses are kept in the database whether or not the schedule runs.
    """

    def __init__(self, manager: Manager, settings: ScheduleSettings | None = None) -> None:
        self.manager = manager
        self.settings = settings or ScheduleSettings()
        self._db = manager.store.db  # its table schedule_players is made by the store's schema
        self._rng = random.Random(self.settings.seed)
        self._task: asyncio.Task[None] | None = None
        self.rounds = 0
        self.wanted = False
        """True from :meth:`start` to :meth:`stop`: the schedule should be running (``/healthz`` checks it)."""
        self.started_at: float | None = None
        self.last_round_end: float | None = None
        """``time.monotonic()`` when the background loop last finished a round (``None`` before the first)."""
        self.started: deque[str] = deque(maxlen=STARTED_KEPT)
        """Ids of the matches this scheduler started, the latest :data:`STARTED_KEPT` (the database has all)."""
        self.started_count = 0
        self.pings = 0
        self._watched: dict[str, tuple[str, ...]] = {}  # scheduled match still running -> its players
        self._finished_clean: dict[str, float] = {}  # player -> when it completed a scheduled match without error

    def configure(self, settings: ScheduleSettings) -> None:
        """Replace the settings (``ggp serve`` gives its options before starting the schedule)."""
        self.settings = settings
        self._rng = random.Random(settings.seed)

    # --- pauses ---------------------------------------------------------------------------------

    def set_paused(self, name: str, paused: bool) -> None:
        """Pause (never scheduled, its running match finishes) or resume a registered player."""
        if self.manager.store.player(name) is None:
            raise InputError(f"unknown player {name!r}")
        self._db.execute("INSERT INTO schedule_players (name, paused) VALUES (?, ?) "
                         "ON CONFLICT(name) DO UPDATE SET paused = excluded.paused", (name, int(paused)))

    def paused(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT name FROM schedule_players WHERE paused = 1")}

    # --- rounds ---------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Run a round now and then every ``round_s`` seconds, until :meth:`stop`."""
        self.wanted = True
        if not self.running:
            self.started_at = time.monotonic()
            self._task = asyncio.create_task(self._loop(), name="schedule")

    async def stop(self) -> None:
        """Stop starting matches (running ones go on until the manager closes them)."""
        self.wanted = False
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            try:
                await self.run_round()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:  # the store logged it once; the next round tries again
                pass
            except Exception:  # a bad round must not end the schedule
                log.exception("schedule round failed")
            self.last_round_end = time.monotonic()
            await asyncio.sleep(self.settings.round_s)

    def busy(self) -> set[str]:
        """Names of the players seated in a running match."""
        names: set[str] = set()
        for match_id in self.manager.running_ids():
            record = self.manager.live(match_id)
            if record is not None:
                names.update(record.player_names)
        return names

    def _retry_suspended(self, players: list[PlayerRow], now: float) -> None:
        since = dict(self._db.execute(
            "SELECT name, suspended_since FROM schedule_players WHERE suspended_since IS NOT NULL").fetchall())
        for player in players:
            if not player.suspended:
                if player.name in since:
                    self._db.execute("UPDATE schedule_players SET suspended_since = NULL WHERE name = ?", (player.name,))
                continue
            if player.name not in since:
                self._db.execute("INSERT INTO schedule_players (name, suspended_since) VALUES (?, ?) ON CONFLICT(name) "
                                 "DO UPDATE SET suspended_since = excluded.suspended_since", (player.name, now))
            elif now - since[player.name] >= self.settings.retry_s:
                log.info("schedule: retrying player %s, suspended %.0f s ago", player.name, now - since[player.name])
                self.manager.store.set_suspended(player.name, False)
                self._db.execute("UPDATE schedule_players SET suspended_since = NULL WHERE name = ?", (player.name,))

    def recent_counts(self, now: float) -> Counter[str]:
        """Matches started per game within the recent window."""
        rows = self._db.execute("SELECT game_key, COUNT(*) FROM matches WHERE created >= ? GROUP BY game_key",
                                (now - self.settings.recent_s,))
        return Counter({key: count for key, count in rows})

    def _games(self) -> list[GameRow]:
        games = self.manager.store.games()
        return [g for g in games if g.key in self.settings.games] if self.settings.games else games

    def clocks(self, key: str) -> tuple[int, int]:
        """A game's (start, play) clock: from its repository METADATA, else the defaults."""
        return self.manager.repository.clocks.get(key, (self.settings.start_clock, self.settings.play_clock))

    async def _available(self, players: list[PlayerRow]) -> list[str]:
        async def answers(player: PlayerRow) -> bool:
            try:
                reply = await asyncio.wait_for(self.manager.ping(player.name), self.settings.ping_s + 1.0)
            except (TimeoutError, InputError):
                return False
            return reply.get("status") == "available"

        now = time.time()
        fresh = {p.name for p in players if now - self._finished_clean.get(p.name, -math.inf) < self.settings.fresh_s}
        asked = [p for p in players if p.name not in fresh]
        self.pings += len(asked)
        replies = await asyncio.gather(*(answers(p) for p in asked))
        answered = {p.name for p, ok in zip(asked, replies) if ok} | fresh
        return [p.name for p in players if p.name in answered]

    def _note_finished(self, now: float) -> None:
        """Mark the players of the scheduled matches that ended since the last round: a clean finish (the
        match completed, no error of theirs) stands for an answered ping for ``fresh_s`` seconds."""
        running = set(self.manager.running_ids())
        for match_id in [m for m in self._watched if m not in running]:
            names = self._watched.pop(match_id)
            record = self.manager.store.match(match_id)
            for role, name in enumerate(names):
                clean = record is not None and record.is_completed and not any(
                    role < len(row) and row[role] for row in record.errors)
                if clean:
                    self._finished_clean[name] = now
                else:
                    self._finished_clean.pop(name, None)

    async def run_round(self) -> list[str]:
        """One round: retry, ping, pair, start. Returns the ids of the matches started."""
        self.rounds += 1
        now = time.time()
        store = self.manager.store
        players = [p for p in store.players() if p.kind == "remote"]
        self._retry_suspended(players, now)
        self._note_finished(now)
        players = [p for p in store.players() if p.kind == "remote"]
        skip = self.paused() | self.busy()
        idle = await self._available([p for p in players if not p.suspended and p.name not in skip])
        idle = [name for name in idle if name not in self.busy()]  # a match may have started while pinging
        self._rng.shuffle(idle)
        games = self._games()
        recent = self.recent_counts(now)
        pairings: list[tuple[GameRow, list[str]]] = []
        while idle:
            game = draw_game(self._rng, games, recent, len(idle))
            if game is None:
                break
            seats = len(player_roles(game.roles))
            pairings.append((game, idle[:seats]))
            idle = idle[seats:]
            recent[game.key] += 1
        # Started together: starting a match may load its game into a worker, which takes a while.
        results = await asyncio.gather(*(self._start(game, seated) for game, seated in pairings))
        started = [match_id for match_id in results if match_id is not None]
        if started:
            log.info("schedule round %d: %d matches started", self.rounds, len(started))
        return started

    async def _start(self, game: GameRow, seated: list[str]) -> str | None:
        """Start one scheduled match; ``None`` (logged, the players wait for the next round) when refused."""
        start_clock, play_clock = self.clocks(game.key)
        try:
            match_id = await self.manager.start_match(
                MatchRequest(game.key, tuple(seated), start_clock, play_clock), tournament=SCHEDULE_TOURNAMENT)
        except InputError as exc:
            log.warning("schedule: no match on %s for %s: %s", game.key, seated, exc)
            return None
        self.started.append(match_id)
        self.started_count += 1
        self._watched[match_id] = tuple(seated)
        for name in seated:  # fresh again only once this match ends cleanly
            self._finished_clean.pop(name, None)
        return match_id

    def status(self) -> dict[str, Any]:
        """For ``GET /api/schedule``: on or off, settings, and each remote player's state."""
        paused, busy = self.paused(), self.busy()
        players = []
        for player in self.manager.store.players():
            if player.kind != "remote":
                continue
            state = ("paused" if player.name in paused else "suspended" if player.suspended
                     else "playing" if player.name in busy else "waiting")
            players.append({"name": player.name, "state": state})
        settings = asdict(self.settings)
        settings["games"] = list(self.settings.games)
        return {"running": self.running, "rounds": self.rounds, "settings": settings, "players": players}


# --- routes -----------------------------------------------------------------------------------------

SCHEDULER = web.AppKey("scheduler", Scheduler)


async def schedule_status(request: web.Request) -> web.Response:
    return web.json_response(request.app[SCHEDULER].status())


async def pause_player(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    request.app[SCHEDULER].set_paused(name, True)
    return web.json_response({"name": name, "paused": True})


async def resume_player(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    request.app[SCHEDULER].set_paused(name, False)
    return web.json_response({"name": name, "paused": False})


def add_routes(app: web.Application, scheduler: Scheduler) -> None:
    """``GET /api/schedule``, ``POST /api/players/{name}/pause`` and ``/resume`` (admin token when set)."""
    app[SCHEDULER] = scheduler
    app.router.add_get("/api/schedule", schedule_status)
    app.router.add_post("/api/players/{name}/pause", pause_player)
    app.router.add_post("/api/players/{name}/resume", resume_player)
