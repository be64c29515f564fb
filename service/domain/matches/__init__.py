"""Matches: creating, playing and reading them, with no HTTP in it.

:class:`~service.domain.matches.operations.Matches` is the one entry point for a match: the HTTP layer,
the workers and the command line call its methods.  It refuses with the exceptions of
:mod:`service.domain.errors` (not found, not your decision, stale version, illegal action naming its
rule...) and returns plain data; the HTTP layer maps each refusal to a status in one table.  Its parts,
each an object with methods: reading (:mod:`.reading`), what every commit shares (:mod:`.commits`),
creation (:mod:`.creation`), moves and hints (:mod:`.play`), the life around the moves
(:mod:`.lifecycle`).  Beside them: seats and invitations (:mod:`.seating`), clocks (:mod:`.clocks`),
the bot queues (:mod:`.bots`), stand-ins' counts (:mod:`.stand_ins`).  Storage is
:mod:`service.storage.matches`; a commit's news goes to the outbox (:mod:`service.domain.outbox`).
"""
