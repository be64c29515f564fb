"""Player data (issue 48): everything stored about one player, exported (:mod:`.export`) or erased
(:mod:`.erasure`), one :class:`.parts.PlayerData` part per kind of data."""
