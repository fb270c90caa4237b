{{/* Chart name, truncated to the 63-character DNS label limit. */}}
{{- define "ballast.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name prefix for namespaced and cluster-scoped objects of this release. */}}
{{- define "ballast.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "ballast.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "ballast.labels" -}}
helm.sh/chart: {{ include "ballast.chart" . }}
{{ include "ballast.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ballast
{{- end }}

{{/* Selector labels of the operator pods (immutable once installed). */}}
{{- define "ballast.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ballast.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/* ServiceAccount the operator runs as. */}}
{{- define "ballast.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "ballast.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* repository:tag, the tag defaulting to the chart's appVersion. Argument: (list image root). */}}
{{- define "ballast.image" -}}
{{- $img := index . 0 }}{{- $root := index . 1 }}
{{- printf "%s:%s" $img.repository (default $root.Chart.AppVersion $img.tag) }}
{{- end }}

{{/* The ClusterRole every job's balancer is bound to; named after the release so that releases never share it. */}}
{{- define "ballast.balancerClusterRole" -}}
{{- printf "%s-balancer" (include "ballast.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
