package crd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

const ns = "payments" // the samples' namespace

var samplesDir = filepath.Join(repoRoot, "config", "samples")

// sampleObjects reads config/samples the way kustomize does for this
// kustomization: every resource file it lists, every document in order.
func sampleObjects() []*unstructured.Unstructured {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(samplesDir, "kustomization.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var k struct {
		Resources []string `json:"resources"`
	}
	Expect(yaml.Unmarshal(data, &k)).To(Succeed())
	Expect(k.Resources).NotTo(BeEmpty())
	var objs []*unstructured.Unstructured
	for _, f := range k.Resources {
		b, err := os.ReadFile(filepath.Join(samplesDir, f))
		Expect(err).NotTo(HaveOccurred())
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred())
			u := &unstructured.Unstructured{}
			Expect(yaml.Unmarshal(doc, &u.Object)).To(Succeed())
			if len(u.Object) > 0 {
				objs = append(objs, u)
			}
		}
	}
	return objs
}

// samples returns the typed sample objects as the CLI reads them.
func samples() *manifest.Set {
	GinkgoHelper()
	set, err := kubefixture.Samples(repoRoot)
	Expect(err).NotTo(HaveOccurred())
	return set
}

// fresh returns a copy of obj ready to be created under name.
func fresh[T client.Object](obj T, name string) T { return kubefixture.Fresh(obj, ns, name) }

// expectInvalid asserts the apiserver rejected the request as Invalid
// (HTTP 422) and that the rejection names want (a field path or a rule
// message).
func expectInvalid(err error, want string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred(), "the apiserver accepted an object that must be rejected")
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid (422) rejection, got: %v", err)
	Expect(err.Error()).To(ContainSubstring(want))
}

// expectCause asserts the apiserver rejected the request as Invalid with a
// cause of reason at field: what kubectl and clients show a user.
func expectCause(err error, reason metav1.CauseType, field string) {
	GinkgoHelper()
	var se apierrors.APIStatus
	Expect(errors.As(err, &se)).To(BeTrue(), "want an API status error, got: %v", err)
	Expect(se.Status().Details).NotTo(BeNil())
	var got []string
	for _, c := range se.Status().Details.Causes {
		got = append(got, string(c.Type)+" at "+c.Field)
	}
	Expect(got).To(ContainElement(string(reason) + " at " + field))
}

// sameJSON asserts a and b have equal JSON meaning.
func sameJSON(a, b any) {
	GinkgoHelper()
	var ja, jb any
	for _, p := range []struct {
		in  any
		out *any
	}{{a, &ja}, {b, &jb}} {
		raw, err := json.Marshal(p.in)
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(raw, p.out)).To(Succeed())
	}
	Expect(ja).To(Equal(jb))
}

