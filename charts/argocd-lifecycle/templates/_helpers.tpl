{{/* vim: set filetype=mustache: */}}
{{/*
Names follow argo-helm's charts/argo-cd: <chart>.fullname, then <chart>.<component>.fullname.
*/}}
{{- define "argocd-lifecycle.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "argocd-lifecycle.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "argocd-lifecycle.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Argo CD namespace: everything lives there. */}}
{{- define "argocd-lifecycle.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "argocd-lifecycle.generator.fullname" -}}
{{- printf "%s-%s" (include "argocd-lifecycle.fullname" .) .Values.generator.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "argocd-lifecycle.generator.serviceAccountName" -}}
{{- if .Values.generator.serviceAccount.create -}}
{{- default (include "argocd-lifecycle.generator.fullname" .) .Values.generator.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.generator.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "argocd-lifecycle.receiver.fullname" -}}
{{- printf "%s-%s" (include "argocd-lifecycle.fullname" .) .Values.receiver.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "argocd-lifecycle.receiver.serviceAccountName" -}}
{{- if .Values.receiver.serviceAccount.create -}}
{{- default (include "argocd-lifecycle.receiver.fullname" .) .Values.receiver.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.receiver.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "argocd-lifecycle.receiver.inboundSecretName" -}}
{{- default (printf "%s-inbound" (include "argocd-lifecycle.receiver.fullname" .)) .Values.receiver.inbound.existingSecret -}}
{{- end -}}

{{- define "argocd-lifecycle.pluginGenerator.configMapName" -}}
{{- default (include "argocd-lifecycle.generator.fullname" .) .Values.pluginGenerator.configMapName -}}
{{- end -}}

{{- define "argocd-lifecycle.pluginGenerator.tokenSecretName" -}}
{{- default (printf "%s-token" (include "argocd-lifecycle.generator.fullname" .)) .Values.pluginGenerator.token.existingSecret -}}
{{- end -}}

{{- define "argocd-lifecycle.plugin.configMapName" -}}
{{- default (printf "%s-plugin" (include "argocd-lifecycle.fullname" .)) .Values.plugin.configMapName -}}
{{- end -}}

{{- define "argocd-lifecycle.notifications.fullname" -}}
{{- printf "%s-notifications" (include "argocd-lifecycle.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Common labels; pass (dict "context" $ "component" "generator" ["partOf" "argocd"]). */}}
{{- define "argocd-lifecycle.labels" -}}
helm.sh/chart: {{ include "argocd-lifecycle.chart" .context }}
{{ include "argocd-lifecycle.selectorLabels" . }}
app.kubernetes.io/version: {{ .context.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .context.Release.Service }}
app.kubernetes.io/part-of: {{ .partOf | default "argocd-lifecycle" }}
{{- with .context.Values.global.additionalLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "argocd-lifecycle.selectorLabels" -}}
app.kubernetes.io/name: {{ include "argocd-lifecycle.name" .context }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end -}}

{{- define "argocd-lifecycle.image" -}}
{{- $image := .Values.global.image -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $image.repository $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
The Secrets the chart never renders (their values would change on every render) but a pre-install
hook Job creates once with `argocd-lifecycle ensure-secret`: a list of (name, keys, labels).
*/}}
{{- define "argocd-lifecycle.generatedSecrets" -}}
{{- $out := list -}}
{{- if and (or .Values.pluginGenerator.enabled .Values.generator.enabled) (not .Values.pluginGenerator.token.existingSecret) -}}
{{- /* part-of argocd: Argo CD resolves `$<secret>:<key>` only from Secrets labelled so */ -}}
{{- $labels := dict "app.kubernetes.io/name" (include "argocd-lifecycle.name" .) "app.kubernetes.io/component" "plugin-generator" "app.kubernetes.io/part-of" "argocd" -}}
{{- $out = append $out (dict "name" (include "argocd-lifecycle.pluginGenerator.tokenSecretName" .) "keys" (list (printf "%s:48" .Values.pluginGenerator.token.secretKey)) "labels" $labels) -}}
{{- end -}}
{{- if and .Values.receiver.enabled (not .Values.receiver.inbound.existingSecret) -}}
{{- $labels := dict "app.kubernetes.io/name" (include "argocd-lifecycle.name" .) "app.kubernetes.io/component" .Values.receiver.name "app.kubernetes.io/part-of" "argocd-lifecycle" -}}
{{- /* one HMAC secret per signed sender: the generator's lifecycle events, everyone else's external events */ -}}
{{- $out = append $out (dict "name" (include "argocd-lifecycle.receiver.inboundSecretName" .) "keys" (list "token:48" "lifecycle-hmac:64" "external-hmac:64") "labels" $labels) -}}
{{- end -}}
{{- toYaml (dict "secrets" $out) -}}
{{- end -}}

{{- define "argocd-lifecycle.secretInit.fullname" -}}
{{- printf "%s-secret-init" (include "argocd-lifecycle.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Cluster-scoped, so one per release and namespace. */}}
{{- define "argocd-lifecycle.generator.admissionPolicyName" -}}
{{- printf "%s.%s" (include "argocd-lifecycle.generator.fullname" .) (include "argocd-lifecycle.namespace" .) -}}
{{- end -}}

{{/*
An ingress-only NetworkPolicy's peers: Argo CD's pods with `labels` (else `defaultLabels`; this
namespace), our own components in `components`, the metrics scrapers of global.networkPolicy (their pods
in their one namespace), then `extraIngressFrom`. Label maps default in the template, not in
values.yaml, because Helm merges a map from the user's values into the default one: a selector set by
the user must replace ours.
Pass (dict "context" $ "labels" MAP "defaultLabels" MAP "components" LIST "values" .Values.<component>).
*/}}
{{- define "argocd-lifecycle.networkPolicy.peers" -}}
{{- $ctx := .context -}}
{{- $peers := list (dict "podSelector" (dict "matchLabels" (.labels | default .defaultLabels))) -}}
{{- range .components -}}
{{- $peers = append $peers (dict "podSelector" (dict "matchLabels" (include "argocd-lifecycle.selectorLabels" (dict "context" $ctx "component" .) | fromYaml))) -}}
{{- end -}}
{{- $scrapers := $ctx.Values.global.networkPolicy.metricsScrapers -}}
{{- if $scrapers.enabled -}}
{{- if not $scrapers.namespace -}}
{{- fail "global.networkPolicy.metricsScrapers.namespace is empty: name the namespace your metrics scrapers run in (an empty one would admit pods of every namespace), or set global.networkPolicy.metricsScrapers.enabled=false" -}}
{{- end -}}
{{- $scraperLabels := $scrapers.podLabels | default (dict "app.kubernetes.io/name" "prometheus") -}}
{{- /* kubernetes.io/metadata.name is set by the API server to the namespace's name: no tenant can forge it */ -}}
{{- $namespaces := dict "matchLabels" (dict "kubernetes.io/metadata.name" $scrapers.namespace) -}}
{{- $peers = append $peers (dict "namespaceSelector" $namespaces "podSelector" (dict "matchLabels" $scraperLabels)) -}}
{{- end -}}
{{- toYaml (dict "peers" (concat $peers .values.networkPolicy.extraIngressFrom)) -}}
{{- end -}}

{{/* Pod-level settings shared by every workload; pass (dict "context" $ "component" .Values.generator). */}}
{{- define "argocd-lifecycle.podScheduling" -}}
{{- $global := .context.Values.global -}}
{{- with .context.Values.global.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml $global.podSecurityContext | nindent 2 }}
{{- with (default $global.nodeSelector .component.nodeSelector) }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (default $global.tolerations .component.tolerations) }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .component.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .component.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- end -}}

{{/* The HTTP probes every service answers on /healthz; pass the component's values. */}}
{{- define "argocd-lifecycle.probes" -}}
livenessProbe:
  httpGet:
    path: /healthz
    port: http
  initialDelaySeconds: {{ .probes.initialDelaySeconds }}
  periodSeconds: {{ .probes.periodSeconds }}
  timeoutSeconds: {{ .probes.timeoutSeconds }}
  failureThreshold: {{ .probes.failureThreshold }}
readinessProbe:
  httpGet:
    path: /healthz
    port: http
  initialDelaySeconds: {{ .probes.initialDelaySeconds }}
  periodSeconds: {{ .probes.periodSeconds }}
  timeoutSeconds: {{ .probes.timeoutSeconds }}
  failureThreshold: {{ .probes.failureThreshold }}
{{- end -}}

{{/* Base URL of the receiver for the notifications webhook service (the templates add the path). */}}
{{- define "argocd-lifecycle.notifications.webhookUrl" -}}
{{- if .Values.notifications.webhookService.url -}}
{{- .Values.notifications.webhookService.url -}}
{{- else if .Values.receiver.enabled -}}
{{- printf "http://%s.%s.svc:%d" (include "argocd-lifecycle.receiver.fullname" .) (include "argocd-lifecycle.namespace" .) (int .Values.receiver.service.port) -}}
{{- end -}}
{{- end -}}

{{/*
The notifications keys we own: the catalog's trigger.* and template.* keys (from files/, built by
`argocd-lifecycle notifications render --format configmap`) plus our webhook service, as YAML.
*/}}
{{- define "argocd-lifecycle.notifications.data" -}}
{{- $catalog := .Files.Get "files/notifications-cm.yaml" | fromYaml -}}
{{- $data := dict -}}
{{- range $key, $value := (dig "data" (dict) $catalog) -}}
{{- if or (hasPrefix "trigger." $key) (hasPrefix "template." $key) -}}
{{- $_ := set $data $key $value -}}
{{- end -}}
{{- end -}}
{{- $url := include "argocd-lifecycle.notifications.webhookUrl" . -}}
{{- if and .Values.notifications.webhookService.enabled $url -}}
{{- $service := dict "url" $url "headers" (list (dict "name" "Content-Type" "value" "application/json") (dict "name" "Authorization" "value" (printf "Bearer $%s" .Values.notifications.webhookService.tokenSecretKey))) -}}
{{- $_ := set $data "service.webhook.argocd-lifecycle" (toYaml $service) -}}
{{- end -}}
{{- toYaml $data -}}
{{- end -}}

{{/* What the notifications apply Job may do in each namespace it applies to: the server-side apply of
that one ConfigMap. An apply is a patch; when the ConfigMap is missing the API server also checks create,
with the ConfigMap's name, so resourceNames holds for both; a POST (no name to check) stays refused. */}}
{{- define "argocd-lifecycle.notifications.applyRules" -}}
- apiGroups: [""]
  resources: ["configmaps"]
  resourceNames: [{{ .Values.notifications.configMapName | quote }}]
  verbs: ["create", "patch"]
{{- end -}}

{{/* What the generator may do in a tenant's namespace (tenants-rbac.yaml): what it does in Argo CD's,
less the Secrets and the Lease. */}}
{{- define "argocd-lifecycle.generator.tenantRules" -}}
- apiGroups: ["argoproj.io"]
  resources: ["applications"]
  verbs: ["list", "watch"]
- apiGroups: ["argoproj.io"]
  resources: ["applicationsets"]
  verbs: ["list", "watch", "patch"]
# MassDropHeld and MassDropReleased on the tenant's ApplicationSet (the admission policy: only those)
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "get", "patch"]
{{- end -}}
