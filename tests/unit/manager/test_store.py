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
    assert Store(tmp_path / "m.db").recovered == []


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
