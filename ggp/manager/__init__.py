"""The game manager: runs matches against players over HTTP, stores records, serves a web UI.

Modules: :mod:`records` (match JSON), :mod:`wire` (request texts, reply moves), :mod:`runner`
(one match over HTTP), :mod:`store` (SQLite), :mod:`launcher` (built-in players on loopback),
:mod:`tournament` (round robin schedules), :mod:`ratings` (Elo), :mod:`service` (matches and
tournaments in the background), :mod:`app` (REST API, event streams and the web UI in ``static/``).
"""
