# syntax=docker/dockerfile:1
# One image for every Tabletop process; the command picks the role (see docs/operating.md, "Deployment"):
#   docker run -e TABLETOP_REDIS_URL=redis://redis:6379/0 -p 8000:8000 tabletop   the API (default)
#   docker run -e TABLETOP_REDIS_URL=... tabletop worker                           RQ worker: bot turns, their
#                                                          retries, and the periodic sweep for stalled turns
#   docker run -e TABLETOP_REDIS_URL=... tabletop sweep                            one sweep now, then exit
# The API is gunicorn with gevent workers: 2 processes by default, sized for a pod with 2 CPUs (one
# process per CPU).  A process holds thousands of connections: an open event stream or long-poll costs
# memory, not a thread.  Override with: tabletop serve --workers N (and the TABLETOP_* settings).

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# ---- build: compilers are here only, for any dependency without a wheel for the target platform -----
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential=12.9 \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY service/ service/
COPY workers/ workers/
COPY devtools/ devtools/
COPY tabletop_client/ tabletop_client/
RUN pip install --no-compile . \
    && python -m compileall -q /opt/venv/lib

# ---- runtime: the virtualenv and a non-root user, nothing else ----------------------------------------
FROM ${PYTHON_IMAGE} AS runtime
LABEL org.opencontainers.image.title="tabletop" \
      org.opencontainers.image.description="Rules-exact board game server: API, bot worker and sweep" \
      org.opencontainers.image.licenses="MIT"
RUN groupadd --system --gid 10001 tabletop \
    && useradd --system --uid 10001 --gid tabletop --home-dir /app --shell /usr/sbin/nologin tabletop \
    && install -d -o tabletop -g tabletop /app
COPY --from=build /opt/venv /opt/venv
# PYTHONDONTWRITEBYTECODE: the root filesystem may be read-only (the chart mounts it so).
# XDG_RUNTIME_DIR: where gunicorn puts its control socket; /tmp is the one writable mount.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    XDG_RUNTIME_DIR=/tmp \
    TABLETOP_HOST=0.0.0.0 \
    TABLETOP_PORT=8000
WORKDIR /app
USER 10001:10001
EXPOSE 8000
# The API answers /healthz; worker containers serve no HTTP: run them with --no-healthcheck
# (Kubernetes ignores HEALTHCHECK and uses the chart's probes).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('TABLETOP_PORT', '8000'), timeout=4)"]
ENTRYPOINT ["tabletop"]
CMD ["serve", "--workers", "2"]
