"""The GGP HTTP protocol: typed messages (parse/format, no I/O) and the aiohttp player server.

:mod:`ggp.protocol.messages` is pure text-to-objects code; :mod:`ggp.protocol.server` holds the
aiohttp side and is only imported by code that serves players.
"""
