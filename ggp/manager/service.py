"""The manager's core: games, players, matches and tournaments running in the background.

:class:`Manager` ties the runner, the store, built-in players and live subscribers together; the
HTTP app (:mod:`ggp.manager.app`) is a thin JSON layer over it. It never builds a reasoner itself:
the CLI passes a ``machine_factory`` (so tests can use tiny pure-Python games).
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ggp.errors import GgpError, InputError
from ggp.gdl.terms import Term
from ggp.manager.agon import AgonTable
from ggp.manager.boards import recognise_board
from ggp.manager.human import HUMAN_KIND, HumanSeat
from ggp.manager.launcher import LaunchedPlayer, PlayerLauncher
from ggp.manager.match_requests import MatchRequest, failed_match, player_roles
from ggp.manager.rating_log import finish_and_rate
from ggp.manager.reasoning import GameRejected as GameRejected  # re-exported: the app and the CLI catch it
from ggp.manager.reasoning import GameSlot, Reasoners
from ggp.manager.reasoning import game_problems as game_problems
from ggp.manager.records import MatchRecord, game_version
from ggp.manager.repository import BrokenGame, RepositoryIndex, scan
from ggp.manager.runner import CHANCE_ROLE, Event, HttpTransport, MatchConfig, MatchRun, Seat, Transport, check_roles, ping_url
from ggp.manager.store import GameRow, PlayerRow, Store, StoreUnavailable
from ggp.manager.tournament import MAX_SEED, TournamentSpec, round_robin
from ggp.manager.urls import url_problem
from ggp.manager.wiring import EndReasons, FluentDomain, GameTranslator, MachineFactory, ManagerSettings, PieceImages
from ggp.protocol.limits import MAX_PLAY_CLOCK_S, MAX_START_CLOCK_S, MIN_CLOCK_S

log = logging.getLogger(__name__)

GAME_FORMAT = "kif"

KEY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
_URL = re.compile(r"https?://\S+")
"""What a player name that is meant as a URL looks like (then :func:`url_problem` checks it)."""


@dataclass(slots=True)
class _Running:
    task: asyncio.Task[MatchRecord | None]
    record: MatchRecord | None = None
    subscribers: set[asyncio.Queue[tuple[Event, MatchRecord]]] = field(default_factory=set)
    humans: dict[str, HumanSeat] = field(default_factory=dict)
    """The seats played by a person in the browser, by role."""
    began: bool = False
    """The task entered :meth:`Manager._play`: cancelling it now runs its clean-up (a task cancelled before
    its first step never runs its body, so it would neither store the abort nor free its players)."""


class Manager:
    """Runs matches and tournaments in the background and keeps the store and live views current.

    Use from one event loop; call :meth:`close` at shutdown (it aborts running matches).
    """

    def __init__(self, store: Store, machine_factory: MachineFactory, launcher: PlayerLauncher | None = None,
                 settings: ManagerSettings | None = None, transport: Transport | None = None,
                 translators: Mapping[str, GameTranslator] | None = None,
                 fluent_domain: FluentDomain | None = None, piece_images: PieceImages | None = None,
                 end_reasons: EndReasons | None = None) -> None:
        self.store = store
        self._end_reasons = end_reasons
        self._fluent_domain = fluent_domain
        self._boards: dict[tuple[str, int], dict[str, Any] | None] = {}
        self._translators = dict(translators or {})
        self._piece_images = piece_images
        self._piece_locks: dict[tuple[str, int], asyncio.Lock] = {}
        self.settings = settings or ManagerSettings()
        self.reasoners = Reasoners(machine_factory, self.settings.reasoner)
        self._launcher = launcher
        self._transport = transport
        self._own_transport: HttpTransport | None = None
        self._running: dict[str, _Running] = {}
        self._tournaments: dict[int, asyncio.Task[None]] = {}
        self._feed: set[asyncio.Queue[dict[str, Any]]] = set()
        self.agon = AgonTable(store.db)
        """Agon ratings (:mod:`ggp.manager.agon`), kept beside Elo in the same database."""
        self.watchers: list[Callable[[MatchRecord, Event], None]] = []
        """Called with every match event after it is stored (the metrics count them); must not raise."""
        self.repository = RepositoryIndex()
        """Descriptions and broken games of the repository folders loaded (:mod:`ggp.manager.repository`)."""
        if store.player("random") is None:
            store.add_player("random", "random")
        for kind in self.builtin_kinds():
            if store.player(kind) is None:
                store.add_player(kind, "builtin", builtin=kind)

    def builtin_kinds(self) -> tuple[str, ...]:
        return self._launcher.kinds() if self._launcher else ()

    @property
    def transport(self) -> Transport:
        if self._transport is None:
            self._own_transport = HttpTransport()
            self._transport = self._own_transport
        return self._transport

    async def close(self) -> None:
        """Cancel tournaments and running matches (each sends ABORT), then close the HTTP client."""
        for task in self._tournaments.values():
            task.cancel()
        await self._until_begun(list(self._running.values()))
        for running in list(self._running.values()):
            running.task.cancel()
        pending = [*self._tournaments.values(), *(r.task for r in self._running.values())]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        await self.reasoners.close()
        if self._own_transport is not None:
            await self._own_transport.close()

    # --- games ----------------------------------------------------------------------------------

    def game_formats(self) -> tuple[str, ...]:
        """The formats :meth:`add_game` accepts: ``kif`` and every wired translator (e.g. ``sbg``)."""
        return (GAME_FORMAT, *sorted(self._translators))

    async def load_repository(self, directory: Path) -> tuple[list[str], list[BrokenGame]]:
        """Add every game of a repository folder (:mod:`ggp.manager.repository`): returns the keys stored
        and the games refused (unusable files, or this manager's reason: a syntax or validation error, over
        the limits). Both are also kept in :attr:`repository`; nothing here stops the server. A game already
        stored with the same rules text is not loaded again (its reasoner worker starts when a match needs it)."""
        found, broken = scan(directory)
        stored: list[str] = []
        for game in found:
            try:
                text = game.rules.read_text(encoding="utf-8")
                row = self.store.game(game.key)
                if row is None or row.kif != text:  # an unchanged game was checked when it was stored: a restart is quick
                    row = await self.add_game(game.key, text, game.name[:200])
            except (InputError, OSError, UnicodeDecodeError) as exc:
                broken.append(BrokenGame(game.key, str(game.rules), str(exc).splitlines()[0] if str(exc) else repr(exc)))
                continue
            self.repository.add_found(game)
            stored.append(row.key)
        for refused in broken:
            log.warning("repository game %s not served: %s", refused.key, refused.error)
            self.repository.add_broken(refused)
        return stored, broken

    async def add_game(self, key: str, kif: str, name: str = "", game_format: str = GAME_FORMAT) -> GameRow:
        """Validate and store a game; raises :class:`InputError` listing every problem found.

        A game in another format (``game_format``, e.g. ``sbg``) is translated to KIF first and the
        translation is what is validated and stored.
        """
        if not KEY_PATTERN.fullmatch(key):
            raise InputError(f"game key {key!r} must be 1-64 letters, digits, '_' or '-'")
        if len(name) > 200:
            raise InputError("game name is longer than 200 characters")
        source = kif
        translator = None
        if game_format != GAME_FORMAT:
            translator = self._translators.get(game_format)
            if translator is None:
                raise InputError(f"unknown game format {game_format!r}; expected one of {list(self.game_formats())}")
        # Translating, parsing, validating and grounding all happen in a worker process, under limits.
        slot = await self.reasoners.load(kif, f"{key}.{game_format}", translator, f"{key}.kif")
        assert slot.game is not None
        row = self.store.add_game(key, slot.game.kif, [str(role) for role in slot.game.roles], name or key)
        if game_format != GAME_FORMAT:
            self.store.set_source(row.key, row.version, game_format, source)
        log.info("game %s v%d stored", key, row.version)
        return row

    async def piece_svg(self, key: str, piece: str, owner: str) -> bytes | None:
        """The picture of a piece of the latest version of a game, or ``None`` (unknown game or piece, a game
        uploaded as KIF, no :class:`PieceImages` wired). One picture is made at a time per game, so the
        first request makes (and caches) a game's pictures and the requests waiting behind it read them."""
        row = self.store.game(key)
        if row is None or self._piece_images is None:
            return None
        found = self.store.source(row.key, row.version)
        if found is None:
            return None
        game_format, source = found
        async with self._piece_locks.setdefault((row.key, row.version), asyncio.Lock()):
            return await asyncio.to_thread(self._piece_images.svg, game_format, source, piece, owner)

    async def end_reason(self, record: MatchRecord) -> str | None:
        """Why a completed match ended (:class:`EndReasons`), or ``None`` (running, aborted, no source kept,
        none wired, or no explanation for its format); an explainer's error is logged, never raised."""
        if self._end_reasons is None or not record.is_completed or not record.states:
            return None
        version = game_version(record)
        found = None if version is None else self.store.source(record.game_key, version)
        if found is None:
            return None
        try:
            return await asyncio.to_thread(self._end_reasons.explain, found[0], found[1], record.states[-1])
        except Exception:  # a wrong explanation must not break the page: it shows the goals without a reason
            log.exception("match %s: no end reason", record.match_id)
            return None

    def game_url(self, row: GameRow) -> str:
        return f"{self.settings.public_url}/games/{row.key}/v{row.version}/"

    async def game_for(self, row: GameRow) -> GameSlot:
        """The loaded game of a stored version (its worker is started and the game probed when needed)."""
        return await self.reasoners.load(row.kif, f"{row.key}.kif")

    async def board(self, row: GameRow) -> dict[str, Any] | None:
        """The board geometry of a stored game version as the web UI's JSON (see :mod:`ggp.manager.boards`),
        or ``None`` when the game has no board; computed once per version from the rules and the initial
        state (plus every possible fluent when a ``fluent_domain`` was given)."""
        key = (row.key, row.version)
        if key not in self._boards:
            try:
                slot = await self.game_for(row)
                assert slot.game is not None
                description = await self.reasoners.description(slot)
                initial = slot.game.initial.facts
            except GgpError as exc:  # a stored game this reasoner cannot run: shown as a fluent list
                log.warning("game %s v%d: no board, the reasoner cannot run it (%s)", row.key, row.version, exc)
                return None
            possible: frozenset[Term] = frozenset()
            if self._fluent_domain is not None:
                try:
                    possible = await asyncio.to_thread(self._fluent_domain, description)
                except GgpError as exc:
                    log.info("game %s v%d: board from the initial state only (%s)", row.key, row.version, exc)
            geometry = recognise_board(description, possible, initial)
            self._boards[key] = geometry.to_json() if geometry else None
        return self._boards[key]

    async def match_board(self, record: MatchRecord) -> dict[str, Any] | None:
        """The board geometry of the game version a match was played with (``None`` when the game is gone)."""
        row = self.store.game(record.game_key, game_version(record))
        return None if row is None else await self.board(row)

    # --- players --------------------------------------------------------------------------------

    def register_player(self, name: str, url: str | None = None, builtin: str | None = None) -> PlayerRow:
        """Register a remote player by URL or a built-in one by type; raises :class:`InputError`.

        The type ``human`` is a person who plays in the browser (:mod:`ggp.manager.human`).
        """
        if not NAME_PATTERN.fullmatch(name):
            raise InputError(f"player name {name!r} must be 1-64 letters, digits, '_', '.', ':' or '-'")
        if (url is None) == (builtin is None):
            raise InputError("give exactly one of 'url' (a remote player) or 'builtin' (a built-in type)")
        if url is not None:
            problem = url_problem(url)
            if problem is not None:
                raise InputError(f"player url {url[:100]!r}: {problem}")
            return self.store.add_player(name, "remote", url=url)
        assert builtin is not None
        if builtin == "random":
            return self.store.add_player(name, "random")
        if builtin == HUMAN_KIND:
            return self.store.add_player(name, HUMAN_KIND)
        if builtin not in self.builtin_kinds():
            raise InputError(f"unknown built-in player {builtin!r}; expected one of "
                             f"{['random', HUMAN_KIND, *self.builtin_kinds()]}")
        return self.store.add_player(name, "builtin", builtin=builtin)

    async def ping(self, name: str) -> dict[str, str]:
        """Send INFO to a remote player (1 s deadline): ``{"status": available|busy|TO|CE|bad reply, ...}``, by
        :func:`ggp.manager.runner.ping_url`, the ping ``ggp match`` sends before a match."""
        row = self.store.player(name)
        if row is None:
            raise InputError(f"unknown player {name!r}")
        if row.kind != "remote" or row.url is None:
            return {"status": "available", "note": "played inside the manager"}
        return await ping_url(self.transport, row.url, name)

    def resolve_player(self, name: str) -> PlayerRow:
        """A registered player by name; an ``http://`` URL is registered on first use."""
        row = self.store.player(name)
        if row is None and _URL.match(name):
            problem = url_problem(name)
            if problem is not None:
                raise InputError(f"player url {name[:100]!r}: {problem}")
            row = self.store.add_player(name, "remote", url=name)
        if row is None:
            raise InputError(f"unknown player {name!r}; register it first or give an http:// URL")
        if row.suspended:
            raise InputError(f"player {name!r} is suspended after {row.fail_streak} failed matches in a row")
        return row

    # --- matches --------------------------------------------------------------------------------

    async def start_match(self, request: MatchRequest, tournament_id: int | None = None,
                          tournament: str = "") -> str:
        """Create a match and start it in the background; returns its id.

        Raises :class:`InputError` for an unknown game or player, bad clocks, wrong player count or
        too many running matches.
        """
        if len(self._running) >= self.settings.max_running:
            raise InputError(f"{len(self._running)} matches are running already (the limit)")
        for clock, what, most in ((request.start_clock, "startclock", MAX_START_CLOCK_S),
                                  (request.play_clock, "playclock", MAX_PLAY_CLOCK_S)):
            if not isinstance(clock, int) or not MIN_CLOCK_S <= clock <= most:
                raise InputError(f"{what} must be a whole number of seconds from {MIN_CLOCK_S} to {most}")
        if request.seed is not None and not 0 <= request.seed <= MAX_SEED:
            raise InputError(f"seed must be a whole number from 0 to {MAX_SEED}")
        row = self.store.game(request.game)
        if row is None:
            raise InputError(f"unknown game {request.game!r}")
        names = list(request.players)
        if CHANCE_ROLE in row.roles and len(names) == len(row.roles) - 1:
            names.insert(list(row.roles).index(CHANCE_ROLE), "random")  # chance is the manager's own seat
        players = [self.resolve_player(name) for name in names]
        if len(players) != len(row.roles):
            raise InputError(f"game {row.key!r} has {len(row.roles)} roles {list(row.roles)} "
                             f"but {len(players)} players were given")
        slot = await self.game_for(row)
        description = await self.reasoners.description(slot)
        assert slot.game is not None
        match_id = f"{row.key}.{secrets.token_hex(4)}"
        seed = request.seed if request.seed is not None else secrets.randbits(32)
        launched: list[LaunchedPlayer] = []
        try:
            seats = []
            for player in players:
                seats.append(await self._seat(player, launched))
            config = MatchConfig(
                match_id=match_id, game_key=row.key, description=description, seats=tuple(seats),
                start_clock=request.start_clock, play_clock=request.play_clock, seed=seed,
                game_meta_url=self.game_url(row), step_cap=self.settings.step_cap,
                step_cap_outcome=self.settings.step_cap_outcome, deadlines=self.settings.deadlines, tournament=tournament,
            )
            check_roles(slot.game.roles, config.seats)
            if tournament_id is not None and any(seat.kind == HUMAN_KIND for seat in seats):
                raise InputError("a person cannot be seated in a tournament; start a match instead")
            # A person gets the play clock itself (no network grace to add), or the tests' shorter deadline.
            person_s = min(float(request.play_clock), config.effective_deadlines().play_s)
            roles = [str(role) for role in slot.game.roles]
            humans = {roles[index]: HumanSeat(seat.name, secrets.token_urlsafe(18), person_s, description.spelled)
                      for index, seat in enumerate(seats) if seat.kind == HUMAN_KIND}
            if tournament_id is not None:
                self.store.link_tournament(match_id, tournament_id)
            observer = _Observer(self, match_id)
            local = {index: humans[role] for index, role in enumerate(roles) if role in humans}
            run = MatchRun(self.reasoners.referee(slot), config, self.transport, observer, local)
        except BaseException:
            await _close_all(launched)
            raise
        self.reasoners.hold(slot)
        task = asyncio.create_task(self._play(run, players, launched, slot), name=f"match {match_id}")
        self._running[match_id] = _Running(task, run.record, humans=humans)
        return match_id

    async def _seat(self, player: PlayerRow, launched: list[LaunchedPlayer]) -> Seat:
        if player.kind in ("random", HUMAN_KIND):
            return Seat(player.name, None, player.kind)
        if player.kind == "builtin":
            if self._launcher is None or player.builtin is None:
                raise InputError(f"built-in player {player.name!r} is not available in this manager")
            started = await self._launcher.launch(player.builtin)
            launched.append(started)
            return Seat(player.name, started.url, f"builtin:{player.builtin}")
        assert player.url is not None
        return Seat(player.name, player.url, "remote")

    @staticmethod
    async def _until_begun(matches: list[_Running]) -> None:
        """Let matches whose task has not begun yet enter :meth:`_play` (one loop turn: they are scheduled)."""
        while any(not running.began and not running.task.done() for running in matches):
            await asyncio.sleep(0)

    async def _play(self, run: MatchRun, players: list[PlayerRow], launched: list[LaunchedPlayer],
                    slot: GameSlot) -> MatchRecord | None:
        match_id = run.config.match_id
        running = self._running.get(match_id)
        if running is not None:
            running.began = True
        try:
            record = await run.run()
        except Exception:
            log.exception("match %s failed", match_id)
            return None
        finally:
            await _close_all(launched)
            self._running.pop(match_id, None)
            await self.reasoners.release(slot)
        with suppress(StoreUnavailable):  # logged by the store; the ratings miss this match
            self._after(record, players)
        return record

    def _after(self, record: MatchRecord, players: list[PlayerRow]) -> None:
        """Suspension bookkeeping for a finished match (its ratings are stored with its end)."""
        names = [p.name for p in players]
        for player in {p.name: p for p in players}.values():
            if player.kind in ("random", HUMAN_KIND):  # a person who is slow is not a broken player
                continue
            seats = [i for i, name in enumerate(names) if name == player.name]
            updated = self.store.note_player_result(player.name, failed_match(record, seats),
                                                    self.settings.suspend_after)
            if updated is not None and updated.suspended and not player.suspended:
                log.warning("player %s suspended after %d failed matches", player.name, updated.fail_streak)

    def _publish(self, match_id: str, record: MatchRecord, event: Event) -> None:
        running = self._running.get(match_id)
        if running is not None:
            running.record = record
            for queue in running.subscribers:
                queue.put_nowait((event, record))
        if event in ("created", "end"):
            note = {"event": event, "matchId": match_id, "game": record.game_key,
                    "players": list(record.player_names), "goals": list(record.goal_values or ()),
                    "aborted": record.is_aborted}
            for feed in self._feed:
                feed.put_nowait(note)

    def live(self, match_id: str) -> MatchRecord | None:
        """The current record of a running match, else the stored one, else ``None``."""
        running = self._running.get(match_id)
        if running is not None and running.record is not None:
            return running.record
        return self.store.match(match_id)

    def running_ids(self) -> list[str]:
        return list(self._running)

    def human_seats(self, match_id: str) -> dict[str, HumanSeat]:
        """The seats a person plays in a running match, by role (empty when none or not running)."""
        running = self._running.get(match_id)
        return dict(running.humans) if running is not None else {}

    def subscribe(self, match_id: str) -> asyncio.Queue[tuple[Event, MatchRecord]] | None:
        """A queue of (event, record) for a running match, or ``None`` when it is not running."""
        running = self._running.get(match_id)
        if running is None:
            return None
        queue: asyncio.Queue[tuple[Event, MatchRecord]] = asyncio.Queue()
        running.subscribers.add(queue)
        return queue

    def unsubscribe(self, match_id: str, queue: asyncio.Queue[tuple[Event, MatchRecord]]) -> None:
        running = self._running.get(match_id)
        if running is not None:
            running.subscribers.discard(queue)

    def subscribe_feed(self) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._feed.add(queue)
        return queue

    def unsubscribe_feed(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        self._feed.discard(queue)

    async def wait(self, match_id: str) -> MatchRecord | None:
        """Wait for a running match to end and return its final record (or the stored one)."""
        running = self._running.get(match_id)
        if running is not None:
            with suppress(asyncio.CancelledError):
                await asyncio.shield(running.task)
        return self.store.match(match_id)

    async def abort(self, match_id: str) -> bool:
        """Abort a running match (ABORT is sent); False when it is not running."""
        running = self._running.get(match_id)
        if running is None:
            return False
        await self._until_begun([running])
        running.task.cancel()
        with suppress(asyncio.CancelledError):
            await running.task
        return True

    # --- tournaments ----------------------------------------------------------------------------

    async def start_tournament(self, spec: TournamentSpec) -> int:
        """Check and schedule a round robin, run it in the background; returns its id."""
        row = self.store.game(spec.game)
        if row is None:
            raise InputError(f"unknown game {spec.game!r}")
        schedule = round_robin(spec.players, len(player_roles(row.roles)), spec.per_pairing)  # checks MAX_MATCHES
        for name in spec.players:
            if self.resolve_player(name).kind == HUMAN_KIND:
                raise InputError(f"player {name!r} is a person and cannot be seated in a tournament")
        await self.game_for(row)
        config = {"players": list(spec.players), "matches_per_pairing": spec.per_pairing,
                  "startclock": spec.start_clock, "playclock": spec.play_clock, "seed": spec.seed,
                  "parallel": spec.parallel, "scheduled": len(schedule), "schedule": [list(s) for s in schedule]}
        tournament_id = self.store.add_tournament(spec.name, spec.game, config)
        task = asyncio.create_task(self._run_tournament(tournament_id, spec, schedule), name=f"tournament {tournament_id}")
        self._tournaments[tournament_id] = task
        return tournament_id

    async def _run_tournament(self, tournament_id: int, spec: TournamentSpec, schedule: list[tuple[str, ...]]) -> None:
        gate = asyncio.Semaphore(spec.parallel)
        started: list[str] = []

        async def one(index: int, seating: tuple[str, ...]) -> None:
            async with gate:
                request = MatchRequest(spec.game, seating, spec.start_clock, spec.play_clock, spec.seed + index)
                try:
                    match_id = await self.start_match(request, tournament_id, spec.name)
                except InputError as exc:
                    log.warning("tournament %d: match %d skipped: %s", tournament_id, index, exc)
                    return
                started.append(match_id)
                await self.wait(match_id)

        status = "finished"
        try:
            await asyncio.gather(*(one(i, seating) for i, seating in enumerate(schedule)))
        except asyncio.CancelledError:
            status = "aborted"
            # wait() shields the matches, so abort them here (each sends ABORT to its players).
            await asyncio.gather(*(self.abort(match_id) for match_id in started), return_exceptions=True)
            raise
        finally:
            self.store.set_tournament_status(tournament_id, status)
            self._tournaments.pop(tournament_id, None)

    async def wait_tournament(self, tournament_id: int) -> None:
        task = self._tournaments.get(tournament_id)
        if task is not None:
            with suppress(asyncio.CancelledError):
                await asyncio.shield(task)

    async def abort_tournament(self, tournament_id: int) -> bool:
        task = self._tournaments.get(tournament_id)
        if task is None:
            return False
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        return True

    def standings(self, tournament_id: int) -> list[dict[str, Any]]:
        """Per player: matches, total and mean goal value, wins (best goal, alone), sorted by mean goal, and
        ``fallbacks``: its moves the manager played for it (timeouts, errors, illegal replies), which the
        tables mark, since its results then count moves it did not choose."""
        table: dict[str, dict[str, Any]] = {}
        fallbacks = self.store.fallbacks(tournament_id)
        for match in self.store.matches(tournament_id=tournament_id, status="completed", limit=1_000_000):
            goals = match.goals or ()
            top = max(goals, default=0)
            missed = fallbacks.get(match.match_id, ())
            for seat, (name, goal) in enumerate(zip(match.players, goals)):
                entry = table.setdefault(name, {"player": name, "matches": 0, "points": 0, "wins": 0, "fallbacks": 0})
                entry["matches"] += 1
                entry["points"] += goal
                entry["wins"] += int(goal == top and list(goals).count(top) == 1)
                entry["fallbacks"] += missed[seat] if seat < len(missed) else 0
        for entry in table.values():
            entry["mean"] = round(entry["points"] / entry["matches"], 2)
        return sorted(table.values(), key=lambda e: (-e["mean"], e["player"]))


class _Observer:
    """Fans runner events out to the store (first, so nothing is lost) and live subscribers.

    When the store cannot take a step (:class:`StoreUnavailable`: a full disk), the match is aborted: a
    match the archive cannot keep is not played on. The ``created`` event is written before the match
    starts, so there the error reaches the caller (an HTTP request: 503)."""

    def __init__(self, manager: Manager, match_id: str) -> None:
        self._manager = manager
        self._match_id = match_id
        self._lost = False

    def match_event(self, record: MatchRecord, event: Event) -> None:
        try:
            if not self._lost and event == "end":
                finish_and_rate(self._manager.store, self._manager.agon, record)
            elif not self._lost:
                self._manager.store.match_event(record, event)
        except StoreUnavailable:
            if event == "created":
                raise
            self._lost = True  # the store logged it; the row stays 'running' and a restart marks it aborted
            running = self._manager._running.get(self._match_id)
            if running is not None and event != "end":
                running.task.cancel()
        self._manager._publish(self._match_id, record, event)
        for watch in self._manager.watchers:
            watch(record, event)


async def _close_all(launched: list[LaunchedPlayer]) -> None:
    for player in launched:
        with suppress(Exception):
            await player.close()
