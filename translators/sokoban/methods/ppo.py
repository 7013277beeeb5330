"""PPO / PCGRL Sokoban generator: train a level-editing policy, then let it edit random boards.

:func:`train` runs stable-baselines3's PPO (CPU torch) on the environment of :mod:`.ppo_env` with
the specification's hyper-parameters (gamma 0.99, entropy 0.01, learning rate 0.00025) and writes a
checkpoint; :func:`generate_ppo` plays the policy from random starting boards and keeps the final
boards that are valid, solvable levels, scored with the optimal solvers like every other generator.

Both need the optional ``rl`` extra (gymnasium, stable-baselines3, torch); without it they raise
:class:`~ggp.errors.GgpError` naming the pip command. This module itself imports without it.

A checkpoint is a ``torch.save`` file holding plain data only (metadata and the policy's tensors),
read back with ``weights_only=True``, so a policy file cannot run code when loaded.
"""

from __future__ import annotations

import importlib
import io
import logging
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggp.errors import GgpError, SokobanError
from ggp.files import read_bytes, write_atomic
from ggp.translators.sokoban.candidates import GENERATOR_LIMITS, Generated, GenerationStats
from ggp.translators.sokoban.level import Level
from ggp.translators.sokoban.methods.base import MethodOptions
from ggp.translators.sokoban.metrics import Difficulty, measure
from ggp.translators.sokoban.solver import SolverLimitError, SolverLimits, solve_moves

if TYPE_CHECKING:
    from stable_baselines3.common.policies import ActorCriticPolicy

    from ggp.translators.sokoban.methods.ppo_env import Representation

log = logging.getLogger(__name__)

DEFAULT_POLICY = Path(__file__).resolve().parents[1] / "data" / "ppo_turtle_5x5.pt"
"""The shipped policy: turtle representation, 5x5 boards (see docs/sokoban_ppo.md for how it was trained)."""

RL_EXTRA = "pip install 'ggp[rl]'"
CHECKPOINT_FORMAT = "ggp-sokoban-ppo"
CHECKPOINT_VERSION = 1
NET_ARCH = (64, 64)
"""Hidden layers of the policy and of the value network (stable-baselines3's default MLP)."""

MAX_POLICY_BYTES = 64 * 1024 * 1024
"""Larger files are refused before loading (bounded memory); a 5x5 policy is about 0.1 MB."""

GAMMA, ENTROPY, LEARNING_RATE = 0.99, 0.01, 0.00025
"""PPO hyper-parameters of the thesis's PCGRL runs (specification section 5)."""


def require_rl(what: str = "the PPO method") -> None:
    """Import the ``rl`` extra's packages or raise :class:`GgpError` with the pip command."""
    for name in ("torch", "gymnasium", "stable_baselines3"):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise GgpError(f"{what} needs the rl extra: {RL_EXTRA}") from exc


@dataclass(frozen=True, slots=True)
class TrainReport:
    """What a training run did: steps, CPU-bound wall seconds and the last episodes' outcomes."""

    representation: str
    width: int
    height: int
    steps: int
    seconds: float
    episodes: int
    mean_reward: float
    solvable_share: float
    """Share of the last (up to 100) episodes whose final board was a valid, solvable level."""


@dataclass(frozen=True, slots=True)
class LoadedPolicy:
    """A checkpoint read back: the board it was trained for and the policy network."""

    representation: Representation
    width: int
    height: int
    steps: int
    policy: ActorCriticPolicy


@dataclass(slots=True)
class PpoStats:
    """Counts per episode outcome: ``accepted``, ``invalid``, ``unsolvable``, ``too-large``."""

    outcomes: Counter[str] = field(default_factory=Counter)

    @property
    def attempts(self) -> int:
        return sum(self.outcomes.values())


