// Package e2e runs the real toolgate binary: four `toolgate manager`
// processes (controllers, admission webhooks and the authorization API)
// against an envtest kube-apiserver, two recording Consumptions on the
// apiserver and two in a separate etcd the suite kills and restarts, driven
// through kubectl and the Go client over HTTPS; and two standalone `toolgate
// serve` replicas sharing an etcd of their own over mutual TLS
// (docs/decisions.md, "Standalone replicas on etcd": one success among
// concurrent consumes, fail closed while etcd is down).
package e2e
