"""RQ jobs that play bot seats and sweep stalled matches."""
