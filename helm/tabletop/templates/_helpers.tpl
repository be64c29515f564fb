{{/* Names, labels and the pieces every pod shares. */}}

{{- define "tabletop.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "tabletop.fullname" -}}
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

{{- define "tabletop.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "tabletop.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component: include with (dict "ctx" $ "component" "api"). */}}
{{- define "tabletop.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tabletop.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "tabletop.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tabletop.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "tabletop.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "tabletop.redisSecretName" -}}
{{- default (include "tabletop.fullname" .) .Values.redis.existingSecret }}
{{- end }}

{{/* Settings of every container: the ConfigMap, and the Redis URL from the Secret. */}}
{{- define "tabletop.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "tabletop.fullname" . }}
env:
  - name: TABLETOP_REDIS_URL
    valueFrom:
      secretKeyRef:
        name: {{ include "tabletop.redisSecretName" . }}
        key: {{ .Values.redis.existingSecretKey }}
{{- if or .Values.redis.cluster .Values.redis.queueUrl }}
  - name: TABLETOP_QUEUE_REDIS_URL
    valueFrom:
      secretKeyRef:
        name: {{ include "tabletop.redisSecretName" . }}
        key: {{ .Values.redis.existingSecretQueueKey }}
{{- end }}
{{- if .Values.push.existingSecret }}
  - name: TABLETOP_VAPID_PRIVATE_KEY
    valueFrom:
      secretKeyRef:
        name: {{ .Values.push.existingSecret }}
        key: {{ .Values.push.existingSecretKey }}
{{- end }}
{{- end }}

{{/* The pod-level fields both Deployments share. */}}
{{- define "tabletop.podCommon" -}}
serviceAccountName: {{ include "tabletop.serviceAccountName" . }}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
