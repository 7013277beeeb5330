"""``ggp archive``: import ggp.org match JSON into the manager's database, or export its matches.

``ggp archive import FILE...`` replays each match under its game's rules (the game must be in the
database, e.g. loaded by ``ggp serve --repository DIR``, or given with ``--rules KEY=FILE.kif``) and
refuses a file whose match does not follow them, naming the first bad step; accepted matches are
stored with their original times and rated (Elo and Agon) when completed. A file may hold one match
JSON object or JSON lines (as ``GET /api/matches/export`` writes them). ``ggp archive export`` writes
JSON lines. ``ggp archive backup FILE`` copies the database to FILE while a manager serves and writes it
(:mod:`ggp.manager.backup`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subcommands: Any) -> None:
    """Add the ``archive`` sub-parser with its ``import`` and ``export`` actions."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "archive", help="import or export ggp.org match JSON (the manager's archive)",
        description="Import ggp.org match JSON files into the manager's database (each replayed under its "
        "game's rules first), or export the database's finished matches as JSON lines.")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    importer = actions.add_parser("import", help="check and store match JSON files")
    importer.add_argument("files", nargs="+", type=Path, metavar="FILE", help="match JSON or JSON lines")
    importer.add_argument("--game", default=None, metavar="KEY",
                          help="the game of records that name none (no gameMetaURL, as ggp-base's ephemeral games)")
    importer.add_argument("--rules", action="append", default=[], metavar="KEY=FILE.kif",
                          help="add this game's rules to the database first (repeatable)")
    exporter = actions.add_parser("export", help="write finished matches as JSON lines to stdout")
    exporter.add_argument("--since", default=None, help="only matches finished at or after (Unix seconds or ISO date)")
    backup = actions.add_parser("backup", help="copy the database to FILE, also while a manager serves it",
                                description="Take a consistent copy of the manager's database (SQLite's online "
                                "backup: one moment of it, while the manager goes on writing), checked before it "
                                "is given FILE's name. Restore by starting a manager with --db FILE.")
    backup.add_argument("file", type=Path, metavar="FILE", help="the new backup file (must not exist)")
    for sub in (importer, exporter, backup):
        sub.add_argument("--db", default="ggp-manager.db", metavar="FILE", help="SQLite database (default ggp-manager.db)")
    for sub in (importer, exporter):
        sub.add_argument("--engine", default="auto", help="reasoner engine for the replay (default auto)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Import (0 when every file was accepted, 1 when any was refused), export or back up."""
    from ggp.manager.archive import export_lines, parse_when
    from ggp.manager.store import Store

    if args.action == "backup":
        from ggp.manager.backup import backup

        copied = backup(args.db, args.file)
        print(f"{args.db} backed up to {copied.path}: {copied.size} bytes, {copied.matches} matches, "
              f"schema version {copied.schema_version}")
        return 0
    if args.action == "export":
        store = Store(args.db)
        try:
            for line in export_lines(store, parse_when(args.since, "--since") if args.since else None):
                sys.stdout.write(line + "\n")
        finally:
            store.close()
        return 0
    store = Store(args.db)
    try:
        for spec in args.rules:
            _add_rules(store, spec)
        refused = sum(not _import_file(store, path, args.engine, args.game) for path in args.files)
    finally:
        store.close()
    return 1 if refused else 0


def _add_rules(store: Any, spec: str) -> None:
    from ggp.errors import InputError
    from ggp.files import read_text
    from ggp.gdl.parser import parse_kif
    from ggp.manager.reasoning import game_problems

    key, sep, file = spec.partition("=")
    if not sep or not key or not file:
        raise InputError(f"--rules wants KEY=FILE.kif, not {spec!r}")
    text = read_text(Path(file))
    problems = game_problems(parse_kif(text, file))
    if problems:
        raise InputError(f"{file}: invalid game: {problems[0]}")
    store.add_game(key, text, [str(role) for role in parse_kif(text, file).roles], key)


def _records(path: Path, game: str | None) -> list[Any]:
    from ggp.errors import InputError
    from ggp.files import read_text
    from ggp.manager.archive import record_to_import

    text = read_text(path).strip()
    try:
        items = [json.loads(text)] if text.startswith("{") and "\n{" not in text else \
            [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    return [record_to_import(item, game) for item in items]


def _import_file(store: Any, path: Path, engine: str, game: str | None) -> bool:
    """Check and store every match of one file; prints one line per match; False when any is refused."""
    import asyncio

    from ggp.errors import GgpError, InputError
    from ggp.gdl.parser import parse_kif
    from ggp.manager.archive import import_record
    from ggp.match.referee import Referee
    from ggp.reasoner.engines import make_machine

    try:
        records = _records(path, game)
    except (GgpError, ValueError, OSError) as exc:
        print(f"{path}: refused: {exc}", file=sys.stderr)
        return False
    machines: dict[tuple[str, int], Any] = {}

    async def referee_for(row: Any) -> tuple[Referee, Any]:
        if (row.key, row.version) not in machines:
            machines[(row.key, row.version)] = make_machine(parse_kif(row.kif, f"{row.key}.kif"), engine)

        async def done() -> None:
            return None

        return Referee(machines[(row.key, row.version)]), done

    ok = True
    for record in records:
        try:
            stored = asyncio.run(import_record(store, referee_for, record, game))
        except InputError as exc:
            print(f"{path}: {record.match_id}: refused: {exc}", file=sys.stderr)
            ok = False
            continue
        print(f"{path}: {record.match_id}: {'imported' if stored else 'already in the archive'}")
    return ok
