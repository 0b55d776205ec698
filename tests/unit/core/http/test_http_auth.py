"""Bearer roles: the right token passes, a missing one is 401, a wrong one or another role's 403, a role
without a token is off; rotation comes from the token files."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.http.auth import BearerAuth
from argocd_lifecycle.http.errors import HttpError
from argocd_lifecycle.http.tokens import TokenFile


@pytest.fixture
def auth(tmp_path: Path) -> BearerAuth:
    (tmp_path / "ingest").write_text("ingest-token\n")
    (tmp_path / "admin").write_text("admin-token")
    return BearerAuth({"ingest": TokenFile(tmp_path / "ingest"), "admin": TokenFile(tmp_path / "admin"), "off": None})


def refusal(auth: BearerAuth, header: str | None, role: str) -> tuple[int, str, str]:
    with pytest.raises(HttpError) as info:
        auth.check(header, role)
    return info.value.status, info.value.reason, info.value.message


def test_each_role_takes_its_own_token(auth: BearerAuth) -> None:
    auth.check("Bearer ingest-token", "ingest")
    auth.check("bearer  admin-token ", "admin")


def test_missing_is_401_with_the_challenge(auth: BearerAuth) -> None:
    for header in (None, "", "Basic YWRtaW4=", "Bearer "):
        assert refusal(auth, header, "admin")[:2] == (401, "missing_token")
    with pytest.raises(HttpError) as info:
        auth.check(None, "ingest")
    assert info.value.headers == {"WWW-Authenticate": "Bearer"}


def test_another_roles_token_is_403_and_says_so(auth: BearerAuth) -> None:
    assert refusal(auth, "Bearer ingest-token", "admin") == (
        403,
        "wrong_role",
        "this is the ingest token; the admin routes need the admin token",
    )
    assert refusal(auth, "Bearer admin-token", "ingest")[:2] == (403, "wrong_role")


def test_an_unknown_token_is_403(auth: BearerAuth) -> None:
    assert refusal(auth, "Bearer guess", "admin") == (
        403,
        "wrong_token",
        "the bearer token does not match the configured token",
    )


def test_a_role_without_a_token_is_off_for_everyone(auth: BearerAuth) -> None:
    for header in (None, "Bearer admin-token", "Bearer ingest-token"):
        assert refusal(auth, header, "off") == (403, "disabled", "the off routes are off: no off token is configured")


def test_unauthenticated_roles_need_nothing(tmp_path: Path) -> None:
    BearerAuth({"argocd": None}, unauthenticated=["argocd"]).check(None, "argocd")


def test_rotation_is_seen_and_the_repr_holds_no_token(auth: BearerAuth, tmp_path: Path) -> None:
    (tmp_path / "new").write_text("rotated")
    (tmp_path / "new").replace(tmp_path / "admin")
    assert refusal(auth, "Bearer admin-token", "admin")[1] == "wrong_token"
    auth.check("Bearer rotated", "admin")
    assert all(secret not in repr(auth) for secret in ("ingest-token", "admin-token", "rotated"))


def test_same_as_compares_the_current_tokens(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("one\n")
    (tmp_path / "b").write_text("  one")
    (tmp_path / "c").write_text("two")
    a, b, c = (TokenFile(tmp_path / n) for n in "abc")
    assert a.same_as(b) and not a.same_as(c)
    (tmp_path / "empty").write_text("")
    with pytest.raises(ConfigError):
        TokenFile(tmp_path / "empty")
