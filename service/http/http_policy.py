"""What the API tells browsers and proxies: CORS for an allow-list of origins, security headers, caching,
and which proxy headers to believe.

Browsers are the only clients these headers protect: an allow-list (never a reflected ``Origin``) keeps
other sites' scripts from driving a player's seat with a token they stole into local storage; the API's
documents are JSON and must never be sniffed as HTML, framed or cached by a shared cache (a view is one
seat's secret).  ``/docs`` is an HTML page (Swagger UI, local files only) and gets a policy that lets
exactly those files run.
"""

from __future__ import annotations

from flask import Flask, Response, request
from flask_cors import CORS
from werkzeug.middleware.proxy_fix import ProxyFix

from service.config import Config

#: Request headers a browser client may send cross-origin (beyond the CORS-safelisted ones).
ALLOW_HEADERS = ["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key",
                 "Last-Event-ID", "X-Request-ID"]  # fmt: skip
#: Response headers a browser client may read cross-origin.
EXPOSE_HEADERS = ["ETag", "Location", "Retry-After", "X-Request-ID"]
#: Paths open to cross-origin calls: the API and its spec (for client generators in the browser).
CORS_RESOURCES = r"^/(v1/.*|openapi\.json)$"
#: How long a browser may cache a preflight answer.
PREFLIGHT_MAX_AGE = 600

COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), geolocation=(), microphone=()",
}
API_CSP = "default-src 'none'; frame-ancestors 'none'"
#: Swagger UI: its own scripts and styles, and the inline bootstrap script of flask-smorest's page.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'none'"
)
#: The web client (/play): its own modules and styles only, API calls to this origin; no inline script.
PLAY_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HSTS = "max-age=31536000"


def allowed_origins(config: Config) -> list[str]:
    return [o.strip() for o in config.cors_origins.split(",") if o.strip()]


def install(app: Flask, config: Config) -> None:
    if config.trusted_proxies:
        # The ingress sets X-Forwarded-For/-Proto: without this every client would share the
        # ingress's address (one rate limit for all) and HTTPS would look like HTTP.
        n = config.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)  # type: ignore[method-assign]
    origins = allowed_origins(config)
    if origins:
        CORS(
            app,
            resources={CORS_RESOURCES: {"origins": origins}},
            allow_headers=ALLOW_HEADERS,
            expose_headers=EXPOSE_HEADERS,
            max_age=PREFLIGHT_MAX_AGE,
        )

    @app.after_request
    def _security_headers(response: Response) -> Response:
        # Every header a view set is kept (setdefault semantics).  The names already there are
        # looked up once: a werkzeug header lookup scans the whole list, and six ``setdefault``s of
        # it were a measurable share of a health check (issue 30 point 2).
        headers = response.headers
        present = {name.lower() for name, _ in headers.items()}
        path = request.path
        docs = path == "/docs" or path.startswith("/docs/")
        play = path == "/play" or path.startswith("/play/")
        for name, value in COMMON_HEADERS.items():
            if name.lower() not in present:
                headers.add(name, value)
        if "content-security-policy" not in present:
            headers.add("Content-Security-Policy", DOCS_CSP if docs else PLAY_CSP if play else API_CSP)
        if request.is_secure and "strict-transport-security" not in present:
            headers.add("Strict-Transport-Security", HSTS)
        if "cache-control" not in present and path.startswith("/v1/"):
            # A view may be revalidated by its own client (ETag) but stored by no shared cache;
            # anything else (e.g. the created match with its tokens) is not stored at all.
            versioned = request.method == "GET" and "etag" in present
            headers.add("Cache-Control", "private, no-cache" if versioned else "no-store")
        return response
