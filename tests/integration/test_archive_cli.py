"""``ggp archive import/export`` on real games with clingo: our records and ggp-base's import; a record
that breaks the rules is refused with its first bad step."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ggp.cli import main
from tests.conftest import ROOT, SHARED
from tests.helpers.network import free_port
from tests.prerequisites import missing

TICTACTOE = ROOT / "kif" / "ticTacToe" / "ticTacToe.kif"


def _match(tmp_path: Path) -> Path:
    out = tmp_path / "m.json"
    assert main(["match", str(TICTACTOE), "--player", "random", "--player", "random", "--seed", "2",
                 "--out", str(out)]) == 0
    return out


def test_a_match_is_imported_once_exported_again_and_a_broken_copy_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    played = _match(tmp_path)
    db = str(tmp_path / "a.db")
    rules = f"ticTacToe={TICTACTOE}"
    capsys.readouterr()
    assert main(["archive", "import", "--db", db, "--rules", rules, str(played), str(played)]) == 0
    out = capsys.readouterr().out
    assert "imported" in out and "already in the archive" in out
    assert main(["archive", "export", "--db", db]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["moves"] == json.loads(played.read_text())["moves"]
    broken = json.loads(played.read_text())
    broken["matchId"] = "other"
    broken["states"][2] = broken["states"][1]
    (tmp_path / "bad.json").write_text(json.dumps(broken))
    assert main(["archive", "import", "--db", db, str(tmp_path / "bad.json")]) == 1
    err = capsys.readouterr().err
    assert "other: refused: step 2: the recorded state differs" in err


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_match_recorded_by_ggp_base_is_imported_and_rated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    peer = SHARED / "peer" / "run"
    if shutil.which("java") is None or not peer.is_file():
        missing("java and ../shared/peer (ggp-base) for importing a ggp-base match record")
    ports = [free_port(), free_port()]
    players = [subprocess.Popen([str(peer), "PlayerMain", str(port), "RandomGamer"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for port in ports]
    try:
        result = subprocess.run([str(peer), "RunMatch", str(TICTACTOE), "10", "1", *(f"127.0.0.1:{p}" for p in ports)],
                                capture_output=True, text=True, timeout=200)
    finally:
        for player in players:
            player.kill()
            player.wait(10)
    assert result.returncode == 0, result.stderr[-2000:]
    record = tmp_path / "ggp-base.json"
    record.write_text(result.stdout)
    db = str(tmp_path / "a.db")
    assert main(["archive", "import", "--db", db, "--rules", f"ticTacToe={TICTACTOE}", "--game", "ticTacToe",
                 str(record)]) == 0, capsys.readouterr().err
    from ggp.manager.agon import AgonTable
    from ggp.manager.store import Store

    store = Store(db)
    try:
        assert set(AgonTable(store.db).ratings("ticTacToe").difficulties) == {"ticTacToe/xplayer", "ticTacToe/oplayer"}
        assert len(store.ratings("ticTacToe")) == 2
    finally:
        store.close()
