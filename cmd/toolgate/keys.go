package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/controllers"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
)

// The `toolgate keys` verbs (docs/crds.md, "Signing keys"): rotate, list and revoke a domain's
// signing keys, standalone (--state: the key-set file) or in a cluster
// (through the kubeconfig: the rotation annotation on the HostAuthority and
// the key-set Secret in toolgate's namespace). Nothing prints a seed.

// keysOptions are the flags every keys verb shares, and its one argument.
type keysOptions struct {
	state, manifests     string // standalone
	kubeconfig, keyNS    string // cluster
	namespace, authority string // NAMESPACE/NAME
	verb                 string // "keys rotate" or "keys list"
	wantManifests        bool   // keys rotate
}

// keysFlags declares the flags of keys rotate (wantManifests) or keys list.
func keysFlags(fs *pflag.FlagSet, verb string, wantManifests bool) *keysOptions {
	o := keysOptions{verb: verb, wantManifests: wantManifests}
	fs.StringVar(&o.state, "state", "", "standalone: the state directory (`DIR`) serve uses (its keys/ holds the key sets)")
	if wantManifests {
		fs.StringVar(&o.manifests, "manifests", "", "standalone: the manifests (`PATH`) serve uses (for the domain's maximum Authorization lifetime)")
	}
	kubeconfigFlag(fs, &o.kubeconfig)
	keyNamespaceFlag(fs, &o.keyNS, controllers.DefaultKeyNamespace)
	return &o
}

// kubeconfigFlag declares --kubeconfig, the cluster of a keys verb.
func kubeconfigFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "kubeconfig", "", "cluster: the kubeconfig `FILE` (default: KUBECONFIG, then ~/.kube/config)")
}

// keyNamespaceFlag declares --key-namespace, where the domains'
// signing-key Secrets live (the keys verbs and the manager).
func keyNamespaceFlag(fs *pflag.FlagSet, p *string, def string) {
	fs.StringVar(p, "key-namespace", def, "toolgate's namespace (`NS`), where the domains' signing-key Secrets live (only toolgate reads it)")
}

func keysRotateFlags(fs *pflag.FlagSet) *keysOptions { return keysFlags(fs, "keys rotate", true) }
func keysListFlags(fs *pflag.FlagSet) *keysOptions   { return keysFlags(fs, "keys list", false) }

// parseKeys checks the arguments of a keys verb.
func parseKeys(po *keysOptions, rest []string) (keysOptions, error) {
	o, verb, wantManifests := *po, po.verb, po.wantManifests
	if len(rest) != 1 {
		return o, usageError{verb + " takes one NAMESPACE/NAME of a HostAuthority"}
	}
	ns, name, ok := strings.Cut(rest[0], "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return o, usageError{"name the HostAuthority as NAMESPACE/NAME"}
	}
	o.namespace, o.authority = ns, name
	if wantManifests && (o.state == "") != (o.manifests == "") {
		return o, usageError{"standalone rotation needs both --state and --manifests"}
	}
	return o, nil
}

func (o keysOptions) keyDir() string { return filepath.Join(o.state, "keys") }

// keysRotate makes a fresh key the domain's active key. Standalone it
// rewrites the key-set file (serve uses the new key from its next start
// or SIGHUP);
// in a cluster it sets the rotation annotation, on which the leader
// rotates once, and every replica serves the new set.
func keysRotate(po *keysOptions, args []string, out io.Writer) error {
	o, err := parseKeys(po, args)
	if err != nil {
		return err
	}
	now := time.Now()
	if o.state != "" {
		ks, err := standalone.Rotate(o.keyDir(), o.namespace, o.authority, now, o.manifests)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "rotated %s/%s: active key %s; serve signs with it from its next start or SIGHUP\n", o.namespace, o.authority, ks.ActiveID())
		return nil
	}
	c, err := clusterClient(o.kubeconfig)
	if err != nil {
		return err
	}
	ctx := context.Background()
	var ha v1alpha1.HostAuthority
	if err := c.Get(ctx, types.NamespacedName{Namespace: o.namespace, Name: o.authority}, &ha); err != nil {
		return fmt.Errorf("reading the HostAuthority: %w", err)
	}
	patch := client.MergeFrom(ha.DeepCopy())
	if ha.Annotations == nil {
		ha.Annotations = map[string]string{}
	}
	ha.Annotations[controllers.RotateAnnotation] = now.UTC().Format(time.RFC3339Nano)
	if err := c.Patch(ctx, &ha, patch); err != nil {
		return fmt.Errorf("annotating the HostAuthority: %w", err)
	}
	fmt.Fprintf(out, "requested a rotation of %s/%s (%s=%s); `toolgate keys list` shows the new key once the leader has acted\n",
		o.namespace, o.authority, controllers.RotateAnnotation, ha.Annotations[controllers.RotateAnnotation])
	return nil
}

