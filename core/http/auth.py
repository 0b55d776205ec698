"""Bearer credentials by role: each route names the role it needs, each role has its own token file.

Roles are disjoint: a token of one role is refused (403) on the routes of every other, so a token that
must be handed to another system (the receiver's ingest token sits in argocd-notifications-secret)
grants nothing else. Answers:

- 401 ``missing_token`` (with ``WWW-Authenticate: Bearer``): no bearer token in the request;
- 403 ``wrong_token``: a token that is no role's;
- 403 ``wrong_role``: another role's token;
- 403 ``disabled``: the role has no token configured, so its routes are off.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from argocd_lifecycle.http.errors import HttpError
from argocd_lifecycle.http.tokens import TokenFile, presented_bearer

MISSING = "missing bearer token (send Authorization: Bearer <token>)"
WRONG = "the bearer token does not match the configured token"


class BearerAuth:
    def __init__(self, tokens: Mapping[str, TokenFile | None], *, unauthenticated: Iterable[str] = ()) -> None:
        """``tokens``: role -> its token file, or None when the role is off; roles in ``unauthenticated``
        need no token at all (``--insecure-no-auth``)."""
        self._tokens = dict(tokens)
        self._open = frozenset(unauthenticated)

    def __repr__(self) -> str:
        return f"BearerAuth(roles={sorted(self._tokens)!r})"

    def check(self, authorization: str | None, role: str) -> None:
        """Return when ``authorization`` (the header's value) carries ``role``'s token; HttpError otherwise."""
        if role in self._open:
            return
        expected = self._tokens.get(role)
        if expected is None:
            raise HttpError(403, "disabled", f"the {role} routes are off: no {role} token is configured")
        presented = presented_bearer(authorization)
        if presented is None:
            raise HttpError(401, "missing_token", MISSING, headers={"WWW-Authenticate": "Bearer"})
        if expected.matches(presented):
            return
        for other, token in self._tokens.items():
            if other != role and token is not None and token.matches(presented):
                raise HttpError(
                    403, "wrong_role", f"this is the {other} token; the {role} routes need the {role} token"
                )
        raise HttpError(403, "wrong_token", WRONG)
