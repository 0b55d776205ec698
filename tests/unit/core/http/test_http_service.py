"""The service builder: routes from the endpoint table, the role checked before the handler (and before
any body is read), one JSON error shape for every refusal, translations, observation, and an OpenAPI
document generated from the same table with the shared refusals added."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.testclient import TestClient

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.http.auth import BearerAuth
from argocd_lifecycle.http.body import request_body
from argocd_lifecycle.http.endpoints import Endpoint, ServiceInfo
from argocd_lifecycle.http.errors import HttpError
from argocd_lifecycle.http.json_body import parse_json
from argocd_lifecycle.http.service import build_app
from argocd_lifecycle.http.tokens import TokenFile


class Refused(LifecycleError):
    pass


class Demo:
    def __init__(self, token: TokenFile) -> None:
        self.auth = BearerAuth({"writer": token})
        self.bodies_read = 0
        self.observed: list[int] = []
        self.errors: list[str] = []

    async def echo(self, request: Request) -> Response:
        self.bodies_read += 1
        return JSONResponse({"got": parse_json(request_body(request))})

    async def refuse(self, request: Request) -> Response:
        raise Refused("the demo refuses token=abc123")

    async def boom(self, request: Request) -> Response:
        raise RuntimeError("password=hunter2 exploded")

    def endpoints(self) -> list[Endpoint]:
        return [
            Endpoint("POST", "/echo", self.echo, {"operationId": "echo", "responses": {"200": {"description": "ok"}}},
                     role="writer", body=True, max_body=256, observe=lambda status, _: self.observed.append(status)),
            Endpoint("GET", "/refuse", self.refuse, {"responses": {"409": {"description": "no"}}}),
            Endpoint("GET", "/boom", self.boom),
        ]  # fmt: skip


@pytest.fixture
def demo(tmp_path: Path) -> Demo:
    (tmp_path / "token").write_text("s3cret")
    return Demo(TokenFile(tmp_path / "token"))


@pytest.fixture
def client(demo: Demo) -> TestClient:
    app = build_app(
        ServiceInfo("demo", "1.0", components={"schemas": {"Thing": {"type": "object"}}}),
        demo.endpoints(),
        auth=demo.auth,
        translations={Refused: lambda exc: HttpError(409, "refused", exc.message)},
        on_error=lambda request, error: demo.errors.append(error.reason),
    )
    return TestClient(app, raise_server_exceptions=False)


AUTH = {"Authorization": "Bearer s3cret"}


def test_the_role_is_checked_before_the_handler_reads_anything(client: TestClient, demo: Demo) -> None:
    assert client.post("/echo", json={"a": 1}).status_code == 401
    assert client.post("/echo", json={"a": 1}, headers={"Authorization": "Bearer no"}).status_code == 403
    assert demo.bodies_read == 0
    assert client.post("/echo", json={"a": 1}, headers=AUTH).json() == {"got": {"a": 1}}
    assert demo.observed == [401, 403, 200]
    assert demo.errors == ["missing_token", "wrong_token"]


def test_every_refusal_has_the_one_shape(client: TestClient) -> None:
    cases: list[tuple[Any, int, str]] = [
        (client.post("/echo", content=b"x" * 257, headers=AUTH), 413, "too_large"),
        (client.post("/echo", content=b"[" * 40 + b"]" * 40, headers=AUTH), 400, "too_deep"),
        (client.post("/echo", content=b"{", headers=AUTH), 400, "bad_json"),
        (client.get("/refuse"), 409, "refused"),
        (client.get("/nowhere"), 404, "not_found"),
        (client.get("/echo"), 405, "method_not_allowed"),
        (client.get("/boom"), 500, "internal"),
    ]
    for response, status, reason in cases:
        assert response.status_code == status
        assert response.headers["content-type"] == "application/json"
        body = response.json()
        assert set(body) == {"message", "reason"} and body["reason"] == reason, body


def test_unexpected_errors_are_logged_without_secrets(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    assert client.get("/boom").json() == {"message": "internal error: RuntimeError", "reason": "internal"}
    assert "exploded" in caplog.text and "hunter2" not in caplog.text


def test_a_role_without_auth_is_a_programming_error(demo: Demo) -> None:
    with pytest.raises(ValueError, match="needs the writer role"):
        build_app(ServiceInfo("demo", "1"), demo.endpoints())


def test_the_document_comes_from_the_table(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    assert doc["info"] == {"title": "demo", "version": "1.0"}
    assert set(doc["paths"]) == {"/echo", "/refuse", "/boom"}
    echo = doc["paths"]["/echo"]["post"]
    assert echo["security"] == [{"bearer": []}]
    assert list(echo["responses"]) == ["200", "400", "401", "403", "408", "413"]
    assert list(doc["paths"]["/refuse"]["get"]["responses"]) == ["409"]
    schemas = doc["components"]["schemas"]
    assert set(schemas) == {"Thing", "Error"} and schemas["Error"]["required"] == ["message", "reason"]
    assert doc["components"]["securitySchemes"] == {"bearer": {"type": "http", "scheme": "bearer"}}
