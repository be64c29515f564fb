"""How the spec's additions name their components and point at them: the small pieces every part of
the document is built from."""

from __future__ import annotations

import json
from typing import Any


def ref(name: str) -> dict[str, str]:
    """A reference to the schema component ``name``."""
    return {"$ref": f"#/components/schemas/{name}"}


def pascal(name: str) -> str:
    """``year_of_dragon`` -> ``YearOfDragon``: component names read as class names once generated."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def copy_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A deep copy, so no two components share a dict (and the engine's constants stay untouched)."""
    copied: dict[str, Any] = json.loads(json.dumps(schema))
    return copied


def one_of(refs: dict[str, str], prop: str, description: str) -> dict[str, Any]:
    """oneOf the components ``refs`` (discriminator value -> component name), discriminated by ``prop``."""
    return {
        "description": description,
        "oneOf": [ref(name) for name in refs.values()],
        "discriminator": {"propertyName": prop, "mapping": {k: ref(v)["$ref"] for k, v in refs.items()}},
    }
