"""The pages describe the code as it is (issue 43 point 5): every operation they name (``GET
/v1/matches/{id}``) is in the committed spec with that method, and every ``tabletop`` command and option
they show is one the command line has.  The settings have their own test (every field of
:class:`service.config.Config` has its row, with its default: tests/service/test_readme_accounts.py)."""

from __future__ import annotations

import json
import re

from tests.docs.pages import ROOT, TEXTS

#: Served outside the spec: the probes, the metrics and the web client's pages.
UNSPECIFIED = ("/healthz", "/readyz", "/metrics", "/play")
#: The command line's sources: its parsers are built inside ``main`` (and the tournament and bot commands').
CLI = "".join(
    (ROOT / path).read_text()
    for path in (
        "service/cli.py",
        "service/replay_cli.py",
        "tabletop_client/tournament_cli.py",
        "tabletop_client/export_cli.py",
        "tabletop_client/runner/cli.py",
    )
)


def anonymous(path: str) -> str:
    return re.sub(r"\{\w+\}", "{}", path)  # `{id}` or `{match_id}`: any name for a parameter


def test_every_operation_the_pages_name_is_in_the_spec() -> None:
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    operations = {(verb.upper(), anonymous(path)) for path, item in spec["paths"].items() for verb in item}
    missing = []
    for name, text in TEXTS.items():
        flat = " ".join(text.split())  # an operation may break over lines
        for found in re.finditer(r"\b(GET|POST|PUT|PATCH|DELETE) (/[\w/{}.-]*\w}?)", flat):
            method, path = found.groups()
            if not path.startswith(UNSPECIFIED) and (method, anonymous(path)) not in operations:
                missing.append(f"{name}: {method} {path}")
    assert missing == [], "operations the spec does not have:\n" + "\n".join(missing)


def test_every_command_and_option_the_pages_show_exists() -> None:
    commands = set(re.findall(r"add_parser\(\s*\"([\w-]+)\"", CLI))
    assert {"serve", "worker", "demo", "tournament", "apps", "webhooks"} <= commands
    missing = []
    for name, text in TEXTS.items():
        # `tabletop <command>` as a shell line has it (not "helm install tabletop", nor the HMAC's label)
        shown = r"(?:^|(?<=[`$ /(]))(?<!install )tabletop (\w+)((?: [^`\n|]*)?)"
        for found in re.finditer(shown, text, re.M):
            command, rest = found.groups()
            if command == "idempotency":  # "tabletop idempotency v1": the key derivation's label
                continue
            if command not in commands:
                missing.append(f"{name}: tabletop {command}")
            options = re.findall(r"--[\w-]+", rest)
            missing += [f"{name}: tabletop {command} {o}" for o in options if f'"{o}"' not in CLI]
    assert missing == [], "commands or options the command line does not have:\n" + "\n".join(missing)
