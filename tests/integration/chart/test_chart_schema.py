"""helm refuses bad values with a message naming the value, before anything is rendered."""

from __future__ import annotations

import pytest

from tests.integration.chart.chartkit import render_error

pytestmark = pytest.mark.upstream


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (("replicaCount=2",), "Additional property replicaCount is not allowed"),
        (("generator.replicas=two",), "generator.replicas: Invalid type. Expected: integer"),
        (("generator.enabled=yes",), "generator.enabled: Invalid type. Expected: boolean"),
        (("generator.probeInterval=10 seconds",), "generator.probeInterval: Does not match pattern"),
        (("generator.serviceMonitor.enabled=true", "generator.serviceMonitor.intervall=5s"), "intervall"),
        (("global.image.tag=latest",), "global.image.tag"),
        (("global.image.digest=abc",), "global.image.digest: Does not match pattern"),
        (("receiver.state.type=etcd",), "receiver.state.type"),
        (("generator.logLevel=LOUD",), "generator.logLevel"),
        (("receiver.enabled=true",), "receiver.config.receivers: Array must have at least 1 items"),
        (("pluginGenerator.token.existingSecret=Not_A_Name",), "pluginGenerator.token.existingSecret"),
        (("generator.admissionPolicy.enabled=yes",), "generator.admissionPolicy.enabled: Invalid type"),
        (("secretInit.enabled=no",), "secretInit.enabled: Invalid type. Expected: boolean"),
        (("generator.serviceAccount.name=Not_A_Name",), "generator.serviceAccount.name"),
        (("global.networkPolicy.metricsScrapers.podLabels.a b=c",), 'podLabels: Property name of "a b" does not match'),
    ],
)
def test_schema_rejects(sets: tuple[str, ...], message: str) -> None:
    error = render_error(sets=sets)
    assert "values don't meet the specifications of the schema" in error
    assert message in error


SLACK = ("receiver.config.receivers[0].name=ops", "receiver.config.receivers[0].type=slack")


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        # a sink URL carries its credential (Slack, DingTalk access_token): never in a ConfigMap
        (
            ("receiver.config.receivers[0].url=https://hooks.slack.example/T0/B0/xyz",),
            "receivers.0.url: Must not validate",
        ),
        (("receiver.config.receivers[0].secret=s3cr3t",), "receivers.0.secret: Must not validate"),
        (("receiver.config.receivers[0].token=s3cr3t",), "receivers.0.token: Must not validate"),
        (("receiver.config.receivers[0].smtp.password=s3cr3t",), "receivers.0.smtp.password: Must not validate"),
        (("receiver.config.inbound.token=s3cr3t",), "inbound.token: Must not validate"),
        (("receiver.config.inbound.tokenFile=/tmp/t",), "inbound.tokenFile: Must not validate"),
        # files only from the mounted Secrets (secretMounts)
        (("receiver.config.receivers[0].urlFile=/etc/passwd",), "receivers.0.urlFile: Does not match pattern"),
        (("receiver.config.receivers[0].smtp.passwordFile=/tmp/p",), "smtp.passwordFile: Does not match pattern"),
        ((), "receivers.0: urlFile is required"),
    ],
)
def test_receiver_credentials_only_from_secrets(sets: tuple[str, ...], message: str) -> None:
    error = render_error(sets=("receiver.enabled=true", *SLACK, *sets))
    assert "values don't meet the specifications of the schema" in error
    assert message in error


def test_sqlite_cannot_be_shared_between_replicas() -> None:
    error = render_error(
        values=("all-enabled-values.yaml",),
        sets=("receiver.replicas=2",),
    )
    assert "receiver.replicas: Must be less than or equal to 1" in error


def test_redis_needs_an_address() -> None:
    error = render_error(
        values=("ha-redis-values.yaml",),
        sets=("receiver.state.redis.existingSecret=",),
    )
    assert "receiver.state.type=redis needs receiver.state.redis.url or receiver.state.redis.existingSecret" in error
