{{/*
Cluster API source (generator.capi): the generator's extra arguments, and the read rules it needs in
every namespace it watches. Values are quoted, and the schema admits only namespace names and label keys.
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
# here (the generator keeps only the kubeconfigs and drops the rest as they arrive)
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["list", "watch"]
# lifecycle Events on the CAPI Clusters; repeats are read and bump count and lastTimestamp
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
