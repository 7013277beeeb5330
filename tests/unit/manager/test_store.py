"""SQLite store: steps written as they happen, restarts abort leftovers, nothing finished is lost."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ggp.manager.records import MatchRecord, to_json
from ggp.manager.store import Store


def header(match_id: str = "m1") -> MatchRecord:
    return MatchRecord(match_id=match_id, start_time_ms=1, random_token="t" * 32, start_clock=10, play_clock=5,
                       game_meta_url="http://127.0.0.1:9140/games/nim/v1/", roles=("a", "b"),
                       player_names=("alice", "bob"), player_types=("remote", "random"), seed=4, game_key="nim",
                       states=("( (pile 3) )",), state_times=(1,))


def started(match_id: str = "m1") -> MatchRecord:
    return replace(header(match_id), errors=(("CE", ""),))


def test_a_match_written_step_by_step_reads_back_equal(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    record = header()
    store.match_event(record, "created")
    record = started()
    store.match_event(record, "start")
    record = record.with_step(["(take 1)", "noop"], "( (pile 2) )", 2, ["", ""])
    store.match_event(record, "step")
    assert store.match("m1") == record
    record = replace(record.with_step(["noop", "(take 2)"], "( (pile 0) )", 3, ["TO", ""]),
                     is_completed=True, goal_values=(0, 100), end_reason="terminal")
    store.match_event(record, "step")
    store.match_event(record, "end")
    store.close()
    reopened = Store(tmp_path / "m.db")
    assert reopened.recovered == []
    assert reopened.match("m1") == record
    assert to_json(reopened.match("m1") or header()) == to_json(record)
    [summary] = reopened.matches(status="completed", player="bob")
    assert summary.goals == (0, 100) and summary.players == ("alice", "bob")
    assert reopened.matches(player="carol") == []
    reopened.close()


def test_reopening_marks_matches_left_running_as_aborted_and_keeps_their_steps(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    record = started("m2")
    store.match_event(header("m2"), "created")
    store.match_event(record, "start")
    record = record.with_step(["(take 1)", "noop"], "( (pile 2) )", 2, ["", ""])
    store.match_event(record, "step")
    store.close()  # as if the process died mid-match
    reopened = Store(tmp_path / "m.db")
    assert reopened.recovered == ["m2"]
    loaded = reopened.match("m2")
    assert loaded is not None and loaded.is_aborted and loaded.end_reason == "aborted"
    assert loaded.moves == record.moves and loaded.states == record.states
    assert [m.status for m in reopened.matches()] == ["aborted"]
    reopened.close()
    again = Store(tmp_path / "m.db")
    assert again.recovered == []
    again.close()


def test_games_get_a_new_version_only_when_their_text_changes() -> None:
    store = Store(":memory:")
    assert store.add_game("nim", "(role a)", ["a"]).version == 1
    assert store.add_game("nim", "(role a)", ["a"]).version == 1
    assert store.add_game("nim", "(role b)", ["b"]).version == 2
    assert [g.version for g in store.games()] == [2]
    first = store.game("nim", 1)
    assert first is not None and first.kif == "(role a)"


def test_failed_matches_in_a_row_suspend_a_player_and_a_success_resets_the_count() -> None:
    store = Store(":memory:")
    store.add_player("p", "remote", url="http://x/")
    assert not store.note_player_result("p", True, 3).suspended  # type: ignore[union-attr]
    assert store.note_player_result("p", False, 3).fail_streak == 0  # type: ignore[union-attr]
    for _ in range(2):
        store.note_player_result("p", True, 3)
    row = store.note_player_result("p", True, 3)
    assert row is not None and row.suspended and row.fail_streak == 3
    store.set_suspended("p", False)
    assert not (store.player("p") or row).suspended


def test_the_database_is_in_wal_mode_and_each_step_is_visible_to_another_reader_at_once(tmp_path: Path) -> None:
    import sqlite3

    store = Store(tmp_path / "m.db")
    reader = sqlite3.connect(str(tmp_path / "m.db"))
    try:
        assert reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        record = started("m3")
        store.match_event(header("m3"), "created")
        store.match_event(record, "start")
        for step in range(1, 4):
            record = record.with_step(["(take 1)", "noop"], f"( (pile {3 - step}) )", step + 1, ["", ""])
            store.match_event(record, "step")
            # committed as it happens: a second connection (another process after a crash) sees the step now
            rows = reader.execute("SELECT step, state FROM match_steps WHERE match_id = 'm3' ORDER BY step").fetchall()
            assert rows[-1] == (step, f"( (pile {3 - step}) )") and len(rows) == step + 1
        status = reader.execute("SELECT status FROM matches WHERE id = 'm3'").fetchone()[0]
        assert status == "running"
    finally:
        reader.close()
        store.close()


def test_reopening_marks_tournaments_left_running_as_aborted_with_the_matches_that_never_ran(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    schedule = [["alice", "bob"], ["bob", "alice"], ["alice", "bob"]]
    tournament = store.add_tournament("cup", "nim", {"players": ["alice", "bob"], "schedule": schedule})
    store.link_tournament("m3", tournament)
    store.match_event(header("m3"), "created")
    store.match_event(started("m3"), "start")
    store.close()  # the process dies in the tournament's first seconds
    reopened = Store(tmp_path / "m.db")
    assert reopened.recovered_tournaments == [tournament] and reopened.recovered == ["m3"]
    row = reopened.tournament(tournament)
    assert row is not None and row.status == "aborted"
    assert row.config["started"] == 1 and row.config["never_ran"] == schedule[1:]
    assert row.config["x-abortDetail"] == "manager stopped"
    reopened.close()
    again = Store(tmp_path / "m.db")
    assert again.recovered_tournaments == []
    again.close()
