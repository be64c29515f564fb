"""A small Python client of the Tabletop HTTP API (standard library only).

    from tabletop_client import Client
    api = Client("http://127.0.0.1:8000")
    match = api.create_match("china", [{"name": "ann"}, {"name": "bot", "kind": "bot", "level": "hard"}])
    token = match["tokens"][0]["token"]
    api.move(match["id"], token, api.legal_actions(match["id"], token)["actions"][0], match["version"])

Every method returns the decoded JSON body; a non-2xx answer raises :class:`ApiError` with the API's
error document.  One client holds one keep-alive connection and is not thread-safe: use one per thread.

A match call's ``token`` is a seat token or a **player token** (``tp.…``, which acts for its player's
seat in every match).  An integration's server holds its **app key** (``ta.…``) and names its players,
mints their tokens and creates matches seating them; its players' clients hold their tokens, list their
matches and read one feed instead of one event stream per match:

    app = AppClient("http://127.0.0.1:8000", app_key)
    app.put_player("ann", "Ann"); app.put_player("bob", "Bob")
    match = app.create_match("china", [{"player": "ann"}, {"player": "bob"}, {"name": "b", "kind": "bot"}])
    ann = PlayerClient("http://127.0.0.1:8000", app.mint_token("ann")["token"])
    for entry in ann.feed(wait=25)["events"]:          # your_turn, match_started, match_over...
        ...
    ann.move(match["id"], ann.legal_actions(match["id"])["actions"][0], match["version"])

The same calls with the credential as an argument are on :class:`Client` (``put_player(key, ...)``,
``my_matches(token)``...), with the operator's admin calls (``create_app(admin_token, name)``).

Players find opponents among their app's players and know where they stand:

    seek = ann.find_match("china", 3, rated=True, bots={"allow": True, "after_seconds": 60})
    ann.wait_finished(seek["match_id"])                 # ... having played it (see wait_turns)
    ann.ratings()                                       # per game: mu, sigma, ordinal, rank, history
    ann.leaderboard("china")["players"]                 # best ordinal (mu - 3 sigma) first
    challenge = ann.create_challenge("china", ["bob", "cy"], rated=True)  # they accept_challenge(id)
    ann.wait_challenge(challenge["id"])["match_id"]
    list(app.results("ann", "china"))                   # every finished match, with its result

Apps run tournaments (round robin or Swiss) of their players and the built-in bots:

    cup = app.create_tournament("taj_mahal", 3, [{"player": "ann"}, {"level": "easy"}, {"level": "hard"}])
    done = app.wait_tournament(cup["id"], progress=lambda doc: print(doc["progress"]))
    done["standings"]                                   # rank, points, wins, buchholz, seats...
    app.tournament_results(cup["id"], "csv")            # one row per seat of every match

A bot is a policy (``decide(view, legal_actions)``) run by :class:`tabletop_client.runner.Runner`
(or ``tabletop bot run module:Policy``): the feed with each decision whole, a run of decisions one
request each, matches at once, catch-up, challenges, seeks, rate limits and a clean Ctrl-C.

Where things are: :mod:`tabletop_client.transport` is the one connection and :class:`ApiError`; each
operation is written once, on :class:`Client`, in its group's module (``matches``, ``accounts``,
``feeds``, ``matchmaking``, ``tournaments``, ``webhooks``); :mod:`tabletop_client.holders` holds
:class:`PlayerClient` and :class:`AppClient`, which call those operations with the credential they hold.
"""

from tabletop_client.client import Client
from tabletop_client.holders import AppClient, PlayerClient
from tabletop_client.transport import ApiError, Doc

__all__ = ["ApiError", "AppClient", "Client", "Doc", "PlayerClient"]
