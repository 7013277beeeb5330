"""Write an N-player "guess two thirds of the average" game from ggp.org's 4-player one.

gt_two_thirds_6p (named in issue 18) is not in ../shared; this stand-in is gt_two_thirds_4p with more
roles, the running total extended by one ``sum`` per extra role and ``succ`` facts up to 100·N (the
largest total), so its static tables (``sum``, ``absDiff``, ``lte``) grow as the 6-player game's do.

Usage: python benchmarks/two_thirds_standin.py [--players 6] [--out /tmp/gt_two_thirds_6p_standin.kif]
"""

from __future__ import annotations

import argparse
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "shared" / "gdl-corpus" / "gt_two_thirds_4p.kif"


def standin(text: str, players: int) -> str:
    """The N-player version of the 4-player rules ``text``."""
    if players < 4:
        raise SystemExit("expected at least 4 players")
    roles = "(role player4)" + "".join(f"\n(role player{i})" for i in range(5, players + 1))
    last = "    (true (guessed player4 ?n4))\n    (sum ?s2 ?n4 ?total))"
    if "(role player4)" not in text or last not in text:
        raise SystemExit(f"{SOURCE}: not the expected 4-player rules")
    chain = "    (true (guessed player4 ?n4))\n    (sum ?s2 ?n4 ?s3)"
    for i in range(5, players + 1):
        target = "?total" if i == players else f"?s{i - 1}"
        chain += f"\n    (true (guessed player{i} ?n{i}))\n    (sum ?s{i - 2} ?n{i} {target})"
    text = text.replace("(role player4)", roles).replace(last, chain + ")")
    return text + "\n" + "\n".join(f"(succ {n} {n + 1})" for n in range(400, 100 * players)) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--out", type=Path, default=Path("/tmp/gt_two_thirds_6p_standin.kif"))
    args = parser.parse_args()
    args.out.write_text(standin(SOURCE.read_text(), args.players))
    print(args.out)


if __name__ == "__main__":
    main()
