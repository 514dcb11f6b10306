package ident_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
)

func TestLowerToken64Grammar(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in     string
		wantOK bool
	}{
		"one letter":                          {"a", true},
		"one digit":                           {"7", true},
		"interior hyphen":                     {"acct-1", true},
		"consecutive interior hyphens":        {"a--b", true},
		"64 octets is the bound":              {strings.Repeat("a", 64), true},
		"65 octets rejects":                   {strings.Repeat("a", 65), false},
		"empty rejects":                       {"", false},
		"leading hyphen rejects":              {"-a", false},
		"trailing hyphen rejects":             {"a-", false},
		"lone hyphen rejects":                 {"-", false},
		"uppercase rejects":                   {"Acct", false},
		"dot rejects outside tool identifier": {"a.b", false},
		"underscore rejects":                  {"a_b", false},
		"space rejects":                       {"a b", false},
		"non-ASCII rejects":                   {"caf\u00e9", false},
		"NUL rejects":                         {"a\x00b", false},
	}
	parsers := map[string]func(string) (string, error){
		"snapshot":   func(s string) (string, error) { v, err := ident.ParseSnapshotID(s); return v.String(), err },
		"definition": func(s string) (string, error) { v, err := ident.ParseDefinitionID(s); return v.String(), err },
		"schema":     func(s string) (string, error) { v, err := ident.ParseSchemaID(s); return v.String(), err },
		"name":       func(s string) (string, error) { v, err := ident.ParseName(s); return v.String(), err },
		"resource":   func(s string) (string, error) { v, err := ident.ParseResource(s); return v.String(), err },
		"controlled": func(s string) (string, error) { v, err := ident.ParseControlledID(s); return v.String(), err },
		"policy":     func(s string) (string, error) { v, err := ident.ParsePolicyID(s); return v.String(), err },
		"artifact":   func(s string) (string, error) { v, err := ident.ParseArtifactID(s); return v.String(), err },
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for family, parse := range parsers {
				got, err := parse(tc.in)
				if tc.wantOK && (err != nil || got != tc.in) {
					t.Errorf("%s: Parse = %q, %v; want exact acceptance", family, got, err)
				}
				if !tc.wantOK && !errors.Is(err, fault.ErrMalformed) {
					t.Errorf("%s: Parse error = %v; want malformed", family, err)
				}
			}
		})
	}
}

func TestToolIDGrammar(t *testing.T) {
	t.Parallel()
	seg32 := strings.Repeat("a", 32)
	cases := map[string]struct {
		in     string
		wantOK bool
	}{
		"two segments":                  {"payments.submit", true},
		"eight segments":                {"a.b.c.d.e.f.g.h", true},
		"nine segments rejects":         {"a.b.c.d.e.f.g.h.i", false},
		"one segment rejects":           {"payments", false},
		"32-octet segment":              {seg32 + ".b", true},
		"33-octet segment rejects":      {seg32 + "a.b", false},
		"128 octets total":              {seg32 + "." + seg32 + "." + seg32 + "." + strings.Repeat("a", 29), true},
		"129 octets total rejects":      {seg32 + "." + seg32 + "." + seg32 + "." + strings.Repeat("a", 30), false},
		"empty segment rejects":         {"a..b", false},
		"leading dot rejects":           {".a.b", false},
		"trailing dot rejects":          {"a.b.", false},
		"segment hyphen edge rejects":   {"a.-b", false},
		"interior hyphen in segment":    {"pay-ments.sub-mit", true},
		"uppercase rejects":             {"Payments.submit", false},
		"surrounding space not trimmed": {" payments.submit", false},
		"empty rejects":                 {"", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ident.ParseToolID(tc.in)
			if tc.wantOK && (err != nil || got.String() != tc.in) {
				t.Fatalf("ParseToolID = %q, %v; want acceptance", got, err)
			}
			if !tc.wantOK && !errors.Is(err, fault.ErrMalformed) {
				t.Fatalf("ParseToolID error = %v; want malformed", err)
			}
		})
	}
}

func TestToolIDOrderIsSegmentSequenceOrder(t *testing.T) {
	t.Parallel()
	// Whole-string order would put "a-b.c" before "a.b" ('-' < '.'); segment
	// order compares "a" with "a-b" first, and a proper prefix sorts first.
	ordered := []string{"a.b", "a.b.c", "a.c", "a-b.a", "ab.a"}
	for i := 0; i+1 < len(ordered); i++ {
		x, _ := ident.ParseToolID(ordered[i])
		y, _ := ident.ParseToolID(ordered[i+1])
		if x.Compare(y) != -1 || y.Compare(x) != 1 || x.Compare(x) != 0 {
			t.Errorf("want %q < %q in segment order", ordered[i], ordered[i+1])
		}
	}
}

