#!/usr/bin/env bash
# Development only: a self-signed CA and a webhook serving certificate for
# config/dev (no cert-manager). Writes them under ${1:-bin/dev-certs}, then
# prints the commands that create the Secret the manager mounts and write the
# CA into the webhook configurations. Review, then run them. Production uses
# cert-manager (config/default), which also renews the certificate; the
# manager's certificate watcher picks a renewed certificate up either way.
set -euo pipefail
dir=${1:-bin/dev-certs}
svc=toolgate-webhook-service
ns=toolgate-system
mkdir -p "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
	-subj "/CN=toolgate-dev-ca" -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-subj "/CN=$svc.$ns.svc" -keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
printf 'subjectAltName=DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local,DNS:toolgate-authz.%s.svc,DNS:toolgate-authz.%s.svc.cluster.local\n' "$svc" "$ns" "$svc" "$ns" "$ns" "$ns" >"$dir/san.ext"
openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
	-days 30 -extfile "$dir/san.ext" -out "$dir/tls.crt" 2>/dev/null
ca=$(base64 <"$dir/ca.crt" | tr -d '\n')
# One caBundle per webhook, counted in config/webhook (controller-gen writes
# each configuration's webhooks as the document's only top-level list), so a
# webhook added there is patched too.
root=$(cd "$(dirname "$0")/.." && pwd)
patch() { # kind: the JSON patch adding the CA to every webhook of that configuration
	awk -v kind="$1" -v ca="$ca" '
		/^---/ { doc = "" }
		/^kind: / { doc = $2 }
		doc == kind && /^- / { n++ }
		END {
			if (n == 0) { print "dev-certs.sh: no " kind " webhooks in config/webhook" > "/dev/stderr"; exit 1 }
			for (i = 0; i < n; i++) printf "%s{\"op\":\"add\",\"path\":\"/webhooks/%d/clientConfig/caBundle\",\"value\":\"%s\"}", (i ? "," : "["), i, ca
			print "]"
		}' "$root/config/webhook/manifests.yaml"
}
mutating=$(patch MutatingWebhookConfiguration)
validating=$(patch ValidatingWebhookConfiguration)
cat <<EOT
# 1. install toolgate without cert-manager
kubectl apply -k config/dev
# 2. the serving certificate the manager mounts
kubectl -n $ns create secret tls toolgate-webhook-server-cert --cert=$dir/tls.crt --key=$dir/tls.key
# 3. trust the dev CA in every webhook
kubectl patch mutatingwebhookconfiguration toolgate-mutating-webhook-configuration --type=json -p='$mutating'
kubectl patch validatingwebhookconfiguration toolgate-validating-webhook-configuration --type=json -p='$validating'
EOT
