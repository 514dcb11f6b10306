// Package kubefixture holds the fixtures of the suites that run on a real
// kube-apiserver (test/..., internal/consume/apistore): the shipped samples as
// typed objects, fresh copies ready to create, and the suite teardown. Like internal/testutil, whose
// part it is, it is for tests only. It is a package of its own because it
// imports internal/manifest, which internal/testutil's in-package users
// (internal/agentsafe among them) must not reach.
package kubefixture

import (
	"context"
	"fmt"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
)

// Scheme returns a new scheme holding the built-in Kubernetes types and
// toolgate's v1alpha1 kinds: what a suite's clients read and write.
func Scheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

// Samples reads the shipped config/samples below the repository root as
// the CLI reads them, and checks that they are the set the suites build on:
// one HostAuthority, one ToolRegistry and two PolicySnapshot generations.
// It returns an error rather than failing a testing.TB, so Ginkgo suites
// can use it with Expect.
func Samples(repoRoot string) (*manifest.Set, error) {
	set, err := manifest.LoadPaths(filepath.Join(repoRoot, "config", "samples"))
	if err != nil {
		return nil, err
	}
	if len(set.HostAuthorities) != 1 || len(set.ToolRegistries) != 1 || len(set.PolicySnapshots) != 2 {
		return nil, fmt.Errorf("the samples hold %d HostAuthorities, %d ToolRegistries and %d PolicySnapshots, want 1, 1 and 2",
			len(set.HostAuthorities), len(set.ToolRegistries), len(set.PolicySnapshots))
	}
	return set, nil
}

// Fresh returns a copy of obj ready to be created as namespace/name: none
// of the metadata the apiserver sets (resource version, UID, creation time,
// managed fields, generation) and no annotations (the publisher annotations
// are the mutating webhook's to write).
func Fresh[T client.Object](obj T, namespace, name string) T {
	c := obj.DeepCopyObject().(T)
	c.SetName(name)
	c.SetNamespace(namespace)
	c.SetResourceVersion("")
	c.SetUID("")
	c.SetCreationTimestamp(metav1.Time{})
	c.SetManagedFields(nil)
	c.SetGeneration(0)
	c.SetAnnotations(nil)
	return c
}

// Stop ends a suite: it cancels the suite's context (when there is one) and
// stops its envtest environment (when it started), in that order so the
// managers let go of the apiserver before it stops.
func Stop(cancel context.CancelFunc, env *envtest.Environment) error {
	if cancel != nil {
		cancel()
	}
	if env == nil {
		return nil
	}
	return env.Stop()
}

// Environment returns an envtest environment that installs the repository's
// CRDs (config/crd/bases, which must exist) and, with webhooks, its admission
// webhook configurations (config/webhook).
func Environment(repoRoot string, webhooks bool) *envtest.Environment {
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(repoRoot, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	if webhooks {
		env.WebhookInstallOptions = envtest.WebhookInstallOptions{Paths: []string{filepath.Join(repoRoot, "config", "webhook")}}
	}
	return env
}
