# syntax=docker/dockerfile:1.7
# One image for every role of argocd-lifecycle: the repo-server CMP sidecar, the generator, the receiver
# and the notifications apply Job. Build: docker build -t argocd-lifecycle:0.1.0 .
# Every upstream binary is pinned by version and verified against its published SHA-256.

ARG PYTHON_IMAGE=python:3.11.13-slim-bookworm

# --- wheels: build our wheel and collect every dependency as a wheel; nothing of this stage ships ---
FROM ${PYTHON_IMAGE} AS wheels
WORKDIR /src
COPY pyproject.toml README.md ./
COPY core ./core
COPY plugin ./plugin
COPY generators ./generators
COPY notifications ./notifications
RUN python -m pip wheel --no-cache-dir --wheel-dir /wheels .

# --- tools: helm, kustomize and kubectl release binaries, checked before use ---
FROM ${PYTHON_IMAGE} AS tools
ARG TARGETARCH=amd64
ARG HELM_VERSION=v3.18.4
ARG HELM_SHA256_AMD64=f8180838c23d7c7d797b208861fecb591d9ce1690d8704ed1e4cb8e2add966c1
ARG HELM_SHA256_ARM64=c0a45e67eef0c7416a8a8c9e9d5d2d30d70e4f4d3f7bea5de28241fffa8f3b89
ARG KUSTOMIZE_VERSION=v5.7.0
ARG KUSTOMIZE_SHA256_AMD64=0d98f06d6d2c2c0ff8923cc136a517af74aaa187f1b9f3e17ff370d0625ede84
ARG KUSTOMIZE_SHA256_ARM64=744bb1bc1854b6634dea9eaf6db2f401a734ed25d6837baa6f91157d79c27d5e
ARG KUBECTL_VERSION=v1.33.1
ARG KUBECTL_SHA256_AMD64=5de4e9f2266738fd112b721265a0c1cd7f4e5208b670f811861f699474a100a3
ARG KUBECTL_SHA256_ARM64=d595d1a26b7444e0beb122e25750ee4524e74414bbde070b672b423139295ce6
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /download
RUN case "${TARGETARCH}" in \
      amd64) helm_sha="${HELM_SHA256_AMD64}"; kustomize_sha="${KUSTOMIZE_SHA256_AMD64}"; kubectl_sha="${KUBECTL_SHA256_AMD64}" ;; \
      arm64) helm_sha="${HELM_SHA256_ARM64}"; kustomize_sha="${KUSTOMIZE_SHA256_ARM64}"; kubectl_sha="${KUBECTL_SHA256_ARM64}" ;; \
      *) echo "unsupported TARGETARCH ${TARGETARCH}" >&2; exit 1 ;; \
    esac \
 && curl -fsSL --proto '=https' --tlsv1.2 -o helm.tar.gz \
      "https://get.helm.sh/helm-${HELM_VERSION}-linux-${TARGETARCH}.tar.gz" \
 && echo "${helm_sha}  helm.tar.gz" | sha256sum --check --strict \
 && curl -fsSL --proto '=https' --tlsv1.2 -o kustomize.tar.gz \
      "https://github.com/kubernetes-sigs/kustomize/releases/download/kustomize%2F${KUSTOMIZE_VERSION}/kustomize_${KUSTOMIZE_VERSION}_linux_${TARGETARCH}.tar.gz" \
 && echo "${kustomize_sha}  kustomize.tar.gz" | sha256sum --check --strict \
 && curl -fsSL --proto '=https' --tlsv1.2 -o kubectl \
      "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/linux/${TARGETARCH}/kubectl" \
 && echo "${kubectl_sha}  kubectl" | sha256sum --check --strict \
 && mkdir -p /out \
 && tar -xzf helm.tar.gz --strip-components=1 -C /out "linux-${TARGETARCH}/helm" \
 && tar -xzf kustomize.tar.gz -C /out kustomize \
 && install -m 0755 kubectl /out/kubectl \
 && chmod 0755 /out/helm /out/kustomize

# --- final: the wheel, the three binaries, nothing else ---
FROM ${PYTHON_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="argocd-lifecycle" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
# uid/gid 999 like Argo CD's images: the CMP socket folder is shared with the repo-server
RUN groupadd --system --gid 999 argocd \
 && useradd --system --uid 999 --gid 999 --home-dir /home/argocd --create-home --shell /usr/sbin/nologin argocd
RUN --mount=type=bind,from=wheels,source=/wheels,target=/wheels \
    python -m pip install --no-cache-dir --no-index --find-links=/wheels argocd-lifecycle==${VERSION}
COPY --from=tools --chown=0:0 /out/helm /out/kustomize /out/kubectl /usr/local/bin/
# A read-only root file system in mind: every writable path is under /tmp (an emptyDir in the pods).
ENV HOME=/tmp \
    XDG_CACHE_HOME=/tmp/.cache \
    XDG_CONFIG_HOME=/tmp/.config \
    XDG_DATA_HOME=/tmp/.local/share \
    HELM_CACHE_HOME=/tmp/.cache/helm \
    HELM_CONFIG_HOME=/tmp/.config/helm \
    HELM_DATA_HOME=/tmp/.local/share/helm \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
WORKDIR /tmp
USER 999:999
ENTRYPOINT ["argocd-lifecycle"]
CMD ["--help"]
