"""What the docstrings and the documentation name exists (issue 43 point 5).

A docstring's ``:mod:``, ``:func:``, ``:meth:``, ``:class:``, ``:data:``, ``:attr:``, ``:exc:`` or
``:obj:`` reference must resolve to a name Python can import, the way Sphinx reads them: absolute
(``service.storage.matches.Store``), ``~``-prefixed (shown short, resolved in full), relative to the
module and the class it is written in (``Store.load``, ``load``), or to the packages around it
(``.errors`` in :mod:`service.domain.matches` is :mod:`service.domain.errors` when the package has no
``errors``).  A name a module imports only for type checking counts as that module's.  The pages
(README.md and docs/) have no module around them, so theirs are absolute; and every repository path
they name (``service/http/app.py``, ``engine/games/<game>/board.py``) exists.  Moving or renaming a
thing without its references fails here."""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.docs.pages import ROOT, TEXTS

#: The packages whose docstrings are checked.
PACKAGES = ("engine", "service", "workers", "tabletop_client", "devtools", "research", "bench")
ROLE = re.compile(r":(mod|func|meth|class|data|attr|exc|obj):`([^`]+)`")
#: A repository path as the pages write it: a top-level folder, then at least one more part.
PATH = re.compile(
    r"(?<![\w./-])((?:engine|service|workers|tabletop_client|devtools|research|bench|tests|scripts|helm"
    r"|clients|openapi|docs)/[\w./<>*{}-]*[\w>*}/])"
)
_MISSING = object()


