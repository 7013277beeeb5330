"""Game evaluation: quality criteria from self-play records, RAPP fitness, the self-play runner."""
