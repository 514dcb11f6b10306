package agentsafe

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzCanonicalDigest: never panics; every failure is an *Error with a
// known Code; every success is valid UTF-8 JSON that parses again and
// canonicalizes to the same bytes and digest (idempotence).
func FuzzCanonicalDigest(f *testing.F) {
	for _, s := range []string{
		``, ` `, `null`, `true`, `0`, `-0`, `1e21`, `0.0000001`, `9007199254740993`, `1e400`,
		`"x"`, `"\ud800"`, `"\udc00\ud800"`, `"\ud83d\ude00"`, `"\u2028<>&"`, `"\u0000\u001f\b"`,
		`{"b":1,"a":2,"10":0,"2":0}`, `{"\uffff":1,"\ud83d\ude00":2}`, `{"a":1,"a":2}`,
		`{"__proto__":1}`, `[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]`, `{} {}`, `[1,]`, "\xff",
		benchBinding,
	} {
		f.Add([]byte(s))
	}
	g := newDocGen(7)
	for range 30 {
		f.Add([]byte(g.document()))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		canon, digest, err := CanonicalDigest(doc)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if _, known := e.Code.Sentence(); !known {
				t.Fatalf("error %v (%T) is not an *Error with a known Code", err, err)
			}
			if e.Offset > int64(len(doc)) {
				t.Fatalf("offset %d past the input (%d bytes)", e.Offset, len(doc))
			}
			return
		}
		if len(canon) > MaxCanonicalBytes || !utf8.Valid(canon) || !json.Valid(canon) {
			t.Fatalf("canonical output is not bounded, valid UTF-8 JSON: %q", canon)
		}
		if digest != Digest(canon) {
			t.Fatalf("digest %s does not hash the canonical bytes", digest)
		}
		again, digest2, err := CanonicalDigest(canon)
		if err != nil {
			t.Fatalf("canonical output does not parse again: %v\n%q", err, canon)
		}
		if !bytes.Equal(again, canon) || digest2 != digest {
			t.Fatalf("not idempotent:\nfirst  %q\nsecond %q", canon, again)
		}
	})
}

// benchBinding is a realistic ~1 KB intent binding.
const benchBinding = `{
  "protocol_version": "agent-safe.intent/1",
  "tenant": "00000000-0000-4000-8000-000000000002",
  "intent_id": "11111111-1111-4111-8111-111111111111",
  "idempotency_key": "refund-synthetic-1001-v1",
  "captured_at": "2026-09-16T10:00:00.000Z",
  "expiry": "2026-09-16T10:01:00.000Z",
  "actor": {"id": "synthetic-refund-agent", "type": "AI_AGENT", "runtime": "mcp", "trust_level": "standard"},
  "parameters": {
    "orderId": "synthetic-1",
    "amountMinor": 35000,
    "currency": "USD",
    "reason": "Customer reported a damaged item — refund approved by policy «R-12»",
    "lines": [
      {"sku": "SKU-0001", "qty": 1, "unitMinor": 20000, "tax": 0.2},
      {"sku": "SKU-0002", "qty": 3, "unitMinor": 5000, "tax": 0.075}
    ],
    "notify": true,
    "metadata": {"2": "second", "10": "tenth", "channel": "chat", "ticket": 4821, "note": null}
  },
  "target": {"system": "shopify", "operation": "refund", "endpoint": "POST https://api.example/refunds"},
  "context": {"source": "conformance", "session": "b7f3c2d1-9a8e-4f6b-8c2d-1e0f9a8b7c6d", "hops": ["gateway", "policy", "executor"]}
}`

func BenchmarkCanonicalDigest(b *testing.B) {
	doc := []byte(benchBinding)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, _, err := CanonicalDigest(doc); err != nil {
			b.Fatal(err)
		}
	}
}
