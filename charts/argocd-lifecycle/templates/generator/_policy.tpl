{{/*
The policy file of `generator serve --policy-file`: generator.policy's phase overrides and
generator.drift.projectWindows as its `driftWindows`; empty when neither is set (no ConfigMap, no flag).
*/}}
{{- define "argocd-lifecycle.generator.policyFile" -}}
{{- $policy := deepCopy (default (dict) .Values.generator.policy) -}}
{{- with .Values.generator.drift.projectWindows }}
{{- $_ := set $policy "driftWindows" . -}}
{{- end }}
{{- if $policy }}
{{- toYaml $policy }}
{{- end }}
{{- end }}
