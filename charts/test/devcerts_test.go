package charttest

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// patchLine is one `kubectl patch KIND NAME --type=json -p='PATCH'` line that
// hack/dev-certs.sh prints.
var patchLine = regexp.MustCompile(`(?m)^kubectl patch (\S+) (\S+) --type=json -p='([^']*)'$`)

// TestDevCertsTrustsEveryWebhook runs hack/dev-certs.sh, applies the patches
// it prints to config/dev's webhook configurations, and expects every webhook
// of both to carry the CA the script made: a webhook left without a caBundle
// fails every write of its kind with a TLS error.
func TestDevCertsTrustsEveryWebhook(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("hack/dev-certs.sh needs openssl")
	}
	dir := t.TempDir()
	out, err := exec.Command("bash", "../../hack/dev-certs.sh", dir).Output()
	if err != nil {
		t.Fatalf("hack/dev-certs.sh: %v", err)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	want := base64.StdEncoding.EncodeToString(ca)
	kinds := map[string]string{
		"mutatingwebhookconfiguration":   "MutatingWebhookConfiguration",
		"validatingwebhookconfiguration": "ValidatingWebhookConfiguration",
	}
	objs := renderKustomize(t, "dev")
	patched := map[string]bool{}
	for _, m := range patchLine.FindAllStringSubmatch(string(out), -1) {
		kind, ok := kinds[m[1]]
		if !ok {
			t.Errorf("patches %s, not a webhook configuration", m[1])
			continue
		}
		key := kind + "//" + m[2]
		o := objs[key]
		if o == nil {
			t.Errorf("patches %s, which config/dev does not render", key)
			continue
		}
		p, err := jsonpatch.DecodePatch([]byte(m[3]))
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		doc, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if doc, err = p.Apply(doc); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		var got object
		if err := json.Unmarshal(doc, &got); err != nil {
			t.Fatal(err)
		}
		objs[key] = got
		patched[key] = true
	}
	for key, o := range objs {
		hooks, ok := o["webhooks"].([]any)
		if !ok {
			continue
		}
		if !patched[key] {
			t.Errorf("%s: not patched", key)
		}
		for i, h := range hooks {
			cc, _ := h.(object)["clientConfig"].(object)
			if cc["caBundle"] != want {
				t.Errorf("%s: webhooks[%d] (%v) has no caBundle of the dev CA", key, i, h.(object)["name"])
			}
		}
	}
}
