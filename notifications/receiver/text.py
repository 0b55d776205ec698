"""Sender text made safe where it lands: one line for titles and headers, escaped inside markup.

Everything a sender writes (app, cluster, trigger, message, field values) is text, never markup:

- ``one_line``: control characters (CR/LF among them) and runs of whitespace become one space, so a
  title, an e-mail header or a field value stays one line and cannot start a line of its own.
- ``slack``: Slack's mrkdwn reads only ``&``, ``<`` and ``>`` as markup (links ``<url|text>``,
  mentions ``<@U1>``, ``<!channel>``); its formatting guide says to escape those three.
- ``markdown`` (DingTalk): a CommonMark backslash before every ASCII punctuation character that
  opens an inline construct (links ``[x](y)``, images ``![](y)``, autolinks and HTML ``<...>``,
  emphasis, code, strikethrough, tables, entities, ``@`` mentions), and before the first character of
  a line that would open a block (heading, quote, list item, setext underline, fence). Each escape
  also separates what a renderer that ignores backslashes would pair (``]`` from ``(``, ``!`` from
  ``[``), so such a renderer shows a backslash, never a link.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\s]+")
SLACK = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_[](){}<>!|~&@"})
# after the inline escapes: up to three spaces, then what opens a block (a `*` is escaped already)
_BLOCK_START = re.compile(r"^( {0,3})([#>+=-]|[0-9]{1,9}(?=[.)]))", re.MULTILINE)


def one_line(text: str) -> str:
    return _CONTROL.sub(" ", text).strip()


def slack(text: str) -> str:
    return text.translate(SLACK)


def markdown(text: str) -> str:
    escaped = text.replace("\r\n", "\n").replace("\r", "\n").translate(MARKDOWN)
    return _BLOCK_START.sub(_escape_block_start, escaped)


def _escape_block_start(match: re.Match[str]) -> str:
    indent, opener = match.group(1), match.group(2)
    if opener[0].isdigit():  # "1." / "1)": escape the delimiter, the digits are text
        return f"{indent}{opener}\\"
    return f"{indent}\\{opener}"
