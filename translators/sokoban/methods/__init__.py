"""Sokoban level generators other than SYM (the thesis's comparison); :mod:`.ppo` is PCGRL/PPO."""
