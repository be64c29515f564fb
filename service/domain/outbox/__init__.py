"""Where a commit's news goes once the commit stands: the outbox and its subscribers.

A match's commit script appends one outbox entry in the same script that writes the match, so a
process dying right after the commit loses nothing.  The entry is a list of parts, one per subscriber
(:mod:`service.domain.outbox.entries`): each subscriber derives its own part from the match before and
after the commit and its events, and consumes that part when the entry is drained, oldest first, in one
class:

* the players' notes (:mod:`service.domain.outbox.notes`): each to its player's feed, once, and to the
  webhook endpoints of the player's app that want its type;
* a finished rated match's outcome to the ratings (:mod:`service.domain.outbox.ratings`);
* a tournament match's end to its tournament (:mod:`service.domain.outbox.tournaments`).

Every part is consumed idempotently, and the entry is popped only once every part is in place.  Work a
subscriber starts (a tournament's next matches) is handed on after the pop, never nested in the drain
that the mover's request performs.  The committer drains right after its commit; the keeper's sweep
(:mod:`service.domain.outbox.sweep`) drains what a dead committer left.  Notes that no commit carries
(a clock warning, a challenge, a seek, a tournament's) take :meth:`service.domain.outbox.notes.Notes.note`,
the same road without the outbox.
"""
