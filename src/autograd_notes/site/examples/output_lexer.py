"""Outputs as a page shows them: a ``show_state`` table is marked, every other line is plain text.

An output wraps, so that a long error line is read whole at any width; a
table must not, or its header breaks over two lines. The lexer marks the
table's lines so that the stylesheet keeps each on one line (the output then
scrolls sideways, the tensor names staying in view): the first column is a
:data:`STATE_NAME` token, the rest of the row a :data:`STATE_ROW` token. The
text is unchanged; only spans are added.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pygments.lexer import Lexer
from pygments.token import Text, Token, _TokenType

__all__ = ["STATE_NAME", "STATE_ROW", "OutputLexer"]

STATE_NAME = Token.Generic.StateName
"""A row's first column (a tensor's name) and the spaces after it but one: HTML classes ``g g-StateName``."""
STATE_ROW = Token.Generic.StateRow
"""The rest of a row, from that space on: HTML classes ``g g-StateRow``."""

# state_table's header (autograd_notes._state._COLUMNS), columns two spaces apart at least
_HEADER = re.compile(r"^(\s*)(tensor\s{2,})(requires_grad\s{2,}is_leaf\s{2,}grad_fn\b.*)$")
_BOOL = re.compile(r"(True|False)\s")


class OutputLexer(Lexer):  # type: ignore[misc]  # Pygments has no types here
    """Pygments lexer ``autograd-output``: what an example printed, its ``show_state`` tables marked."""

    name = "Autograd Notes output"
    aliases = ["autograd-output"]  # noqa: RUF012 - Pygments' API

    def get_tokens_unprocessed(self, text: str) -> Iterator[tuple[int, _TokenType, str]]:
        r"""Yield ``(offset, token, text)``: a table's rows split after their first column.

        >>> rows = ["tensor  requires_grad  is_leaf  grad_fn", "x       True           True     None", "done"]
        >>> [text for _, kind, text in OutputLexer().get_tokens_unprocessed("\n".join(rows)) if kind != Text]
        ['tensor ', ' requires_grad  is_leaf  grad_fn', 'x      ', ' True           True     None']
        """
        at = 0
        column = -1  # where a table's second column starts; -1 outside a table
        for line in text.splitlines(keepends=True):
            body = line.rstrip("\n")
            header = _HEADER.match(body)
            if header is not None:
                column = len(header.group(1)) + len(header.group(2))
            elif column < 0 or not _is_row(body, column):
                column = -1
            if column < 0:
                yield at, Text, line
            else:
                # the row keeps the last space before it: a wrapping output breaks after spaces, and
                # these are the row's own (its white-space keeps them whole)
                yield at, STATE_NAME, body[: column - 1]
                yield at + column - 1, STATE_ROW, body[column - 1 :]
                if len(body) < len(line):
                    yield at + len(body), Text, line[len(body) :]
            at += len(line)


def _is_row(line: str, column: int) -> bool:
    """Whether ``line`` is a table row whose second column (``requires_grad``) starts at ``column``."""
    return (
        len(line) > column
        and line[column - 2 : column] == "  "
        and not line[:1].isspace()
        and _BOOL.match(line, column) is not None
    )
