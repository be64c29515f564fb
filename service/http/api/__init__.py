"""HTTP resources, one blueprint each; views parse HTTP, call the domain (the objects of
:mod:`service.http.context`) and serialise."""

from __future__ import annotations

import flask_smorest
from flask import Flask
from flask_smorest import Api

from service.http.jsonbody import BodyParser

#: Response header docs shared by the versioned resources.
ETAG_HEADER = {"ETag": {"description": 'The match version, e.g. `"12"`.', "schema": {"type": "string"}}}


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, reading JSON bodies with :class:`service.http.jsonbody.BodyParser`."""

    ARGUMENTS_PARSER = BodyParser()


def register_blueprints(app: Flask, api: Api) -> None:
    from service.http.api import (
        accounts,
        actions,
        challenges,
        chat,
        docs,
        events,
        feed,
        games,
        health,
        hints,
        lifecycle,
        matches,
        privacy,
        push,
        quota,
        ratings,
        records,
        seeks,
        takebacks,
        tournaments,
        webclient,
        webhooks,
    )

    for module in (games, matches, lifecycle, actions, events, feed, hints, health, quota, webhooks):
        api.register_blueprint(module.blp)
    for module in (ratings, seeks, challenges, tournaments, privacy):
        api.register_blueprint(module.blp)
    api.register_blueprint(chat.blp)
    api.register_blueprint(chat.app_reports)
    api.register_blueprint(takebacks.blp)
    api.register_blueprint(push.blp)
    for blueprint in (accounts.admin, accounts.players, accounts.me):
        api.register_blueprint(blueprint)
    for blueprint in (records.match_records, records.exports):
        api.register_blueprint(blueprint)
    app.register_blueprint(records.schema_file)  # the record's JSON Schema: a document, as the spec
    app.register_blueprint(docs.blp)  # static files only: not part of the API spec
    app.register_blueprint(webclient.blp)  # the reference browser client, static files too
