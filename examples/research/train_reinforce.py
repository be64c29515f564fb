"""A worked example: train a linear policy with REINFORCE offline, then measure it against the server's
``easy`` bot, offline (``bench.strength``) and over HTTP (a running ``tabletop serve``).

    .venv/bin/python examples/research/train_reinforce.py --minutes 3
    .venv/bin/python examples/research/train_reinforce.py --minutes 3 --http http://127.0.0.1:8000

(run from the repository root, with the ``research`` extra installed).

The learner is a softmax over the legal action ids (:mod:`research.actions`) whose logits are linear in the
seat's feature vector (:mod:`research.features`: documented slices in [0, 1], built from the seat's view
only), numpy only.  It trains in the Gymnasium environment (:mod:`research.gym_env`): one seat, drawn
per episode, against built-in levels played by the server's own bot code (:mod:`research.baselines`),
moving its weights along ``(return - mean return) * grad log pi`` (REINFORCE with a running-mean
baseline; Williams 1992), the return being the rank return (+1 first, -1 last).

Then the trained policy, playing its most likely action, meets two ``easy`` bots in ``--eval-matches``
matches offline, through ``bench.strength.measure`` (seats rotated; a uniformly random policy is measured
the same way for reference), and, with ``--http``, in ``--http-matches`` matches over the API against two
``easy`` bot seats the server's workers play, its input rebuilt from the match document (the seat's
``view``): the very vector it was trained on.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout: the repository's packages

from bench.strength import measure
from research.baselines import PolicyBot, features_of
from research.features import spec
from research.gym_env import ENV_IDS
from research.remote import action_from_id, legal_ids


class LinearPolicy:
    """Softmax over the legal ids of ``W[id] . x + b[id]``, ``x`` the feature vector: a policy callable
    ``policy(observation, info) -> action id`` as ``bench.strength`` and ``research.baselines`` take it."""

    def __init__(self, actions: int, size: int, seed: int = 0) -> None:
        self.w = np.zeros((actions, size), np.float32)
        self.b = np.zeros(actions, np.float32)
        self.rng = np.random.default_rng(seed)
        self.greedy = False  # evaluation plays the most likely action; training samples

    def probabilities(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        logits = self.w[legal] @ x + self.b[legal]
        p = np.exp(logits - logits.max())
        return p / p.sum()  # type: ignore[no-any-return]

    def __call__(self, observation: np.ndarray, info: dict[str, Any]) -> int:
        legal = np.asarray(info["legal_actions"])
        p = self.probabilities(observation, legal)
        return int(legal[p.argmax()] if self.greedy else legal[self.rng.choice(len(legal), p=p)])


def train(game_id: str, seconds: float, opponents: list[str], lr: float, seed: int) -> LinearPolicy:
    """REINFORCE for ``seconds`` in the Gymnasium environment: the learner in a seat drawn per episode, the
    other seats ``opponents`` (the server's levels, :mod:`research.baselines`' code), one episode at a
    time."""
    env = gym.make(ENV_IDS[game_id], players=1 + len(opponents), seat=None, opponents=opponents)
    actions, shape = env.action_space, env.observation_space.shape
    assert isinstance(actions, gym.spaces.Discrete) and shape is not None
    policy = LinearPolicy(int(actions.n), shape[0], seed)
    baseline, episodes, firsts, recent = 0.0, 0, 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        observation, info = env.reset(seed=seed * 1_000_003 + episodes)
        trace: list[tuple[np.ndarray, np.ndarray, int]] = []
        done, reward = False, 0.0
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            choice = int(policy.rng.choice(len(legal), p=policy.probabilities(observation, legal)))
            trace.append((observation, legal, choice))
            observation, r, terminated, truncated, info = env.step(legal[choice])
            done, reward = terminated or truncated, float(r)
        baseline = reward if episodes == 0 else baseline + 0.02 * (reward - baseline)
        advantage = reward - baseline
        for x, legal, choice in trace:  # grad log softmax = onehot(choice) - p
            grad = -policy.probabilities(x, legal)
            grad[choice] += 1.0
            step = (lr * advantage / (1.0 + x @ x)) * grad  # normalised: a logit moves by about lr at most
            policy.w[legal] += np.outer(step, x).astype(np.float32)
            policy.b[legal] += step.astype(np.float32)
        episodes += 1
        recent.append(reward == 1.0)
        firsts += reward == 1.0
        if episodes % 200 == 0:
            print(
                f"  {episodes} episodes: first in {np.mean(recent):.0%} of the last {len(recent)}", flush=True
            )
            recent = []
    print(f"trained {episodes} episodes in {seconds:.0f} s against {','.join(opponents)}; first in {firsts}")
    return policy


def play_http(url: str, game_id: str, policy: LinearPolicy, matches: int) -> list[int]:
    """The policy in a rotating seat against two ``easy`` bot seats over the API; its places (0 = first)."""
    from engine.registry import get_game
    from tabletop_client import Client

    engine, features = get_game(game_id), spec(game_id)
    api = Client(url)
    places = []
    for m in range(matches):
        seat = m % 3
        seats: list[dict[str, Any]] = [{"name": f"easy{s}", "kind": "bot", "level": "easy"} for s in range(3)]
        seats[seat] = {"name": "reinforce"}
        created = api.create_match(game_id, seats)
        mid, token, cursor = created["id"], created["tokens"][0]["token"], "0-0"
        while (doc := api.match(mid, token))["status"] != "finished":
            if doc["to_move"] != doc["your_seat"]:  # wait for the bots' moves
                cursor = api.events(mid, token, after=cursor, wait=25)["last_id"]
                continue
            legal = api.legal_actions(mid, token)
            ids = legal_ids(engine, legal["actions"])
            observation = features.encode(doc["view"], doc["your_seat"])  # as the environment built it
            action = policy(observation, {"legal_actions": ids})
            api.move(mid, token, action_from_id(engine, action), legal["version"])
        places.append(doc["result"]["ranking"].index(doc["your_seat"]))
        print(f"  HTTP match {mid}: seat {seat}, place {places[-1] + 1}", flush=True)
    api.close()
    return places


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="year_of_dragon")
    parser.add_argument("--minutes", type=float, default=3.0, help="training time")
    parser.add_argument("--train-opponents", default="easy,random", help="levels of the other seats")
    parser.add_argument("--lr", type=float, default=0.3, help="step size (per logit, normalised)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-matches", type=int, default=60, help="offline matches against easy, easy")
    parser.add_argument("--http", metavar="URL", help="also play over the API of a running tabletop serve")
    parser.add_argument("--http-matches", type=int, default=6)
    args = parser.parse_args(argv)

    policy = train(args.game, args.minutes * 60, args.train_opponents.split(","), args.lr, args.seed)
    policy.greedy = True
    if args.eval_matches:
        for name, agent in (("untrained (uniform)", uniform(args.seed)), ("reinforce", policy)):
            bot = PolicyBot(agent, observe=features_of)  # the features, as the environment observed them
            tally = measure(bot, args.game, ("easy", "easy"), args.eval_matches, seed=args.seed)
            print("offline: " + tally.report(name), flush=True)
    if args.http:
        places = play_http(args.http, args.game, policy, args.http_matches)
        firsts = sum(p == 0 for p in places)
        print(
            f"over HTTP: reinforce vs easy,easy in {args.game} ({len(places)} matches): first {firsts}/"
            f"{len(places)}; mean place {1 + sum(places) / max(1, len(places)):.2f}"
        )
    return 0


def uniform(seed: int) -> Any:
    """The untrained reference: uniform over the legal ids (the policy before its first update)."""
    rng = np.random.default_rng(seed)
    return lambda observation, info: int(rng.choice(info["legal_actions"]))


if __name__ == "__main__":
    sys.exit(main())
