"""Matchmaking: open seeks (``seeks``) and direct challenges (``challenges``), both ending in a match made
the one way an app's agreed match is made (``making``, which tournaments share)."""
