package publisher_test

import (
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/publisher"
)

type spec struct {
	A string `json:"a"`
	B []int  `json:"b"`
}

func TestVerify(t *testing.T) {
	t.Parallel()
	pub, priv, _ := ed25519.GenerateKey(nil)
	otherPub, _, _ := ed25519.GenerateKey(nil)
	p := publisher.Publisher{Name: "alice", Groups: []string{"z", "admins"}}
	s := spec{A: "x", B: []int{1}}
	sign := func(name, uid string, sp spec) map[string]string {
		d, err := publisher.SpecDigest(sp)
		if err != nil {
			t.Fatal(err)
		}
		v := p.Encode()
		return map[string]string{
			publisher.Annotation:          v,
			publisher.SignatureAnnotation: publisher.EncodeSignature(ed25519.Sign(priv, publisher.Message("PolicySnapshot", "ns", name, uid, d, v))),
		}
	}
	cases := map[string]struct {
		key     ed25519.PublicKey
		ann     map[string]string
		spec    spec
		wantErr error
	}{
		"the attested object verifies": {key: pub, ann: sign("o", "uid-1", s), spec: s},
		"no annotations":               {key: pub, ann: nil, spec: s, wantErr: publisher.ErrMissing},
		"another domain's key":         {key: otherPub, ann: sign("o", "uid-1", s), spec: s, wantErr: publisher.ErrSignature},
		"another domain UID":           {key: pub, ann: sign("o", "uid-2", s), spec: s, wantErr: publisher.ErrSignature},
		"copied to another object":     {key: pub, ann: sign("other", "uid-1", s), spec: s, wantErr: publisher.ErrSignature},
		"another spec":                 {key: pub, ann: sign("o", "uid-1", s), spec: spec{A: "y", B: []int{1}}, wantErr: publisher.ErrSignature},
		"a forged publisher annotation": {key: pub, ann: func() map[string]string {
			a := sign("o", "uid-1", s)
			a[publisher.Annotation] = `{"name":"mallory"}`
			return a
		}(), spec: s, wantErr: publisher.ErrSignature},
		"a publisher with unknown field": {key: pub, ann: func() map[string]string {
			a := sign("o", "uid-1", s)
			a[publisher.Annotation] = `{"name":"a","x":1}`
			return a
		}(), spec: s, wantErr: publisher.ErrMalformed},
		"a signature that is not base64": {key: pub, ann: func() map[string]string {
			a := sign("o", "uid-1", s)
			a[publisher.SignatureAnnotation] = "!!"
			return a
		}(), spec: s, wantErr: publisher.ErrMalformed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := publisher.Verify(tc.key, "PolicySnapshot", "ns", "o", "uid-1", tc.spec, tc.ann)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Verify error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && (got.Name != "alice" || len(got.Groups) != 2 || got.Groups[0] != "admins") {
				t.Errorf("Verify = %+v, want alice with sorted groups", got)
			}
		})
	}
}
