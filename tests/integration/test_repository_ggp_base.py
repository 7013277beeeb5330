"""ggp-base itself (../shared/peer) reads a game from ``ggp serve --repository`` by URL and plays it.

A small Java driver, compiled here against ggp-base.jar, uses ggp-base's own ``RemoteGameRepository``
(the class every ggp-base tool fetches games with) and its prover. Skips without java, javac or
../shared/peer locally; in CI they are there, so it runs.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED
from tests.prerequisites import missing

PEER = SHARED / "peer"

DRIVER = """
import java.util.TreeSet;
import org.ggp.base.util.game.Game;
import org.ggp.base.util.game.RemoteGameRepository;
import org.ggp.base.util.statemachine.MachineState;
import org.ggp.base.util.statemachine.StateMachine;
import org.ggp.base.util.statemachine.implementation.prover.ProverStateMachine;

public final class RepoPlay {
    public static void main(String[] args) throws Exception {
        RemoteGameRepository repository = new RemoteGameRepository(args[0]);
        System.out.println("keys " + new TreeSet<String>(repository.getGameKeys()));
        Game game = repository.getGame(args[1]);
        System.out.println("name " + game.getName());
        System.out.println("url " + game.getRepositoryURL());
        System.out.println("description " + game.getDescription());
        StateMachine machine = new ProverStateMachine();
        machine.initialize(game.getRules());
        System.out.println("roles " + machine.getRoles());
        MachineState state = machine.getInitialState();
        int steps = 0;
        while (!machine.isTerminal(state)) {
            state = machine.getRandomNextState(state);
            steps++;
        }
        System.out.println("steps " + steps + " goals " + machine.getGoals(state));
    }
}
"""


def _classpath(extra: Path) -> str:
    jars = [PEER / "ggp-base.jar", *sorted((PEER / "lib").glob("*.jar"))]
    return ":".join([str(extra), *map(str, jars)])


@pytest.mark.timeout(240)
def test_ggp_base_loads_a_game_from_our_repository_by_url_and_plays_it(tmp_path: Path) -> None:
    if shutil.which("java") is None or shutil.which("javac") is None or not (PEER / "ggp-base.jar").is_file():
        missing("java, javac and ../shared/peer (ggp-base) for the repository interoperability test")
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "kif" / "ticTacToe", repo / "ticTacToe")
    (repo / "broken.kif").write_text("(role a) (init (p)")
    (tmp_path / "RepoPlay.java").write_text(DRIVER)
    subprocess.run(["javac", "-cp", _classpath(tmp_path), "-d", str(tmp_path), str(tmp_path / "RepoPlay.java")],
                   check=True, capture_output=True, timeout=120)
    command = [sys.executable, "-m", "ggp", "serve", "--port", "0", "--no-kif", "--db", str(tmp_path / "m.db"),
               "--repository", str(repo)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT) as server:
        try:
            assert server.stdout is not None
            lines = []
            for line in server.stdout:  # the URL line comes once the repository is loaded
                lines.append(line)
                if "ggp manager at" in line:
                    break
            found = re.search(r"(http://127\.0\.0\.1:\d+)/", lines[-1])
            assert found, lines
            assert any("1 games served, 1 broken" in line for line in lines), lines
            result = subprocess.run(["java", "-cp", _classpath(tmp_path), "RepoPlay", found.group(1), "ticTacToe"],
                                    capture_output=True, text=True, timeout=120)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    assert result.returncode == 0, result.stderr[-3000:]
    out = dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)
    assert out["keys"] == "[ticTacToe]"
    assert out["name"] == "Tic-Tac-Toe"
    assert out["url"] == f"{found.group(1)}/games/ticTacToe/v1/"
    described = (ROOT / "kif" / "ticTacToe" / "ticTacToe.txt").read_text().strip()
    assert f"description {described}" in result.stdout
    assert out["roles"] == "[xplayer, oplayer]"
    goals = re.fullmatch(r"\d+ goals \[(\d+), (\d+)\]", out["steps"])
    assert goals and {int(goals.group(1)), int(goals.group(2))} in ({100, 0}, {50})
