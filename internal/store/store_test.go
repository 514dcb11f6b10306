package store_test

import (
	"crypto/ed25519"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
)

// samples loads config/samples: one HostAuthority, one ToolRegistry and two
// PolicySnapshot generations in namespace payments.
func samples(t *testing.T) *manifest.Set {
	t.Helper()
	set, err := manifest.LoadPaths(filepath.Join("..", "..", "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// key is a one-key set from a seed whose first octet is seed.
func key(seed byte) *serving.KeyState {
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	k, err := serving.LegacyKeyState(s)
	if err != nil {
		panic(err) // a 32-octet seed always makes a key
	}
	return k
}

func domainSpec(t *testing.T, ha *v1alpha1.HostAuthority, uid string, k *serving.KeyState) store.DomainSpec {
	t.Helper()
	cfg, err := manifest.HostConfig(ha)
	if err != nil {
		t.Fatal(err)
	}
	return store.DomainSpec{Namespace: ha.Namespace, Name: ha.Name, UID: uid, Keys: k, Config: cfg}
}

// fill serves the samples in a domain with UID uid and returns the store.
func fill(t *testing.T, s *store.Store, set *manifest.Set, uid string) {
	t.Helper()
	ha := &set.HostAuthorities[0]
	if _, _, err := s.EnsureDomain(domainSpec(t, ha, uid, key(1))); err != nil {
		t.Fatal(err)
	}
	for _, o := range set.ToolRegistries {
		d, err := manifest.RegistryDraft(o.Spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.PutRegistry(o.Namespace, o.Name, d, o.CreationTimestamp.Time); err != nil {
			t.Fatal(err)
		}
	}
	admin, _ := manifest.AdministratorOf(ha)
	for i := range set.PolicySnapshots {
		o := &set.PolicySnapshots[i]
		if _, err := s.PutPolicy(uid, admin, o); err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
	}
}

func objects(s *store.Store) []string {
	var out []string
	for _, e := range s.Served() {
		out = append(out, string(e.Kind)+"/"+e.Object+"@"+e.Domain)
	}
	return out
}

func TestStoreServesExactlyWhatWasAccepted(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-1")
	want := []string{
		"PolicySnapshot/payments-policy-1@uid-1",
		"PolicySnapshot/payments-policy-2@uid-1",
		"ToolRegistry/primary-registry-1@uid-1",
	}
	if diff := cmp.Diff(want, objects(s)); diff != "" {
		t.Fatalf("served (-want +got):\n%s", diff)
	}
	if _, ok := s.Policy(store.Key{"payments", "payments-host", "payments-policy", "2"}); !ok {
		t.Error("generation 2 is not served under its exact key")
	}
	if _, ok := s.Policy(store.Key{"payments", "payments-host", "payments-policy", "3"}); ok {
		t.Error("an unpublished generation is served")
	}

	s.RemovePolicy("payments", "payments-policy-2")
	s.RemoveRegistry("payments", "primary-registry-1")
	if diff := cmp.Diff([]string{"PolicySnapshot/payments-policy-1@uid-1"}, objects(s)); diff != "" {
		t.Errorf("after delete (-want +got):\n%s", diff)
	}
}

func TestANewDomainLeavesNothingOfTheOldOne(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		uid  string
		seed byte
	}{
		"recreated HostAuthority (new UID)":  {uid: "uid-2", seed: 1},
		"a new key set (its Secret deleted)": {uid: "uid-1", seed: 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			set := samples(t)
			s := store.New()
			fill(t, s, set, "uid-1")
			old, _ := s.Domain("payments", "payments-host")
			info, replaced, err := s.EnsureDomain(domainSpec(t, &set.HostAuthorities[0], tc.uid, key(tc.seed)))
			if err != nil || !replaced {
				t.Fatalf("EnsureDomain = replaced %v, %v; want a new domain", replaced, err)
			}
			if info.KeyID == old.KeyID && info.UID == old.UID {
				t.Fatal("the new domain has the old identity")
			}
			// The namespace's accepted registry is published into the new
			// domain; no policy of the old domain is.
			if diff := cmp.Diff([]string{"ToolRegistry/primary-registry-1@" + tc.uid}, objects(s)); diff != "" {
				t.Errorf("served (-want +got):\n%s", diff)
			}
			admin, _ := manifest.AdministratorOf(&set.HostAuthorities[0])
			if _, err := s.PutPolicy("uid-1-stale", admin, &set.PolicySnapshots[0]); !errors.Is(err, store.ErrDomainChanged) {
				t.Errorf("publishing into a replaced domain: %v, want ErrDomainChanged", err)
			}
		})
	}
}

func TestEnsureDomainIsIdempotent(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-1")
	if _, replaced, err := s.EnsureDomain(domainSpec(t, &set.HostAuthorities[0], "uid-1", key(1))); err != nil || replaced {
		t.Fatalf("same UID and key: replaced %v, %v; want unchanged", replaced, err)
	}
	if got := len(s.Served()); got != 3 {
		t.Errorf("served %d entries, want 3", got)
	}
}

func TestPolicyWaitsForItsDependencies(t *testing.T) {
	t.Parallel()
	set := samples(t)
	ha := &set.HostAuthorities[0]
	admin, _ := manifest.AdministratorOf(ha)
	gen1, gen2 := &set.PolicySnapshots[0], &set.PolicySnapshots[1]

	s := store.New()
	if _, err := s.PutPolicy("uid-1", admin, gen2); !errors.Is(err, store.ErrNoDomain) {
		t.Errorf("no domain: %v, want ErrNoDomain", err)
	}
	if _, _, err := s.EnsureDomain(domainSpec(t, ha, "uid-1", key(1))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutPolicy("uid-1", admin, gen2); !errors.Is(err, store.ErrNoPredecessor) {
		t.Errorf("no generation 1: %v, want ErrNoPredecessor", err)
	}
	outsider := host.Caller{Name: "mallory"}
	if _, err := s.PutPolicy("uid-1", outsider, gen1); fault.CodeOf(err) != fault.Unauthorized {
		t.Errorf("publisher without the role: %v, want unauthorized", err)
	}
	if got := len(s.Served()); got != 0 {
		t.Errorf("served %d entries after rejections, want 0", got)
	}
}

func TestRejectedHostAuthorityIsNotServed(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-1")
	spec := domainSpec(t, &set.HostAuthorities[0], "uid-2", key(1))
	spec.Config.Capabilities = append(spec.Config.Capabilities, "not-a-capability")
	if _, _, err := s.EnsureDomain(spec); err == nil {
		t.Fatal("an invalid HostAuthority was accepted")
	}
	if _, ok := s.Domain("payments", "payments-host"); ok {
		t.Error("the rejected domain is served")
	}
	if got := len(s.Served()); got != 0 {
		t.Errorf("served %d entries, want 0", got)
	}
}

// TestReadersNeverSeeAPartialWrite runs lock-free readers against writers
// that replace the domain; with -race it also proves the reads are safe.
func TestReadersNeverSeeAPartialWrite(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-0")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Every served entry of one read belongs to one domain.
				es := s.Served()
				for _, e := range es {
					if e.Domain != es[0].Domain {
						t.Errorf("one read mixes domains %s and %s", es[0].Domain, e.Domain)
						return
					}
				}
			}
		})
	}
	for i := range 20 {
		fill(t, s, set, "uid-"+string(rune('a'+i)))
	}
	close(stop)
	wg.Wait()
}

