// Package devcluster proves `make dev-cluster` (hack/devcluster;
// docs/decisions.md, "`make dev-cluster`"): up starts the envtest
// kube-apiserver and etcd, the manager with its webhooks and the samples in
// a detached process; the printed kubeconfig reaches a cluster where the
// samples are Ready and the admission webhook refuses a bad object; down
// stops every process. Without KUBEBUILDER_ASSETS the suite skips unless
// TOOLGATE_REQUIRE_ENVTEST is set.
package devcluster