var _ = Describe("the toolgate CRDs", Ordered, ContinueOnFailure, func() {
	var set *manifest.Set

	BeforeAll(func() { set = samples() })

	It("apply config/samples as they are and store them unchanged", func() {
		for _, u := range sampleObjects() {
			Expect(k8s.Create(ctx, u)).To(Succeed(), "create %s %s", u.GetKind(), u.GetName())
		}
		var tr v1alpha1.ToolRegistry
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "primary-registry-1"}, &tr)).To(Succeed())
		sameJSON(tr.Spec, set.ToolRegistries[0].Spec) // Schema trees are kept, not pruned
		Expect(tr.Spec.Definitions).To(HaveLen(4))

		var ha v1alpha1.HostAuthority
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "payments-host"}, &ha)).To(Succeed())
		sameJSON(ha.Spec, set.HostAuthorities[0].Spec)

		var ps v1alpha1.PolicySnapshotList
		Expect(k8s.List(ctx, &ps, client.InNamespace(ns))).To(Succeed())
		Expect(ps.Items).To(HaveLen(2))
		for i, p := range ps.Items { // listed by name: payments-policy-1, payments-policy-2
			Expect(p.Name).To(Equal(set.PolicySnapshots[i].Name))
			sameJSON(p.Spec, set.PolicySnapshots[i].Spec) // condition trees are kept, not pruned
		}
	})

	It("accept kubectl apply -k config/samples again, unchanged", func() {
		if kubeconfig == "" {
			Skip("kubectl is not on PATH")
		}
		out, err := exec.Command("kubectl", "--kubeconfig", kubeconfig, "apply", "-k", samplesDir).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring("toolregistry.stk.toolgate.dev/primary-registry-1"))
		Expect(string(out)).To(ContainSubstring("policysnapshot.stk.toolgate.dev/payments-policy-2"))
	})

	It("explain the grammar of a field through kubectl explain", func() {
		if kubeconfig == "" {
			Skip("kubectl is not on PATH")
		}
		out, err := exec.Command("kubectl", "--kubeconfig", kubeconfig, "explain", "toolregistries.spec.snapshotGeneration").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring("canonical"))
		Expect(string(out)).To(ContainSubstring("18446744073709551615"))
	})

	Describe("ToolRegistry", func() {
		// registry returns the sample as generation gen under its bound name.
		registry := func(gen v1alpha1.Generation, mod func(*v1alpha1.ToolRegistrySpec)) *v1alpha1.ToolRegistry {
			tr := fresh(&set.ToolRegistries[0], "primary-registry-"+string(gen))
			tr.Spec.SnapshotGeneration = gen
			if mod != nil {
				mod(&tr.Spec)
			}
			return tr
		}

		It("accept the next generation and the largest generation (positive controls)", func() {
			Expect(k8s.Create(ctx, registry("2", nil))).To(Succeed())
			Expect(k8s.Create(ctx, registry("18446744073709551615", nil))).To(Succeed())
		})

		It("reject a snapshot identity that is not a lower-token", func() {
			tr := registry("3", func(s *v1alpha1.ToolRegistrySpec) { s.SnapshotID = "NOT A TOKEN!!" })
			tr.Name = "not-a-token-3" // a valid object name, so only the spec can be at fault
			expectInvalid(k8s.Create(ctx, tr), "spec.snapshotID")
		})

		DescribeTable("reject a non-canonical snapshot generation",
			func(gen v1alpha1.Generation, want string) {
				expectInvalid(k8s.Create(ctx, registry(gen, nil)), want)
			},
			Entry("a sign", v1alpha1.Generation("-7"), "spec.snapshotGeneration"),
			Entry("a leading zero", v1alpha1.Generation("07"), "spec.snapshotGeneration"),
			Entry("zero", v1alpha1.Generation("0"), "spec.snapshotGeneration"),
			Entry("2^64 (20 digits, above 2^64-1)", v1alpha1.Generation("18446744073709551616"), "at most 18446744073709551615"),
		)

		It("reject a tool identifier without a dot", func() {
			tr := registry("3", func(s *v1alpha1.ToolRegistrySpec) { s.Definitions[0].ToolID = "paymentssubmit" })
			expectInvalid(k8s.Create(ctx, tr), "spec.definitions[0].toolID")
		})

		It("reject a lifecycle outside the vocabulary", func() {
			tr := registry("3", func(s *v1alpha1.ToolRegistrySpec) { s.Definitions[0].Lifecycle = "latest" })
			expectInvalid(k8s.Create(ctx, tr), "spec.definitions[0].lifecycle")
		})

		It("reject a definition identity listed twice", func() {
			tr := registry("3", func(s *v1alpha1.ToolRegistrySpec) { s.Definitions[1].ID = s.Definitions[0].ID })
			expectInvalid(k8s.Create(ctx, tr), "Duplicate value")
		})

		It("reject a second object with another name claiming the same snapshot identity and generation", func() {
			tr := fresh(&set.ToolRegistries[0], "primary-registry-copy")
			err := k8s.Create(ctx, tr)
			expectInvalid(err, "metadata.name must be <spec.snapshotID>-<spec.snapshotGeneration>")
			expectCause(err, metav1.CauseTypeFieldValueInvalid, "spec.snapshotID")
			// Under the bound name the pair is taken: name uniqueness.
			dup := fresh(&set.ToolRegistries[0], "primary-registry-1")
			Expect(apierrors.IsAlreadyExists(k8s.Create(ctx, dup))).To(BeTrue())
		})

		It("reject spec updates but accept metadata and status updates", func() {
			var tr v1alpha1.ToolRegistry
			key := client.ObjectKey{Namespace: ns, Name: "primary-registry-1"}
			Expect(k8s.Get(ctx, key, &tr)).To(Succeed())
			edited := tr.DeepCopy()
			edited.Spec.Definitions[0].Title = "Submit a payment (edited)"
			expectInvalid(k8s.Update(ctx, edited), "spec is immutable")

			tr.Labels = map[string]string{"team": "payments"}
			Expect(k8s.Update(ctx, &tr)).To(Succeed())

			meta.SetStatusCondition(&tr.Status.Conditions, metav1.Condition{
				Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonAccepted,
				Message: "published", ObservedGeneration: tr.Generation,
			})
			tr.Status.ObservedGeneration = tr.Generation
			tr.Status.ContentDigest = "sha256:" + strings.Repeat("ab", 32)
			tr.Status.PublishedBy = "system:serviceaccount:argocd:argocd-application-controller"
			Expect(k8s.Status().Update(ctx, &tr)).To(Succeed())
			Expect(k8s.Get(ctx, key, &tr)).To(Succeed())
			Expect(meta.IsStatusConditionTrue(tr.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		})
	})

	Describe("PolicySnapshot", func() {
		policy := func(name string, mod func(*v1alpha1.PolicySnapshotSpec)) *v1alpha1.PolicySnapshot {
			ps := fresh(&set.PolicySnapshots[0], name)
			ps.Spec.SnapshotGeneration = "3"
			if mod != nil {
				mod(&ps.Spec)
			}
			return ps
		}

		It("reject a second object with another name claiming the same identity and generation", func() {
			ps := fresh(&set.PolicySnapshots[1], "payments-policy-two")
			err := k8s.Create(ctx, ps)
			expectInvalid(err, "metadata.name must be <spec.snapshotID>-<spec.snapshotGeneration>")
			expectCause(err, metav1.CauseTypeFieldValueInvalid, "spec.snapshotID")
		})

		It("reject a deny rule with a scope", func() {
			ps := policy("payments-policy-3", func(s *v1alpha1.PolicySnapshotSpec) {
				for i, r := range s.Policies[0].Rules {
					if r.Effect == v1alpha1.EffectDeny {
						s.Policies[0].Rules[i].Scope = &v1alpha1.PolicyScope{}
					}
				}
			})
			expectInvalid(k8s.Create(ctx, ps), "scope is required for allow and requireConfirmation and forbidden for deny")
		})

		It("reject evaluation-age seconds above 3,600", func() {
			ps := policy("payments-policy-3", func(s *v1alpha1.PolicySnapshotSpec) {
				s.Policies[0].Rules[0].Obligations[0].Seconds = "3601"
			})
			expectInvalid(k8s.Create(ctx, ps), "spec.policies[0].rules[0].obligations[0].seconds")
		})

		It("reject a reason outside the vocabulary", func() {
			ps := policy("payments-policy-3", func(s *v1alpha1.PolicySnapshotSpec) { s.Policies[0].Rules[0].Reason = "because" })
			expectInvalid(k8s.Create(ctx, ps), "spec.policies[0].rules[0].reason")
		})

		It("reject spec updates", func() {
			var ps v1alpha1.PolicySnapshot
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "payments-policy-1"}, &ps)).To(Succeed())
			ps.Spec.Policies[0].Lifecycle = v1alpha1.PolicyLifecycleRetired
			expectInvalid(k8s.Update(ctx, &ps), "spec is immutable")
		})
	})

	Describe("HostAuthority", func() {
		It("reject a name that differs from the authority identity", func() {
			ha := fresh(&set.HostAuthorities[0], "payments-host-copy")
			err := k8s.Create(ctx, ha)
			expectInvalid(err, "metadata.name must equal spec.authorityID")
			expectCause(err, metav1.CauseTypeFieldValueInvalid, "spec.authorityID")
		})

		It("reject a lifetime above 3,600 seconds", func() {
			ha := fresh(&set.HostAuthorities[0], "treasury-host")
			ha.Spec.AuthorityID = "treasury-host"
			ha.Spec.MaxAuthorizationLifetimeSeconds = "7200"
			expectInvalid(k8s.Create(ctx, ha), "spec.maxAuthorizationLifetimeSeconds")
		})
	})

	Describe("Consumption", func() {
		const domain = "0f6d3c52-7a1e-4d2b-9c3f-5e8a1b2c3d4e" // a HostAuthority UID
		digest := strings.Repeat("c0", 32)
		consumption := func(name string) *v1alpha1.Consumption {
			return &v1alpha1.Consumption{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec: v1alpha1.ConsumptionSpec{
					Domain: domain, BindingDigest: v1alpha1.SHA256Hex(digest), AuthorizationID: "authz-0001",
					ExpiresAt: metav1.NewTime(time.Unix(1798761600, 0)),
				},
			}
		}

		It("accept exactly one Consumption per domain and binding", func() {
			Expect(k8s.Create(ctx, consumption(domain+"."+digest))).To(Succeed())
			Expect(apierrors.IsAlreadyExists(k8s.Create(ctx, consumption(domain+"."+digest)))).To(BeTrue(),
				"a second Consumption of the same binding must fail: create is the single-use step")
		})

		It("reject a name not derived from the domain and the binding digest", func() {
			expectInvalid(k8s.Create(ctx, consumption("consumed-"+digest[:16])), "metadata.name must be <spec.domain>.<spec.bindingDigest>")
		})

		It("reject spec updates", func() {
			var c v1alpha1.Consumption
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: domain + "." + digest}, &c)).To(Succeed())
			c.Spec.AuthorizationID = "authz-0002"
			expectInvalid(k8s.Update(ctx, &c), "spec is immutable")
		})
	})
})