// TestAuthorizeDecidesOnlyOnServedSnapshots proves the store's gate: the
// Host may still hold a deleted snapshot (as a predecessor), but a request
// selecting it is refused before the Host sees it.
func TestAuthorizeDecidesOnlyOnServedSnapshots(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-1")
	s.RemovePolicy("payments", "payments-policy-1")
	sel := serving.Selection{RegistryID: "primary-registry", RegistryGeneration: "1", PolicyID: "payments-policy", PolicyGeneration: "1"}
	if _, ok := s.ByName("payments", "other-host"); ok {
		t.Fatal("a domain for a HostAuthority that was never served")
	}
	d, ok := s.ByName("payments", "payments-host")
	if !ok {
		t.Fatal("the sample domain is not served")
	}
	cases := map[string]struct {
		mod      func(*serving.Selection)
		wantPath string
	}{
		"a registry never served":   {mod: func(s *serving.Selection) { s.RegistryGeneration = "2" }, wantPath: "registry"},
		"a deleted policy snapshot": {wantPath: "policy"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sel := sel
			if tc.mod != nil {
				tc.mod(&sel)
			}
			err := d.Selectable(sel, time.Unix(1_800_000_000, 0))
			var r *serving.RefusalError
			if !errors.As(err, &r) || r.Reason != serving.NotServed || r.Path != tc.wantPath {
				t.Errorf("error = %v, want notServed at %s", err, tc.wantPath)
			}
		})
	}
}

