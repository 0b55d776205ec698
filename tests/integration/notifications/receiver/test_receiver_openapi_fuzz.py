"""Schemathesis generates requests from the live /openapi.json; the receiver must never answer 5xx
and must answer as the document says. Signed operations get a valid signature over the generated
body and bearer operations the token of their role (ingest for Argo CD's route, admin for the rest), so
the fuzzing reaches the parsing and the pipeline rather than stopping at 401/403."""

from __future__ import annotations

import json
import time

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from argocd_lifecycle.signing import sign
from tests.integration.notifications.receiver.conftest import ADMIN_TOKEN, SECRETS, TOKEN

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def test_fuzzing_the_api_finds_no_server_errors(start_receiver) -> None:
    receiver = start_receiver()
    schema = schemathesis.openapi.from_url(f"{receiver.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 9
    client = httpx.Client(timeout=10)
    tried: dict[str, int] = {}
    for operation in operations:

        @settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(case=st.one_of(operation.as_strategy(), operation.as_strategy(GenerationMode.NEGATIVE)))
        def check(case) -> None:
            kwargs = case.as_transport_kwargs(base_url=receiver.url)
            token = TOKEN if operation.path == "/v1/events/argocd" else ADMIN_TOKEN
            headers = {**kwargs.get("headers", {}), "Authorization": f"Bearer {token}"}
            content = kwargs.get("data")
            if "json" in kwargs:
                content = json.dumps(kwargs["json"]).encode()
                headers["Content-Type"] = "application/json"
            if operation.path in SECRETS and isinstance(content, bytes):
                headers.update(sign(SECRETS[operation.path], content, time.time()))
            response = client.request(
                kwargs["method"], kwargs["url"], params=kwargs.get("params"), headers=headers, content=content
            )
            tried[operation.label] = tried.get(operation.label, 0) + 1
            case.validate_response(response, checks=CHECKS)

        check()
    assert all(n > 0 for n in tried.values()) and len(tried) == len(operations)
    assert receiver.http.get("/healthz").status_code == 200