@dataclass(frozen=True)
class Reference:
    where: str  # file:line
    module: str | None  # the module the docstring is in (None: a page)
    scope: tuple[str, ...]  # the classes (and functions) around the docstring, outermost first
    role: str
    target: str

    def __str__(self) -> str:
        return f"{self.where}: :{self.role}:`{self.target}`"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def sources() -> tuple[Path, ...]:
    return tuple(path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py")))


def docstring_references(path: Path) -> Iterator[Reference]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = module_name(path)
    rel = path.relative_to(ROOT)

    def visit(node: ast.AST, scope: tuple[str, ...]) -> Iterator[Reference]:
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                line = node.body[0].lineno
                for found in ROLE.finditer(doc):
                    at = line + doc.count("\n", 0, found.start())
                    yield Reference(f"{rel}:{at}", module, scope, found.group(1), found.group(2))
        for child in ast.iter_child_nodes(node):
            inner = (*scope, child.name) if isinstance(child, ast.ClassDef | ast.FunctionDef) else scope
            yield from visit(child, inner)

    yield from visit(tree, ())


def page_references() -> Iterator[Reference]:
    for name, text in TEXTS.items():
        for found in ROLE.finditer(text):
            at = text.count("\n", 0, found.start()) + 1
            yield Reference(f"{name}:{at}", None, (), found.group(1), found.group(2))


@dataclass
class Module:
    """What a module of ours defines, read from its source (nothing is imported: importing every module
    would run what some of them do at import, such as gevent's monkey-patching)."""

    package: bool
    names: dict[str, ast.AST | str]  # a definition, or the dotted target of an import
    classes: dict[str, ast.ClassDef]  # by qualified name within the module


@cache
def ours() -> dict[str, Module]:
    modules = {}
    for path in sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        name = module_name(path)
        package = path.name == "__init__.py"
        modules[name] = Module(package, names_of(tree.body, name, package), classes_of(tree))
    return modules


def names_of(body: list[ast.stmt], module: str, package: bool) -> dict[str, ast.AST | str]:
    """The names a module's top level binds (inside ``if``, ``try`` and ``with`` too)."""
    names: dict[str, ast.AST | str] = {}
    base = module if package else module.rpartition(".")[0]
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names[leaf.id] = node
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                names[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                anchor = base.split(".")[: len(base.split(".")) - (node.level - 1)]
                source = ".".join([*anchor, source] if source else anchor)
            for alias in node.names:
                names[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.If | ast.Try | ast.With):
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            inner += [stmt for handler in getattr(node, "handlers", []) for stmt in handler.body]
            names.update(names_of(inner, module, package))
    return names


def classes_of(tree: ast.Module) -> dict[str, ast.ClassDef]:
    found: dict[str, ast.ClassDef] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                found[prefix + child.name] = child
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.If | ast.Try):
                visit(child, prefix)

    visit(tree, "")
    return found


def members(cls: ast.ClassDef) -> set[str]:
    """A class's own attributes: methods, nested classes, class attributes and fields, and what its
    methods assign to ``self``."""
    names = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(leaf.id for leaf in ast.walk(target) if isinstance(leaf, ast.Name))
    for node in ast.walk(cls):
        stored = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
        if stored and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
    return names


def external(dotted: str) -> bool:
    """``dotted`` names a library's module or something reachable from one (libraries are imported)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            owner: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            owner = getattr(owner, part, _MISSING)
            if owner is _MISSING:
                return False
        return True
    return False


def lookup(dotted: str, depth: int = 0) -> bool:
    """``dotted`` names a module of ours or something it defines (or imports), or a library's name."""
    if depth > 4:
        return False
    modules = ours()
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        if name in modules:
            return within(name, parts[cut:], depth)
    if parts[0] in PACKAGES:
        return False
    return external(dotted)


def within(module: str, rest: list[str], depth: int) -> bool:
    if not rest:
        return True
    info = ours()[module]
    first = rest[0]
    bound = info.names.get(first)
    if isinstance(bound, str):  # imported: follow it
        return lookup(".".join([bound, *rest[1:]]), depth + 1)
    if bound is None:
        return False
    if len(rest) == 1:
        return True
    cls = info.classes.get(first)
    return cls is not None and has_member(module, first, rest[1:], depth)


def has_member(module: str, qualname: str, rest: list[str], depth: int) -> bool:
    """``rest`` is reachable from the class ``qualname`` of ``module`` (its bases included)."""
    info = ours()[module]
    cls = info.classes[qualname]
    head = rest[0]
    if f"{qualname}.{head}" in info.classes:
        return len(rest) == 1 or has_member(module, f"{qualname}.{head}", rest[1:], depth)
    if head in members(cls):
        return len(rest) == 1
    for base in cls.bases:  # inherited: each base as the module names it
        dotted = ast.unparse(base).split("[")[0]
        first, _, tail = dotted.partition(".")
        if dotted in info.classes:  # a class of the same module
            if has_member(module, dotted, rest, depth + 1):
                return True
            continue
        bound = info.names.get(first)
        target = bound if isinstance(bound, str) else None
        if target is None and first in dir(builtins):
            target = f"builtins.{first}"
        if target and lookup(".".join([target, *filter(None, [tail]), *rest]), depth + 1):
            return True
    return False


def candidates(ref: Reference) -> Iterator[str]:
    target = "".join(ref.target.split())  # a reference may break over lines
    if "<" in target and target.endswith(">"):  # `text <target>`
        target = target[target.index("<") + 1 : -1]
    target = target.lstrip("~").removesuffix("()")
    relative = target.startswith(".")
    target = target.lstrip(".")
    if not relative:
        yield target
    if ref.module is None:
        return
    # Within the module, from the innermost class outwards, then the packages around it.
    for depth in range(len(ref.scope), -1, -1):
        yield ".".join([ref.module, *ref.scope[:depth], target])
    parts = ref.module.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        yield ".".join([*parts[:cut], target])
    yield f"builtins.{target}"
    if "." not in target:  # a member named alone in a module's docstring: of one of the module's classes
        for qualname in ours()[ref.module].classes:
            yield f"{ref.module}.{qualname}.{target}"


def resolves(ref: Reference) -> bool:
    return any(lookup(name) for name in candidates(ref))


def test_every_docstring_reference_resolves() -> None:
    broken = [str(ref) for path in sources() for ref in docstring_references(path) if not resolves(ref)]
    assert broken == [], "references to names that do not exist:\n" + "\n".join(broken)


def test_every_reference_in_the_pages_resolves() -> None:
    refs = list(page_references())
    broken = [str(ref) for ref in refs if not resolves(ref)]
    assert broken == [], "references to names that do not exist:\n" + "\n".join(broken)


def test_every_path_the_pages_name_exists() -> None:
    missing = []
    for name, text in TEXTS.items():
        for found in PATH.finditer(text):
            path = found.group(1).rstrip(".")
            pattern = re.sub(r"<[^>]*>|\{[^}]*\}", "*", path)
            if not (any(ROOT.glob(pattern.rstrip("/"))) if "*" in pattern else (ROOT / path).exists()):
                missing.append(f"{name}:{text.count(chr(10), 0, found.start()) + 1}: {path}")
    assert missing == [], "paths that do not exist:\n" + "\n".join(missing)


@pytest.mark.parametrize(
    ("target", "module", "scope", "ok"),
    [
        ("service.storage.matches.Store", None, (), True),
        ("~service.storage.matches.Store.load", None, (), True),
        ("Store.load", "service.storage.matches", (), True),
        ("load", "service.storage.matches", ("Store",), True),
        (".errors", "service.domain.matches.operations", (), True),  # service.domain.errors
        ("dict", "service.storage.matches", (), True),
        ("Store.no_such_method", "service.storage.matches", (), False),
        ("service.no_such_module", None, (), False),
    ],
)
def test_the_resolution_reads_references_as_sphinx_does(
    target: str, module: str | None, scope: tuple[str, ...], ok: bool
) -> None:
    assert resolves(Reference("here", module, scope, "obj", target)) is ok

