{{/*
Every name is the release name and a hyphen followed by config/'s base name:
`helm install toolgate` renders exactly config/default's toolgate- prefix.
*/}}
{{- define "toolgate.prefix" -}}
{{- printf "%s-" .Release.Name -}}
{{- end -}}

{{/* The labels config/default adds (part-of) and Helm's own. */}}
{{- define "toolgate.labels" -}}
app.kubernetes.io/part-of: toolgate
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The manager's labels, also its pods' selector (config/manager). */}}
{{- define "toolgate.selector" -}}
app.kubernetes.io/name: toolgate
app.kubernetes.io/component: manager
{{- end -}}

{{- define "toolgate.certSecret" -}}
{{- include "toolgate.prefix" . }}webhook-server-cert
{{- end -}}

{{- define "toolgate.webhookService" -}}
{{- include "toolgate.prefix" . }}webhook-service
{{- end -}}

{{- define "toolgate.authzService" -}}
{{- include "toolgate.prefix" . }}authz
{{- end -}}

{{/* The DNS names the serving certificate covers. */}}
{{- define "toolgate.dnsNames" -}}
- {{ include "toolgate.webhookService" . }}.{{ .Release.Namespace }}.svc
- {{ include "toolgate.webhookService" . }}.{{ .Release.Namespace }}.svc.cluster.local
- {{ include "toolgate.authzService" . }}.{{ .Release.Namespace }}.svc
- {{ include "toolgate.authzService" . }}.{{ .Release.Namespace }}.svc.cluster.local
{{- end -}}