def _n_steps(steps: int, envs: int) -> int:
    """Rollout length per environment: a multiple of 16 between 16 and 256 (tests train a few hundred steps)."""
    return max(16, min(256, steps // envs // 16 * 16))


def train(
    representation: Representation, width: int, height: int, steps: int, out: Path, seed: int = 0, *, envs: int = 4,
) -> TrainReport:
    """Train a PPO policy for ``steps`` environment steps and write its checkpoint to ``out`` atomically.

    Uses one torch thread and ``envs`` environments stepped in turn (one process). Raises
    :class:`GgpError` without the ``rl`` extra and ValueError for a bad representation or size.
    """
    require_rl("training")
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import Logger

    from ggp.translators.sokoban.methods.ppo_env import REPRESENTATIONS, make_env

    if representation not in REPRESENTATIONS:
        raise ValueError(f"unknown representation {representation!r}; expected one of {', '.join(REPRESENTATIONS)}")
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    if out.is_dir():  # found now rather than after the training
        raise ValueError(f"{out}: is a folder; expected a checkpoint file name")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    vec = make_vec_env(
        lambda: make_env(representation, width, height), n_envs=envs, seed=seed,
        monitor_kwargs={"info_keywords": ("solvable",)},
    )
    n_steps = _n_steps(steps, envs)
    model = PPO(
        "MlpPolicy", vec, learning_rate=LEARNING_RATE, gamma=GAMMA, ent_coef=ENTROPY, n_steps=n_steps,
        batch_size=n_steps * envs // 4, seed=seed, device="cpu", verbose=0,
        policy_kwargs={"net_arch": {"pi": list(NET_ARCH), "vf": list(NET_ARCH)}},
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3-<date> log folder left in /tmp
    start = time.monotonic()
    model.learn(total_timesteps=steps)
    seconds = time.monotonic() - start
    episodes = list(model.ep_info_buffer or [])
    done = model.num_timesteps
    _save(out, {
        "format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "representation": representation,
        "width": width, "height": height, "steps": done, "net_arch": list(NET_ARCH),
        "state_dict": model.policy.state_dict(),
    })
    vec.close()
    rewards = [float(e["r"]) for e in episodes]
    solvable = [float(e.get("solvable", 0.0)) for e in episodes]
    return TrainReport(
        representation, width, height, done, seconds, len(episodes),
        sum(rewards) / len(rewards) if rewards else 0.0, sum(solvable) / len(solvable) if solvable else 0.0,
    )


def _save(out: Path, data: dict[str, Any]) -> None:
    """``torch.save`` into memory, then an atomic write: never a half-written checkpoint."""
    import torch

    buffer = io.BytesIO()
    torch.save(data, buffer)
    write_atomic(out, buffer.getvalue())


def load_policy(path: Path) -> LoadedPolicy:
    """Read a checkpoint written by :func:`train`.

    Raises :class:`SokobanError` (one line naming the file) when it is not such a checkpoint,
    OSError when it cannot be read and :class:`GgpError` without the ``rl`` extra.
    """
    require_rl()
    import pickle
    import zipfile

    import torch
    from stable_baselines3.common.policies import ActorCriticPolicy

    from ggp.translators.sokoban.methods.ppo_env import REPRESENTATIONS, make_env

    raw = read_bytes(path, max_bytes=MAX_POLICY_BYTES)
    if raw is None:
        raise SokobanError(f"{path}: too large for a policy file (more than {MAX_POLICY_BYTES:,} bytes)")

    def corrupt(why: str) -> SokobanError:
        return SokobanError(f"{path}: not a PPO policy file written by 'ggp train-sokoban' ({why})")

    try:
        data = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except (RuntimeError, pickle.UnpicklingError, EOFError, ValueError, zipfile.BadZipFile, KeyError) as exc:
        # torch's own messages run to several long lines; the kind of failure is enough here.
        raise corrupt(f"empty, damaged or not a torch checkpoint: {type(exc).__name__}") from exc
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise corrupt("no ggp-sokoban-ppo header")
    if data.get("version") != CHECKPOINT_VERSION:
        raise corrupt(f"version {data.get('version')!r}, expected {CHECKPOINT_VERSION}")
    representation, width, height = data.get("representation"), data.get("width"), data.get("height")
    net_arch, state = data.get("net_arch"), data.get("state_dict")
    if representation not in REPRESENTATIONS:
        raise corrupt(f"unknown representation {representation!r}")
    if not (isinstance(width, int) and isinstance(height, int) and isinstance(net_arch, list) and isinstance(state, dict)):
        raise corrupt("missing size, network or weights")
    try:
        env = make_env(representation, width, height)
        policy = ActorCriticPolicy(
            env.observation_space, env.action_space, lambda _: 0.0,
            net_arch={"pi": list(net_arch), "vf": list(net_arch)},
        )
        policy.load_state_dict(state, strict=True)
    except (RuntimeError, ValueError, TypeError) as exc:
        raise corrupt(str(exc).splitlines()[0][:120]) from exc
    policy.set_training_mode(False)
    return LoadedPolicy(representation, width, height, int(data.get("steps", 0)), policy)


def generate_ppo(
    policy: Path,
    width: int,
    height: int,
    count: int,
    seed: int = 0,
    *,
    limits: SolverLimits = GENERATOR_LIMITS,
    max_attempts: int | None = None,
    stats: PpoStats | None = None,
) -> list[Generated]:
    """Up to ``count`` solvable levels, each from one episode of the policy on a random board.

    Episode ``i`` is seeded from ``"seed:i"`` (board and the policy's action sampling). Its final
    board is kept when it is a valid level that the optimal solver solves; the level carries the
    move-optimal solution and its :class:`~ggp.translators.sokoban.metrics.Difficulty`, trivial or
    not (the thesis's PPO made no non-trivial level). Invalid and unsolvable boards are counted in
    ``stats`` and dropped. Stops after ``max_attempts`` episodes (default ``200 * count``).
    Raises :class:`SokobanError` for a bad policy file or a size it was not trained for.
    """
    return list(iter_ppo(policy, width, height, count, seed, limits=limits, max_attempts=max_attempts, stats=stats))


def iter_ppo(
    policy: Path,
    width: int,
    height: int,
    count: int,
    seed: int = 0,
    *,
    limits: SolverLimits = GENERATOR_LIMITS,
    max_attempts: int | None = None,
    stats: PpoStats | None = None,
) -> Iterator[Generated]:
    """:func:`generate_ppo` one level at a time (a caller with a time budget stops when it likes)."""
    import torch

    loaded = load_policy(policy)
    if (width, height) != (loaded.width, loaded.height):
        raise SokobanError(
            f"{policy}: the policy was trained on {loaded.width}x{loaded.height} boards, not {width}x{height}"
        )
    from ggp.translators.sokoban.methods.ppo_env import PcgrlSokoban, board_to_level, wrap_rules

    stats = stats if stats is not None else PpoStats()
    rules = PcgrlSokoban(loaded.representation, width, height)
    env = wrap_rules(rules)
    found = 0
    for attempt in range(max_attempts if max_attempts is not None else 200 * count):
        if found >= count:
            break
        episode_seed = random.Random(f"{seed}:{attempt}").getrandbits(31)
        torch.manual_seed(episode_seed)
        observation, _ = env.reset(seed=episode_seed)
        finished = False
        while not finished:
            action, _ = loaded.policy.predict(observation, deterministic=False)
            observation, _, terminated, truncated, _ = env.step(action)
            finished = terminated or truncated
        level = board_to_level(rules.board)
        if level is None:
            stats.outcomes["invalid"] += 1
            continue
        kept = _score(level, limits, stats)
        if kept is None:
            continue
        solution, difficulty = kept
        stats.outcomes["accepted"] += 1
        title = f"ppo {loaded.representation} {width}x{height} seed {seed} attempt {attempt}"
        found += 1
        yield Generated(
            Level(level.width, level.height, level.walls, level.floor, level.goals, level.boxes, level.player, title),
            solution, difficulty, seed, attempt,
        )


def _score(level: Level, limits: SolverLimits, stats: PpoStats) -> tuple[str, Difficulty] | None:
    """The move-optimal solution and difficulty, or None (counted) when unsolvable or too large."""
    try:
        by_moves = solve_moves(level, limits)
        if by_moves is None:
            stats.outcomes["unsolvable"] += 1
            return None
        return by_moves.moves, measure(level, limits)
    except SolverLimitError:
        stats.outcomes["too-large"] += 1
        return None


def generate_ppo_method(options: MethodOptions, count: int, seed: int, stats: GenerationStats) -> Iterator[Generated]:
    """The registry's entry: :func:`generate_ppo` with ``options.policy`` (default the shipped one).

    The board size defaults to the policy's; the PPO method keeps trivial levels whatever
    ``options.keep_trivial`` says (the thesis's PPO made no non-trivial level).
    """
    policy = options.policy or DEFAULT_POLICY
    if options.width is None or options.height is None:
        loaded = load_policy(policy)
        width, height = options.size((loaded.width, loaded.height))
    else:
        width, height = options.width, options.height
    own = PpoStats()
    clock = time.process_time()
    seen = own.outcomes.copy()
    for item in iter_ppo(policy, width, height, count, seed, limits=options.limits,
                         max_attempts=options.max_attempts, stats=own):
        stats.sym_seconds += time.process_time() - clock
        stats.outcomes.update(own.outcomes - seen)
        seen = own.outcomes.copy()
        yield item
        clock = time.process_time()
    stats.sym_seconds += time.process_time() - clock
    stats.outcomes.update(own.outcomes - seen)
