"""``ggp serve``'s GGP-site options refuse bad values in one line before anything is served."""

from __future__ import annotations

import pytest

from ggp.cli import main


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--public-url", "ftp://site", "--public-url must start with http://"),
    ("--schedule-clocks", "30", "--schedule-clocks wants START,PLAY"),
    ("--schedule-clocks", "0,5", "schedule clocks must be whole seconds"),
    ("--repository", "no/such/folder", "--repository 'no/such/folder' is not a directory"),
])
def test_bad_site_options_are_one_line_errors(option: str, value: str, message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "0", "--no-kif", "--db", ":memory:", option, value]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
