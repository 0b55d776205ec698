{{/*
Cluster API source (generator.capi): the generator's extra arguments, and the read rules it needs in
every namespace it watches. Values are quoted, and the schema admits only namespace names, label keys
and server entries (none can start with "-").
*/}}
{{- define "argocd-lifecycle.generator.capiArgs" -}}
{{- if .Values.generator.capi.enabled }}
- --capi
{{- range .Values.generator.capi.namespaces }}
- --capi-namespace
- {{ . | quote }}
{{- end }}
{{- range .Values.generator.capi.copyLabels }}
- --capi-copy-label
- {{ . | quote }}
{{- end }}
{{- range .Values.generator.capi.allowServers }}
- --capi-allow-server
- {{ . | quote }}
{{- end }}
{{- range .Values.generator.capi.denyServers }}
- --capi-deny-server
- {{ . | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Refused before anything renders (the schema says the same; this holds with --skip-schema-validation too):
no watched namespace would mean every namespace and every Secret of the cluster, a bare "*" would copy
every label a tenant sets onto a cluster Secret, and the admission policy admits the copied keys.
*/}}
{{- define "argocd-lifecycle.generator.capiChecks" -}}
{{- if not .Values.generator.capi.namespaces }}
{{- fail "generator.capi.namespaces: name the namespaces whose Cluster API objects the generator watches (there is no every-namespace mode: it would read every Secret of the cluster)" }}
{{- end }}
{{- range .Values.generator.capi.copyLabels }}
{{- if not (regexMatch "^([a-z0-9.-]+/)?[A-Za-z0-9][-A-Za-z0-9_.]*$|^[a-z0-9.-]+/[*]$" .) }}
{{- fail (printf "generator.capi.copyLabels: %s is neither a label key nor prefix/* (a bare * would copy every label a tenant sets)" (. | quote)) }}
{{- end }}
{{- if regexMatch "^(argocd[.]argoproj[.]io|argocd-lifecycle[.]io)/" . }}
{{- fail (printf "generator.capi.copyLabels: %s is Argo CD's or argocd-lifecycle's own (the admission policy would let the generator set it)" (. | quote)) }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "argocd-lifecycle.generator.capiReadRules" -}}
# the Cluster API objects the generator watches
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["clusters", "machinedeployments", "machinepools"]
  verbs: ["list", "watch"]
- apiGroups: ["controlplane.cluster.x-k8s.io"]
  resources: ["kubeadmcontrolplanes"]
  verbs: ["list", "watch"]
# the <cluster>-kubeconfig Secrets: RBAC cannot narrow a list to a label, so this reads every Secret
# of this namespace, and only of the namespaces named (the generator keeps only the kubeconfigs and drops
# the rest as they arrive)
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["list", "watch"]
# lifecycle Events on the CAPI Clusters of this namespace; repeats are read and bump count and lastTimestamp
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "get", "patch"]
{{- end -}}

{{- define "argocd-lifecycle.generator.capiName" -}}
{{- printf "%s-capi" (include "argocd-lifecycle.generator.fullname" .) | trunc 58 | trimSuffix "-" -}}
{{- end -}}

{{/* The Role that creates and deletes its cluster Secrets (apart: a watched namespace may be Argo CD's). */}}
{{- define "argocd-lifecycle.generator.capiWriterName" -}}
{{- printf "%s-writer" (include "argocd-lifecycle.generator.capiName" .) -}}
{{- end -}}