func TestGenerationGrammar(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in       string
		want     uint64
		wantCode fault.Code
	}{
		"one":                   {in: "1", want: 1},
		"maximum 2^64-1":        {in: "18446744073709551615", want: 1<<64 - 1},
		"2^64 rejects":          {in: "18446744073709551616", wantCode: fault.OutOfRange},
		"21 digits rejects":     {in: "100000000000000000000", wantCode: fault.Malformed},
		"zero rejects":          {in: "0", wantCode: fault.Malformed},
		"leading zero rejects":  {in: "01", wantCode: fault.Malformed},
		"sign rejects":          {in: "+1", wantCode: fault.Malformed},
		"negative rejects":      {in: "-1", wantCode: fault.Malformed},
		"space rejects":         {in: "1 ", wantCode: fault.Malformed},
		"decimal point rejects": {in: "1.0", wantCode: fault.Malformed},
		"suffix rejects":        {in: "1a", wantCode: fault.Malformed},
		"empty rejects":         {in: "", wantCode: fault.Malformed},
		"20 digits below max":   {in: "10000000000000000000", want: 10000000000000000000},
		"20 nines overflows":    {in: "99999999999999999999", wantCode: fault.OutOfRange},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g, err := ident.ParseGeneration(tc.in)
			if tc.wantCode != 0 {
				if fault.CodeOf(err) != tc.wantCode {
					t.Fatalf("ParseGeneration error = %v; want %s", err, tc.wantCode)
				}
				return
			}
			if err != nil || g.Uint64() != tc.want || g.String() != tc.in {
				t.Fatalf("ParseGeneration = %v, %v; want %d round-tripping", g, err, tc.want)
			}
		})
	}
	if _, err := ident.NewGeneration(0); err == nil {
		t.Error("NewGeneration(0) must reject")
	}
}

func TestDisplayTextAndDocRefBounds(t *testing.T) {
	t.Parallel()
	type parse func(string) error
	title := func(s string) error { _, err := ident.ParseTitle(s); return err }
	summary := func(s string) error { _, err := ident.ParseSummary(s); return err }
	display := func(s string) error { _, err := ident.ParseIntentDisplay(s); return err }
	docref := func(s string) error { _, err := ident.ParseDocRef(s); return err }
	cases := map[string]struct {
		parse  parse
		in     string
		wantOK bool
	}{
		"title of 80 octets":                   {title, strings.Repeat("x", 80), true},
		"title of 81 octets rejects":           {title, strings.Repeat("x", 81), false},
		"empty title rejects":                  {title, "", false},
		"title with leading space rejects":     {title, " Pay", false},
		"title with trailing space rejects":    {title, "Pay ", false},
		"title with tab rejects":               {title, "Pay\tnow", false},
		"title with DEL rejects":               {title, "Pay\x7f", false},
		"title with non-ASCII rejects":         {title, "Pay \u20ac", false},
		"title with inner spaces and symbols":  {title, "Pay ~ {now}!", true},
		"summary of 240 octets":                {summary, strings.Repeat("s", 240), true},
		"summary of 241 octets rejects":        {summary, strings.Repeat("s", 241), false},
		"summary edge space rejects":           {summary, "s ", false},
		"intent display of 160 octets":         {display, strings.Repeat("d", 160), true},
		"intent display of 161 octets rejects": {display, strings.Repeat("d", 161), false},
		"intent display keeps edge spaces":     {display, " d ", true},
		"present empty intent display rejects": {display, "", false},
		"docref with dots and hyphens":         {docref, "payments.submit-v1", true},
		"docref with consecutive dots":         {docref, "a..b", true},
		"docref of 64 octets":                  {docref, strings.Repeat("d", 64), true},
		"docref of 65 octets rejects":          {docref, strings.Repeat("d", 65), false},
		"docref ending with dot rejects":       {docref, "a.", false},
		"docref with uppercase rejects":        {docref, "A.b", false},
		"present empty docref rejects":         {docref, "", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.parse(tc.in)
			if tc.wantOK != (err == nil) {
				t.Fatalf("err = %v, want ok=%v", err, tc.wantOK)
			}
			if err != nil && !errors.Is(err, fault.ErrMalformed) {
				t.Fatalf("err = %v, want malformed", err)
			}
		})
	}
}

func TestErrorsNeverEchoTheRejectedValue(t *testing.T) {
	t.Parallel()
	secret := "Secret-Customer-Name"
	for _, err := range []error{
		func() error { _, err := ident.ParseToolID(secret); return err }(),
		func() error { _, err := ident.ParseControlledID(secret); return err }(),
		func() error { _, err := ident.ParseGeneration(secret); return err }(),
		func() error { _, err := ident.ParseTitle(secret + "\x01"); return err }(),
		func() error { _, err := ident.ParseDocRef(secret); return err }(),
	} {
		if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "Customer") {
			t.Errorf("error %v must reject without echoing the input", err)
		}
	}
}

// TestGenerationPreviousStopsAtOne: a successor names exactly the generation
// before it; generation 1 and the invalid zero value have none.
func TestGenerationPreviousStopsAtOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		want     string
		wantNone bool
	}{
		{in: "1", wantNone: true},
		{in: "2", want: "1"},
		{in: "18446744073709551615", want: "18446744073709551614"},
	} {
		g, err := ident.ParseGeneration(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := g.Previous()
		if ok == tc.wantNone || (ok && p.String() != tc.want) {
			t.Errorf("Previous(%s) = %s, %v; want %q (none: %v)", tc.in, p, ok, tc.want, tc.wantNone)
		}
	}
	if _, ok := (ident.Generation{}).Previous(); ok {
		t.Error("the zero Generation has a previous generation")
	}
}
