"""The HTTP layer: the app factory (:mod:`.app`), one blueprint per resource (:mod:`.api`), the
marshmallow schemas (:mod:`.schemas`), the OpenAPI additions (:mod:`.spec`), request-body parsing,
security headers and CORS, rate limits, admission, metrics, and the one table from the domain's
refusals to HTTP statuses (:mod:`.errors`).  A view parses, calls
:class:`service.domain.matches.operations.Matches`,
serialises: nothing else.
"""
