"""A bot runner: the loop every bot needs, so that a bot author writes only its policy.

    from tabletop_client.runner import Runner, ChallengePolicy, SeekSpec

    class Random:
        def decide(self, view, legal_actions):
            return random.choice(legal_actions)

    Runner(url, player_token, Random(), challenges=ChallengePolicy(rated=False),
           seeks=[SeekSpec("china", 3)], open_seeks=2).run()      # until Ctrl-C

or from a shell: ``tabletop bot run mybot:Random --url URL --token tp.…``.  Where things are:
:mod:`~tabletop_client.runner.policy` (what a policy is, loading one by name, async policies),
:mod:`~tabletop_client.runner.play` (playing decisions, a thread per match in play),
:mod:`~tabletop_client.runner.pacing` (429 and 503, the ``RateLimit`` headers),
:mod:`~tabletop_client.runner.terms` (challenge policy, seek terms),
:mod:`~tabletop_client.runner.seeks` (seeks kept open), :mod:`~tabletop_client.runner.loop` (the
runner: catch-up, the feed, shutdown) and :mod:`~tabletop_client.runner.cli` (``tabletop bot run``).
"""

from tabletop_client.runner.loop import Runner
from tabletop_client.runner.play import Decision, Stats
from tabletop_client.runner.policy import Policy, load_policy
from tabletop_client.runner.terms import ChallengePolicy, SeekSpec

__all__ = ["ChallengePolicy", "Decision", "Policy", "Runner", "SeekSpec", "Stats", "load_policy"]
