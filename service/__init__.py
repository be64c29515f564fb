"""The server: the domain (:mod:`service.domain`) over the storage (:mod:`service.storage`, the only code
that talks to Redis), served over HTTP (:mod:`service.http`) with a live reader per process
(:mod:`service.live`), all built once by the composition root (:mod:`service.wiring`)."""
