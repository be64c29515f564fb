"""Players' feeds: what a commit tells each player (:mod:`.feed`), where a note comes from and its number
(:mod:`.sources`), and the clock warnings no commit carries (:mod:`.sweep`)."""
