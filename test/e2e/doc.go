// Package e2e runs the real toolgate binary: two `toolgate manager`
// processes (controllers, admission webhooks and the authorization API)
// against an envtest kube-apiserver, driven through kubectl and the Go
// client over HTTPS.
package e2e
