// Package integration is the envtest suite of the Kubernetes layer: the real
// admission webhooks and controllers run in a test manager against a real
// kube-apiserver and etcd, and the suite reads the manager's store directly.
// Run it with make test-envtest.
package integration
