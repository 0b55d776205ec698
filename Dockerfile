# syntax=docker/dockerfile:1.7
# One image for every role of argocd-lifecycle: the repo-server CMP sidecar, the generator and the
# receiver. Build: docker build -t argocd-lifecycle:0.1.0 .
# `make image` builds the same image without a container engine (tools/image/): the same Debian
# release and packages (tools/image/debian.lock), the same Python dependency lock, the same helm and
# kustomize builds (checked by sha256), the same user and entrypoint. tests/unit/chart/test_chart_dockerfile.py
# checks that this file and tools/image/versions.env agree.

ARG DEBIAN_IMAGE=debian:bookworm-20250520-slim@sha256:90522eeb7e5923ee2b871c639059537b30521272f10ca86fdbbbb2b75a8c40cd
ARG GO_IMAGE=golang:1.26.8-bookworm@sha256:a688600ca24f8a4d3ca77f95b0dd40704a9fc787c826660eb7ba0b641b8b175d

# --- tools: helm and kustomize from the Go module proxy, and Argo CD's argocd-k8s-auth from our consumer
#     module tools/go/argocd, built as tools/build.sh builds them. Go builds are reproducible, so the
#     binaries must have the pinned checksums; nothing else of this stage ships ---
FROM ${GO_IMAGE} AS tools
ARG GO_VERSION=1.26.8
ARG HELM_VERSION=v3.18.4
ARG HELM_SHA256=d99de83ceb9dc4a5c251ca50990596cfad826538b193acad94cf04823caf40cc
ARG KUSTOMIZE_VERSION=v5.7.0
ARG KUSTOMIZE_SHA256=9fbe0b9ccc99ce2819cb4cfcbff0065e3a39ea87d1fc632f0d542f2538eb8d94
ARG ARGOCD_K8S_AUTH_VERSION=v3.2.11
ARG ARGOCD_K8S_AUTH_SHA256=b8ce8feb8a06ac8cfd36acba328788d2203a138d3e3eb6a0b0f8cde36b7ff64c
ENV GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOBIN=/out
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN go version | grep -q " go${GO_VERSION} " \
 && go install -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=33" \
      "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" \
 && go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}" \
 && echo "${HELM_SHA256}  /out/helm" | sha256sum --check --strict \
 && echo "${KUSTOMIZE_SHA256}  /out/kustomize" | sha256sum --check --strict
WORKDIR /src/argocd
COPY tools/go/argocd/go.mod tools/go/argocd/go.sum ./
COPY tools/go/argocd/cmd/argocd-k8s-auth ./cmd/argocd-k8s-auth
# the flags of tools/build.sh's build_in_module, to the byte (the ldflags' trailing space is recorded too)
RUN test "$(go list -m -f '{{.Version}}' github.com/argoproj/argo-cd/v3)" = "${ARGOCD_K8S_AUTH_VERSION}" \
 && go build -trimpath -pgo=off -ldflags "-s -w " -o /out/argocd-k8s-auth ./cmd/argocd-k8s-auth \
 && echo "${ARGOCD_K8S_AUTH_SHA256}  /out/argocd-k8s-auth" | sha256sum --check --strict

# --- venv: the locked dependencies (hash-checked) and our wheel in a virtual environment of Debian's
#     python3.11; pip, the build backend and binutils stay in this stage ---
FROM ${DEBIAN_IMAGE} AS venv
ARG VERSION=0.1.0
ARG VENV=/opt/argocd-lifecycle
ARG PIP_WHEEL=pip-26.3-py3-none-any.whl
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN --mount=type=bind,source=tools/image/debian.lock,target=/tmp/debian.lock \
    apt-get update \
 && apt-get install -y --no-install-recommends $(awk '!/^#/ && NF {print $1 "=" $2}' /tmp/debian.lock) \
      python3-pip binutils \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements ./requirements
RUN python3 -m pip download --no-cache-dir --no-deps --require-hashes --only-binary=:all: --dest /wheels \
      -r requirements/image.txt -r requirements/build.txt
COPY pyproject.toml README.md ./
COPY core ./core
COPY plugin ./plugin
COPY generators ./generators
COPY notifications ./notifications
COPY app ./app
RUN python3.11 -m venv --without-pip /build \
 && /build/bin/python /wheels/${PIP_WHEEL}/pip install --no-cache-dir --no-index --find-links=/wheels \
      --require-hashes --no-deps -r requirements/build.txt \
 && /build/bin/python -m pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /wheels . \
 && python3.11 -m venv --without-pip ${VENV} \
 && ${VENV}/bin/python /wheels/${PIP_WHEEL}/pip install --no-cache-dir --no-index --find-links=/wheels \
      --require-hashes --no-deps --no-compile -r requirements/image.txt \
 && ${VENV}/bin/python /wheels/${PIP_WHEEL}/pip install --no-cache-dir --no-index --find-links=/wheels \
      --no-deps --no-compile argocd-lifecycle==${VERSION} \
 && find ${VENV} -name '*.so*' -type f -exec strip --strip-unneeded {} + \
 && python3.11 -m compileall -q --invalidation-mode unchecked-hash ${VENV}/lib

# --- final: Debian's python3.11 at the locked versions, the venv, the three tools, nothing else ---
FROM ${DEBIAN_IMAGE}
ARG VERSION=0.1.0
ARG VENV=/opt/argocd-lifecycle
ARG IMAGE_UID=999
LABEL org.opencontainers.image.title="argocd-lifecycle" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN --mount=type=bind,source=tools/image/debian.lock,target=/tmp/debian.lock \
    apt-get update \
 && apt-get install -y --no-install-recommends $(awk '!/^#/ && NF {print $1 "=" $2}' /tmp/debian.lock) \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/* \
 && python3.11 -m compileall -f -q --invalidation-mode unchecked-hash /usr/lib/python3.11
# uid/gid 999 like Argo CD's images: the CMP socket folder is shared with the repo-server
RUN groupadd --system --gid ${IMAGE_UID} argocd \
 && useradd --system --uid ${IMAGE_UID} --gid ${IMAGE_UID} --home-dir /tmp --no-create-home --shell /usr/sbin/nologin argocd \
 && mkdir -p /etc/ssl/certs \
 && ln -sfn ${VENV}/lib/python3.11/site-packages/certifi/cacert.pem /etc/ssl/certs/ca-certificates.crt
COPY --from=venv ${VENV} ${VENV}
COPY --from=tools --chown=0:0 /out/helm /out/kustomize /usr/local/bin/
# where the prober looks for exec credential plugins first (generators/fleet/exec_credentials.py)
COPY --from=tools --chown=0:0 /out/argocd-k8s-auth /usr/local/libexec/argocd-lifecycle/
# A read-only root file system in mind: every writable path is under /tmp (an emptyDir in the pods).
ENV HOME=/tmp \
    XDG_CACHE_HOME=/tmp/.cache \
    XDG_CONFIG_HOME=/tmp/.config \
    XDG_DATA_HOME=/tmp/.local/share \
    HELM_CACHE_HOME=/tmp/.cache/helm \
    HELM_CONFIG_HOME=/tmp/.config/helm \
    HELM_DATA_HOME=/tmp/.local/share/helm \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    PATH=/opt/argocd-lifecycle/bin:/usr/local/bin:/usr/bin:/bin \
    LANG=C.UTF-8
WORKDIR /tmp
USER 999:999
ENTRYPOINT ["argocd-lifecycle"]
CMD ["--help"]