// TestAGraceChangeKeepsTheDomain: a HostAuthority whose rollout grace
// changed is the same domain (the same instance and signing key, so every
// Authorization in flight keeps validating); only what is selectable
// changes.
func TestAGraceChangeKeepsTheDomain(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-1")
	before, _ := s.ByName("payments", "payments-host")
	sel := serving.Selection{RegistryID: "primary-registry", RegistryGeneration: "1", PolicyID: "payments-policy", PolicyGeneration: "1",
		DefinitionID: "payments-guardrails", DefinitionGeneration: "1"}
	now := time.Unix(1_800_000_000, 0)
	if _, err := before.Select(sel, now); serving.ReasonOf(err) != serving.Superseded {
		t.Fatalf("generation 1 without a grace: %v, want superseded", err)
	}
	spec := domainSpec(t, &set.HostAuthorities[0], "uid-1", key(1))
	spec.Grace = serving.Grace{Generations: 1}
	if _, replaced, err := s.EnsureDomain(spec); err != nil || replaced {
		t.Fatalf("a grace change: replaced %v, %v; want the same domain", replaced, err)
	}
	after, _ := s.ByName("payments", "payments-host")
	if after.Instance() != before.Instance() || after.KeyID() != before.KeyID() {
		t.Error("a grace change made a new domain or signing key")
	}
	if _, err := after.Select(sel, now); err != nil {
		t.Errorf("generation 1 within a grace of one generation: %v", err)
	}
}

// TestTheCurrentSelectionIsWhatIsServed: current is the highest generation
// the domain serves, not the highest its Host holds: a withdrawn
// generation (its object deleted) is no longer current.
func TestTheCurrentSelectionIsWhatIsServed(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-1")
	d, _ := s.ByName("payments", "payments-host")
	current := serving.Selection{RegistryID: "primary-registry", RegistryGeneration: host.Current, PolicyID: "payments-policy", PolicyGeneration: host.Current,
		DefinitionID: "payments-guardrails", DefinitionGeneration: host.Current}
	now := time.Unix(1_800_000_000, 0)
	got, err := d.Select(current, now)
	want := serving.Selection{RegistryID: "primary-registry", RegistryGeneration: "1", PolicyID: "payments-policy", PolicyGeneration: "2",
		DefinitionID: "payments-guardrails", DefinitionGeneration: "2"}
	if err != nil || got != want {
		t.Fatalf("Select = %+v, %v; want %+v", got, err, want)
	}
	wantCurrent := serving.Current{
		Registries: []serving.CurrentSnapshot{{ID: "primary-registry", Generation: "1"}},
		Policies: []serving.CurrentPolicy{{CurrentSnapshot: serving.CurrentSnapshot{ID: "payments-policy", Generation: "2"},
			Active: []host.PolicyVersion{{PolicyID: "payments-guardrails", Generation: "2"}}}},
	}
	if diff := cmp.Diff(wantCurrent, d.Current()); diff != "" {
		t.Errorf("Current (-want +got):\n%s", diff)
	}
	s.RemovePolicy("payments", "payments-policy-2")
	d, _ = s.ByName("payments", "payments-host")
	want.PolicyGeneration, want.DefinitionGeneration = "1", "1"
	wantCurrent.Policies[0].Generation, wantCurrent.Policies[0].Active[0].Generation = "1", "1"
	if diff := cmp.Diff(wantCurrent, d.Current()); diff != "" {
		t.Errorf("Current after generation 2 was withdrawn (-want +got):\n%s", diff)
	}
	if got, err := d.Select(current, now); err != nil || got != want {
		t.Errorf("after generation 2 was withdrawn: Select = %+v, %v; want %+v", got, err, want)
	}
	s.RemoveRegistry("payments", "primary-registry-1")
	d, _ = s.ByName("payments", "payments-host")
	if _, err := d.Select(current, now); serving.ReasonOf(err) != serving.NotServed {
		t.Errorf("no registry served: %v, want notServed", err)
	}
}
