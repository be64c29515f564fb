"""The rule for a name shown to other players (a seat's name): one home, applied wherever a name is
accepted (match creation, joining; a rematch copies names that passed it).

A name is what other players read to know who they play, so it must not mislead: the rule refuses
text that renders differently from what it is (bidirectional overrides turn ``admin\\u202egnp.exe`` into
"adminexe.png"), that hides characters (zero-width joiners make two identical-looking names differ), or
that breaks a client's layout or log (line and paragraph separators, control characters).

The rule, in order:

1. NFKC normalisation: compatibility forms become their plain letters (full-width ``Ａ`` is ``A``,
   ligatures are split, no-break and other spaces become a plain space), so one visible name has one
   spelling.
2. Runs of spaces collapse to one space, and spaces at either end are dropped.
3. Refused: an empty name; any character of the Unicode categories Cc (control), Cf (format: bidi
   overrides, isolates and marks, zero-width characters, soft hyphen), Cs (lone surrogates), Co (private
   use), Cn (unassigned), Zl and Zp (line and paragraph separators); letters that render as nothing
   (:data:`INVISIBLE`: Hangul fillers, the blank Braille pattern); a name that starts with a
   combining mark, or stacks more than :data:`MAX_MARKS` of them on one character.
4. Refused: longer than :data:`MAX_LENGTH` characters after normalisation.

Not covered: confusable letters across scripts (Cyrillic ``а`` for Latin ``a``): whole scripts are
legitimate names, and telling a confusable from a name takes a confusables table clients are better
placed to apply.
"""

from __future__ import annotations

import unicodedata

#: Characters of a name at most (after normalisation); the schema and docs/api/matches.md say the same.
MAX_LENGTH = 40
#: Combining marks one character may carry (Vietnamese needs two; "zalgo" text stacks dozens).
MAX_MARKS = 3
#: Categories never allowed in a name (see the module docstring for why).
REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (bidirectional override, zero-width, ...)",
    "Cs": "a lone surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}

#: Letters and symbols that render as nothing (Hangul fillers, the blank Braille pattern, Khmer inherent
#: vowels): a name of them looks empty, or like another name, without any format character.
INVISIBLE = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")


class BadName(ValueError):
    """A name the rule refuses; the message says why, for the 422 naming the field."""


def normalise(raw: str, max_length: int = MAX_LENGTH) -> str:
    """``raw`` as it will be stored and shown, or :class:`BadName` saying why it is refused;
    ``max_length`` for text held to the same rule that may be longer (a chat message)."""
    name = " ".join(part for part in unicodedata.normalize("NFKC", raw).split(" ") if part)
    for position, char in enumerate(name):
        reason = _refusal(char)
        if reason is not None:
            raise BadName(f"contains {reason} (U+{ord(char):04X}) at position {position}")
    if not name:
        raise BadName("is empty once spaces are removed")
    _check_marks(name)
    if len(name) > max_length:
        raise BadName(f"is longer than {max_length} characters")
    return name


def _refusal(char: str) -> str | None:
    """Why ``char`` may not appear in a name, or ``None``."""
    if char in INVISIBLE:
        return "an invisible character"
    return REFUSED_CATEGORIES.get(unicodedata.category(char))


def _check_marks(name: str) -> None:
    """Combining marks belong to a character, and a few at most: none first, no tall stacks."""
    run = 0
    for position, char in enumerate(name):
        if not unicodedata.category(char).startswith("M"):
            run = 0
            continue
        run += 1
        if position == 0:
            raise BadName("starts with a combining mark")
        if run > MAX_MARKS:
            raise BadName(f"stacks more than {MAX_MARKS} combining marks on one character")
