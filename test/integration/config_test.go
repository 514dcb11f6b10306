package integration_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// build runs kubectl kustomize on a config overlay and returns its
// documents by kind.
func build(overlay string) map[string][][]byte {
	GinkgoHelper()
	out, err := exec.Command("kubectl", "kustomize", filepath.Join(repoRoot, "config", overlay)).Output()
	Expect(err).NotTo(HaveOccurred(), "kubectl kustomize config/%s", overlay)
	docs := map[string][][]byte{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(out)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		Expect(err).NotTo(HaveOccurred())
		var meta struct{ Kind string }
		Expect(yaml.Unmarshal(doc, &meta)).To(Succeed())
		docs[meta.Kind] = append(docs[meta.Kind], doc)
	}
}

var _ = Describe("the config overlays", func() {
	BeforeEach(func() {
		if _, err := exec.LookPath("kubectl"); err != nil {
			Skip("kubectl is not on PATH")
		}
	})

	DescribeTable("deploy the manager and fail-closed webhooks that skip toolgate's namespace",
		func(overlay string, certManager bool) {
			docs := build(overlay)
			Expect(docs["Deployment"]).To(HaveLen(1))
			var d appsv1.Deployment
			Expect(yaml.Unmarshal(docs["Deployment"][0], &d)).To(Succeed())
			Expect(*d.Spec.Replicas).To(Equal(int32(2)))
			pod := d.Spec.Template.Spec
			Expect(*pod.SecurityContext.RunAsNonRoot).To(BeTrue())
			c := pod.Containers[0]
			Expect(*c.SecurityContext.ReadOnlyRootFilesystem).To(BeTrue())
			Expect(c.Resources.Requests).NotTo(BeEmpty())
			Expect(c.Args).To(ContainElements("manager", "--leader-elect"))
			Expect(docs["PodDisruptionBudget"]).To(HaveLen(1))
			Expect(docs["Certificate"]).To(HaveLen(map[bool]int{true: 1, false: 0}[certManager]))

			// Secrets (the domains' key sets) only in toolgate's own
			// namespace: no ClusterRole grants them, a Role there does.
			type role struct {
				Metadata struct{ Name, Namespace string }
				Rules    []rbacv1.PolicyRule
			}
			secretsIn := func(kind string) []string {
				var where []string
				for _, doc := range docs[kind] {
					var r role
					Expect(yaml.Unmarshal(doc, &r)).To(Succeed())
					for _, rule := range r.Rules {
						if slices.Contains(rule.Resources, "secrets") {
							where = append(where, r.Metadata.Namespace+"/"+r.Metadata.Name)
						}
					}
				}
				return where
			}
			Expect(secretsIn("ClusterRole")).To(BeEmpty(), "a ClusterRole lets the manager read every tenant's Secrets")
			Expect(secretsIn("Role")).To(Equal([]string{"toolgate-system/toolgate-manager-role"}))

			var ns struct {
				Metadata struct {
					Name   string
					Labels map[string]string
				}
			}
			Expect(yaml.Unmarshal(docs["Namespace"][0], &ns)).To(Succeed())
			Expect(ns.Metadata.Labels).To(HaveKeyWithValue("stk.toolgate.dev/webhooks", "skip"))

			var count int
			check := func(name string, annotations map[string]string, hooks []hookView) {
				Expect(hooks).To(HaveLen(4), name)
				if certManager {
					Expect(annotations).To(HaveKeyWithValue("cert-manager.io/inject-ca-from", "toolgate-system/toolgate-serving-cert"))
				}
				for _, h := range hooks {
					count++
					Expect(*h.FailurePolicy).To(Equal(admissionregistrationv1.Fail))
					Expect(h.ClientConfig.Service.Namespace).To(Equal(ns.Metadata.Name))
					Expect(h.NamespaceSelector.MatchExpressions).To(ContainElement(HaveField("Key", "stk.toolgate.dev/webhooks")))
				}
			}
			var m admissionregistrationv1.MutatingWebhookConfiguration
			Expect(yaml.Unmarshal(docs["MutatingWebhookConfiguration"][0], &m)).To(Succeed())
			var mh []hookView
			for _, h := range m.Webhooks {
				mh = append(mh, hookView{h.FailurePolicy, h.ClientConfig, h.NamespaceSelector})
			}
			check(m.Name, m.Annotations, mh)
			var v admissionregistrationv1.ValidatingWebhookConfiguration
			Expect(yaml.Unmarshal(docs["ValidatingWebhookConfiguration"][0], &v)).To(Succeed())
			var vh []hookView
			for _, h := range v.Webhooks {
				vh = append(vh, hookView{h.FailurePolicy, h.ClientConfig, h.NamespaceSelector})
			}
			check(v.Name, v.Annotations, vh)
			Expect(count).To(Equal(8))
		},
		Entry("config/default (cert-manager)", "default", true),
		Entry("config/dev (self-signed, hack/dev-certs.sh)", "dev", false),
	)
})

type hookView struct {
	FailurePolicy     *admissionregistrationv1.FailurePolicyType
	ClientConfig      admissionregistrationv1.WebhookClientConfig
	NamespaceSelector *metav1.LabelSelector
}
