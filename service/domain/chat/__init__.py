"""A match's chat (issue 47 point 2): a players' channel and, for public matches, a spectators' channel;
messages (:mod:`~service.domain.chat.chat`), moderation (:mod:`~service.domain.chat.moderation`), who is
who (:mod:`~service.domain.chat.speakers`), the messages' forms and text rule
(:mod:`~service.domain.chat.messages`), and a player's messages as player data
(:mod:`~service.domain.chat.data`).  Stored beside the match: :mod:`service.storage.chat`."""
