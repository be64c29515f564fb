"""The domain: every operation on matches, accounts, webhooks, ratings, matchmaking and tournaments.

One package per part; none knows Flask or HTTP statuses.  Each refuses with the exceptions of
:mod:`service.domain.errors` and returns plain data.  Storage is :mod:`service.storage`.
"""
