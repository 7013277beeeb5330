"""One module per ``ggp`` subcommand; each defines ``register(subcommands)`` (see :mod:`ggp.cli`)."""
