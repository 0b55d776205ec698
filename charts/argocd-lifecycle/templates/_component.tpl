{{/*
Objects every HTTP component (generator, receiver) has in the same shape. Pass
(dict "context" $ "values" .Values.<component> "fullname" NAME "serviceAccountName" NAME "automount" BOOL).
*/}}
{{- define "argocd-lifecycle.component.service" -}}
{{- $component := dict "context" .context "component" .values.name -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .fullname }}
  namespace: {{ include "argocd-lifecycle.namespace" .context }}
  labels:
    {{- include "argocd-lifecycle.labels" $component | nindent 4 }}
  {{- with .values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ .values.service.type }}
  ports:
    - name: http
      port: {{ .values.service.port }}
      targetPort: http
      protocol: TCP
  selector:
    {{- include "argocd-lifecycle.selectorLabels" $component | nindent 4 }}
{{- end -}}

{{- define "argocd-lifecycle.component.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .serviceAccountName }}
  namespace: {{ include "argocd-lifecycle.namespace" .context }}
  labels:
    {{- include "argocd-lifecycle.labels" (dict "context" .context "component" .values.name) | nindent 4 }}
  {{- with .values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: {{ .automount }}
{{- end -}}

{{- define "argocd-lifecycle.component.podDisruptionBudget" -}}
{{- $component := dict "context" .context "component" .values.name -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .fullname }}
  namespace: {{ include "argocd-lifecycle.namespace" .context }}
  labels:
    {{- include "argocd-lifecycle.labels" $component | nindent 4 }}
spec:
  minAvailable: {{ .values.pdb.minAvailable }}
  selector:
    matchLabels:
      {{- include "argocd-lifecycle.selectorLabels" $component | nindent 6 }}
{{- end -}}

{{- define "argocd-lifecycle.component.serviceMonitor" -}}
{{- $component := dict "context" .context "component" .values.name -}}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ .fullname }}
  namespace: {{ include "argocd-lifecycle.namespace" .context }}
  labels:
    {{- include "argocd-lifecycle.labels" $component | nindent 4 }}
    {{- with .values.serviceMonitor.additionalLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  endpoints:
    - port: http
      path: /metrics
      interval: {{ .values.serviceMonitor.interval }}
  namespaceSelector:
    matchNames:
      - {{ include "argocd-lifecycle.namespace" .context }}
  selector:
    matchLabels:
      {{- include "argocd-lifecycle.selectorLabels" $component | nindent 6 }}
{{- end -}}

{{/* An ingress-only NetworkPolicy; pass the dict above plus "peers" (argocd-lifecycle.networkPolicy.peers). */}}
{{- define "argocd-lifecycle.component.networkPolicy" -}}
{{- $component := dict "context" .context "component" .values.name -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ .fullname }}
  namespace: {{ include "argocd-lifecycle.namespace" .context }}
  labels:
    {{- include "argocd-lifecycle.labels" $component | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "argocd-lifecycle.selectorLabels" $component | nindent 6 }}
  # ingress only: egress goes to managed clusters' APIs and alert sinks, which live anywhere
  policyTypes:
    - Ingress
  ingress:
    - from:
        {{- toYaml .peers | nindent 8 }}
      ports:
        - port: http
          protocol: TCP
{{- end -}}
