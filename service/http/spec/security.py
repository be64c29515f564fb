"""The seat-token security scheme and the requirements operations declare with it (``security=...``).

One scheme, ``seatToken``, for every kind of bearer token; an operation either requires it
(:data:`REQUIRED_SEAT`), takes it optionally (:data:`OPTIONAL_SEAT`, spectators welcome) or is anonymous.
"""

from __future__ import annotations

from apispec import APISpec

SECURITY_SCHEME = "seatToken"
#: For endpoints open to spectators: a token is optional.  OpenAPI's own form for that,
#: ``[{}, {seatToken: []}]``, makes openapi-python-client (0.29) demand an authenticated client, so
#: anonymous calls do not type-check (openapi-python-client#1372); with no requirement at all it
#: accepts ``Client | AuthenticatedClient`` (and the authenticated one sends its token), and
#: openapi-typescript reads both forms alike.  The operations' descriptions say a token is optional
#: (:func:`describe_requirements`).
OPTIONAL_SEAT: list[dict[str, list[str]]] = []
OPTIONAL_SEAT_NOTE = (
    "A seat token is optional: with `Authorization: Bearer <token>` the answer is as that seat sees "
    "the match, without one as a spectator sees it."
)
REQUIRED_SEAT: list[dict[str, list[str]]] = [{SECURITY_SCHEME: []}]


def register_scheme(spec: APISpec) -> None:
    """The one bearer scheme, with the four kinds of token it carries."""
    spec.components.security_scheme(
        SECURITY_SCHEME,
        {
            "type": "http",
            "scheme": "bearer",
            "description": "One bearer header, four kinds of token, told apart by their form: a seat token "
            "(returned by POST /v1/matches or a join: one seat of one match); a player token (`tp.…`, "
            "minted by an app for its player: acts for that player's seats in every match, within its "
            "scopes `read`/`play`); an app key (`ta.…`, the app's server: players, tokens, its matches); "
            "the operator's admin token (`/v1/admin/…` only).",
        },
    )


def describe_requirements(spec: APISpec) -> None:
    """Write the anonymous and optional-token operations in the form generators read right: no
    requirement at all, with :data:`OPTIONAL_SEAT_NOTE` in an optional token's description."""
    for item in spec._paths.values():  # apispec keeps the paths there until to_dict()
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("security") == [{}]:
                operation.pop("security")  # anonymous only: the same, in the form generators read right
            if isinstance(operation, dict) and operation.get("security") == OPTIONAL_SEAT:
                operation["description"] = (
                    f"{operation.get('description', '').rstrip()}\n\n{OPTIONAL_SEAT_NOTE}"
                )
                operation.pop("security")
