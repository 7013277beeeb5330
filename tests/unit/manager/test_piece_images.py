"""``GET /api/games/{game}/pieces/{piece}-{owner}.svg``: generated shapes of SBG games, made once and cached."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from ggp.commands._piece_images import ShapeCache
from ggp.generation.shapes import EvolutionParams
from ggp.manager.app import SECURITY_HEADERS, create_app
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.manager_machines import NIM_KIF
from tests.prerequisites import require_module
from tests.unit.manager.conftest import FAST
from tests.unit.manager.test_api_input import TINY_SBG

Client = TestClient[web.Request, web.Application]
ClientFactory = Callable[[web.Application], Awaitable[Client]]

SMALL = EvolutionParams(population=6, generations=3, novelty_generations=2)


class CountingCache(ShapeCache):
    """Counts how often a game's shapes are generated."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory, params=SMALL)
        self.generated = 0

    def _generate(self, source: str, folder: Path) -> None:
        self.generated += 1
        super()._generate(source, folder)


@pytest.fixture
async def shapes_manager(tmp_path: Path) -> AsyncIterator[tuple[Manager, CountingCache]]:
    require_module("clingo")
    from ggp.commands._manager_glue import game_translators, machine_factory

    store = Store(":memory:")
    cache = CountingCache(tmp_path / "ggp-shapes")
    manager = Manager(store, machine_factory("clingo"), settings=ManagerSettings(deadlines=FAST),
                      translators=game_translators(), piece_images=cache)
    yield manager, cache
    await manager.close()
    store.close()


async def test_an_sbg_games_pieces_are_svg_images_generated_once_and_cached_on_disk(
    aiohttp_client: ClientFactory, shapes_manager: tuple[Manager, CountingCache]
) -> None:
    manager, cache = shapes_manager
    client = await aiohttp_client(create_app(manager))
    assert (await client.post("/api/games", json={"key": "tiny", "sbg": TINY_SBG})).status == 201
    urls = [f"/api/games/tiny/pieces/{name}.svg" for name in ("p-white", "p-black", "P-white", "p-white")]
    replies = await asyncio.gather(*(client.get(url) for url in urls))
    bodies = [await reply.read() for reply in replies]
    for reply in replies:
        assert reply.status == 200 and reply.content_type == "image/svg+xml"
        for name, value in SECURITY_HEADERS.items():
            assert reply.headers[name] == value
    white, black = (ElementTree.fromstring(body).find("{http://www.w3.org/2000/svg}path") for body in bodies[:2])
    assert white is not None and black is not None
    assert (white.get("fill"), white.get("stroke")) == ("#ffffff", "#000000")
    assert (black.get("fill"), black.get("stroke")) == ("#000000", "#ffffff")
    assert white.get("d") == black.get("d") and bodies[0] == bodies[2] == bodies[3]
    assert cache.generated == 1
    [folder] = cache.directory.iterdir()
    assert sorted(path.name for path in folder.iterdir()) == ["index.html", "p-black.svg", "p-white.svg"]

    restarted = CountingCache(cache.directory)  # a new manager process finds the files on disk
    assert restarted.svg("sbg", TINY_SBG, "p", "white") == bodies[0] and restarted.generated == 0


async def test_unknown_games_pieces_owners_and_kif_games_get_404(
    aiohttp_client: ClientFactory, shapes_manager: tuple[Manager, CountingCache]
) -> None:
    manager, cache = shapes_manager
    client = await aiohttp_client(create_app(manager))
    assert (await client.post("/api/games", json={"key": "tiny", "sbg": TINY_SBG})).status == 201
    assert (await client.post("/api/games", json={"key": "nim", "kif": NIM_KIF})).status == 201
    for path in ("nosuch/pieces/p-white.svg", "tiny/pieces/q-white.svg", "tiny/pieces/p-red.svg",
                 "tiny/pieces/pp-white.svg", "tiny/pieces/p-white.png", "tiny/pieces/..%2Fx-white.svg",
                 "nim/pieces/p-white.svg"):
        reply = await client.get(f"/api/games/{path}")
        assert reply.status == 404, path
        assert "error" in await reply.json()
    assert cache.generated == 1  # the tiny game once (for the unknown piece); never the KIF game


