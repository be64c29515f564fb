"""Pure rules core: games, the contract they share, and bots. No I/O."""
