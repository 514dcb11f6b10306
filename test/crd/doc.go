// Package crd proves the generated CRDs (config/crd/bases) on a real
// kube-apiserver and etcd with controller-runtime's envtest: the shipped
// samples apply as they are, the Section 39/49 markers and CEL rules reject
// what they should, specs are immutable, and an object's name is its
// protocol identity. Run it with make test-envtest; without
// KUBEBUILDER_ASSETS the suite skips unless TOOLGATE_REQUIRE_ENVTEST is set.
package crd
