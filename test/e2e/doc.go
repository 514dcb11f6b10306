// Package e2e runs the real toolgate binary: four `toolgate manager`
// processes (controllers, admission webhooks and the authorization API)
// against an envtest kube-apiserver, two recording Consumptions on the
// apiserver and two in a separate etcd the suite kills and restarts,
// driven through kubectl and the Go client over HTTPS.
package e2e