// keysList prints the domain's keys: identity, state, retire time.
func keysList(po *keysOptions, args []string, out io.Writer) error {
	o, err := parseKeys(po, args)
	if err != nil {
		return err
	}
	var ks *serving.KeyState
	if o.state != "" {
		if ks, err = standalone.ReadKeys(o.keyDir(), o.namespace, o.authority); err != nil {
			return err
		}
	} else if ks, err = clusterKeys(o); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY ID\tSTATE\tRETIRES AT")
	for _, k := range ks.Keys() {
		state, retire := "active", "-"
		if !k.Active {
			state, retire = "verify-only", k.RetireAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.ID, state, retire)
	}
	return tw.Flush()
}

// keysRevokeOptions are keys revoke's flags.
type keysRevokeOptions struct{ state, kubeconfig, reason string }

func keysRevokeFlags(fs *pflag.FlagSet) *keysRevokeOptions {
	var o keysRevokeOptions
	// Required, but checked with the Revocation's own rules (spec.reason)
	// after the arguments, as a Revocation object is.
	fs.StringVar(&o.reason, "reason", "", "why, for reviewers (`TEXT`; required, never interpreted)")
	fs.StringVar(&o.state, "state", "", "standalone: the state directory (`DIR`) serve uses (the revocation goes to its ledger)")
	kubeconfigFlag(fs, &o.kubeconfig)
	return &o
}

// keysRevoke revokes a key identity for good: everything it signed is
// refused at once, and a revoked active key never signs again. In a
// cluster it creates a Revocation object (the leader then rotates a
// revoked active key out); standalone it appends the revocation to the
// state directory's ledger, which serve reads at start and on SIGHUP.
func keysRevoke(o *keysRevokeOptions, rest []string, out io.Writer) error {
	if len(rest) != 2 {
		return usageError{"keys revoke takes NAMESPACE/NAME of a HostAuthority and a KEY-ID"}
	}
	ns, name, ok := strings.Cut(rest[0], "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return usageError{"name the HostAuthority as NAMESPACE/NAME"}
	}
	spec := v1alpha1.RevocationSpec{HostAuthorityRef: v1alpha1.HostAuthorityReference{Name: v1alpha1.LowerToken(name)},
		SigningKey: &v1alpha1.SigningKeyRef{KeyID: rest[1]}, Reason: o.reason}
	rev, err := serving.RevocationOf(spec)
	if err != nil {
		return usageError{"keys revoke: " + err.Error()}
	}
	if o.state != "" {
		if err := standalone.AppendRevocation(filepath.Join(o.state, standalone.LedgerFile), ns, name, rev); err != nil {
			return err
		}
		fmt.Fprintf(out, "revoked key %s of %s/%s in %s; serve refuses it from its next start or SIGHUP\n", rev.ID, ns, name, standalone.LedgerFile)
		return nil
	}
	c, err := clusterClient(o.kubeconfig)
	if err != nil {
		return err
	}
	obj := &v1alpha1.Revocation{Spec: spec}
	obj.Namespace, obj.Name = ns, "signing-key-"+rev.ID
	if err := c.Create(context.Background(), obj); err != nil {
		return fmt.Errorf("creating the Revocation: %w", err)
	}
	fmt.Fprintf(out, "created Revocation %s/%s: every replica refuses key %s once it serves it\n", ns, obj.Name, rev.ID)
	return nil
}

// clusterKeys reads the key set of the HostAuthority o names from its
// Secret in the key namespace (the caller needs read access to Secrets
// there: a toolgate administrator).
func clusterKeys(o keysOptions) (*serving.KeyState, error) {
	c, err := clusterClient(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var ha v1alpha1.HostAuthority
	if err := c.Get(ctx, types.NamespacedName{Namespace: o.namespace, Name: o.authority}, &ha); err != nil {
		return nil, fmt.Errorf("reading the HostAuthority: %w", err)
	}
	var s corev1.Secret
	if err := c.Get(ctx, types.NamespacedName{Namespace: o.keyNS, Name: controllers.SigningKeySecretName(ha.UID)}, &s); err != nil {
		return nil, fmt.Errorf("reading the domain's key-set Secret in %s: %w", o.keyNS, err)
	}
	return serving.ParseKeyState(s.Data[controllers.SigningKeyField])
}

// clusterClient is a client from the kubeconfig (path, or the usual
// places when "").
func clusterClient(path string) (client.Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster to talk to (give --state for standalone): %w", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}