async def test_without_piece_images_every_piece_is_404(aiohttp_client: ClientFactory, manager: Manager) -> None:
    client = await aiohttp_client(create_app(manager))
    assert (await client.get("/api/games/any/pieces/p-white.svg")).status == 404


async def test_load_games_adds_sbg_files_as_sbg_and_kif_files_as_kif(
    tmp_path: Path, shapes_manager: tuple[Manager, CountingCache]
) -> None:
    from ggp.commands._manager_server import load_games

    manager, _ = shapes_manager
    (tmp_path / "tiny.sbg").write_text(TINY_SBG)
    (tmp_path / "nim.kif").write_text(NIM_KIF)
    assert await load_games(manager, [tmp_path / "tiny.sbg", tmp_path / "nim.kif"]) == ["tiny", "nim"]
    assert manager.store.source("tiny", 1) == ("sbg", TINY_SBG)
    assert manager.store.source("nim", 1) is None
    assert await manager.piece_svg("tiny", "p", "black") is not None


def test_serve_refuses_an_sbg_directory_that_does_not_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ggp.cli import main

    assert main(["serve", "--sbg", str(tmp_path / "nosuch"), "--db", str(tmp_path / "m.db"), "--port", "0"]) == 1
    assert capsys.readouterr().err == f"ggp serve: --sbg {str(tmp_path / 'nosuch')!r} is not a directory\n"


SHIPPED_GAMES = sorted((Path(__file__).resolve().parents[3] / "games").glob("*.sbg"))


@pytest.mark.parametrize("path", SHIPPED_GAMES, ids=lambda p: p.stem)
def test_every_shipped_sbg_game_has_its_pictures_committed_and_a_cache_serves_them_without_making_any(
    path: Path, tmp_path: Path
) -> None:
    from ggp.commands._piece_images import SHIPPED
    from ggp.translators.sbg.parser import parse_sbg

    source = path.read_text(encoding="utf-8")
    cache = CountingCache(tmp_path / "ggp-shapes")
    cache.params = None  # the shipped pictures are made with the default parameters
    folder = SHIPPED / cache.folder(source).name
    assert folder.is_dir(), f"run: python scripts/ship_piece_shapes.py {path.relative_to(path.parents[1])}"
    for letter in sorted({rule.letter.lower() for rule in parse_sbg(source, str(path)).rules}):
        for owner in ("white", "black"):
            assert cache.svg("sbg", source, letter, owner) == (folder / f"{letter}-{owner}.svg").read_bytes()
    assert cache.generated == 0 and not cache.directory.exists()


def test_the_user_cache_is_under_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ggp.commands._piece_images import user_shape_cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_shape_cache().directory == tmp_path / "ggp" / "shapes"


async def test_a_completed_sbg_match_says_why_it_ended_and_a_kif_or_running_one_does_not(tmp_path: Path) -> None:
    require_module("clingo")
    from ggp.commands._end_reasons import SbgEndReasons
    from ggp.commands._manager_glue import game_translators, machine_factory
    from ggp.manager.records import MatchRecord

    store = Store(":memory:")
    manager = Manager(store, machine_factory("clingo"), settings=ManagerSettings(deadlines=FAST),
                      translators=game_translators(), end_reasons=SbgEndReasons())
    try:
        await manager.add_game("tiny", TINY_SBG, game_format="sbg")
        await manager.add_game("nim", NIM_KIF)
        final = "( (cell 1 2 white p) (cell 0 1 black p) (control black) (step 3) )"

        def record(game: str, completed: bool) -> MatchRecord:
            return MatchRecord("m", 0, "", 1, 1, f"http://h/games/{game}/v1/", ("white", "black"), ("a", "b"),
                               ("random", "random"), 0, game, states=("( )", final), is_completed=completed,
                               goal_values=(100, 0) if completed else None)

        assert await manager.end_reason(record("tiny", True)) == "white's P reached 1 2"
        assert await manager.end_reason(record("tiny", False)) is None
        assert await manager.end_reason(record("nim", True)) is None
    finally:
        await manager.close()
        store.close()
