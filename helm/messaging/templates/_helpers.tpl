{{/* Names and labels shared by every object of the release. */}}

{{- define "messaging.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's prefix; short enough for the longest suffix ("-api-peers") to fit 63 chars. */}}
{{- define "messaging.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Selector labels of one component; argument: dict "root" $ "component" "api|ws|envoy". */}}
{{- define "messaging.selectorLabels" -}}
app.kubernetes.io/name: {{ include "messaging.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "messaging.labels" -}}
{{ include "messaging.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "messaging.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "messaging.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* repository:tag, or repository@digest when a digest is given; argument: an image value. */}}
{{- define "messaging.image" -}}
{{- if .image.digest -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository (default .appVersion .image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The X-RateLimit-Window spelling of the service: whole hours as "1h", else seconds "60s". */}}
{{- define "messaging.rateLimitWindow" -}}
{{- if eq (mod . 3600) 0 -}}{{ div . 3600 }}h{{- else -}}{{ . }}s{{- end -}}
{{- end -}}

{{/* typed_per_filter_config of routes that are not API calls: no versioning, envelope or transcoding. */}}
{{- define "messaging.envoy.passThrough" -}}
{{- $off := dict "@type" "type.googleapis.com/envoy.config.route.v3.FilterConfig" "disabled" true -}}
{{- toYaml (dict "messaging.api_versioning" $off "messaging.error_envelope" $off "envoy.filters.http.grpc_json_transcoder" $off) -}}
{{- end -}}

{{/* A value as environment text: YAML numbers arrive as floats, which would print as 1.048576e+06;
whole ones print as integers, fractions (OTEL_TRACES_SAMPLER_ARG) as they are. */}}
{{- define "messaging.envValue" -}}
{{- if and (kindIs "float64" .) (eq . (float64 (int64 .))) -}}{{ int64 . }}{{- else -}}{{ . }}{{- end -}}
{{- end -}}

{{/* Egress rule to the cluster DNS, which every pod needs to resolve names. */}}
{{- define "messaging.dnsEgress" -}}
- to:
    - namespaceSelector: {}
      podSelector:
        matchLabels: { k8s-app: kube-dns }
  ports:
    - { port: 53, protocol: UDP }
    - { port: 53, protocol: TCP }
{{- end -}}

{{/* Egress rule to MongoDB or Redis; argument: networkPolicy.mongodb or networkPolicy.redis. */}}
{{- define "messaging.storeEgress" -}}
- to: {{- toYaml .to | nindent 4 }}
  ports:
    {{- range .ports }}
    - { port: {{ . }}, protocol: TCP }
    {{- end }}
{{- end -}}

{{/* The MongoDB CA certificate, when mongodbTls.caSecret names a Secret: volumeMounts and volumes entries. */}}
{{- define "messaging.mongodbTlsMount" -}}
{{- if .Values.mongodbTls.caSecret.name -}}
- name: mongodb-tls
  mountPath: /etc/messaging/mongodb-tls
  readOnly: true
{{- end -}}
{{- end -}}

{{- define "messaging.mongodbTlsVolume" -}}
{{- if .Values.mongodbTls.caSecret.name -}}
- name: mongodb-tls
  secret:
    secretName: {{ .Values.mongodbTls.caSecret.name }}
    items:
      - { key: {{ .Values.mongodbTls.caSecret.key }}, path: {{ .Values.mongodbTls.caSecret.key }} }
{{- end -}}
{{- end -}}
