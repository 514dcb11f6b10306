package clientauth

import (
	"context"
	"testing"
	"time"
)

type testClock struct{ now time.Time }

func (c *testClock) Now() time.Time { return c.now }

// counting answers from a table and counts its calls.
type counting struct {
	answers map[string]error
	expiry  time.Time
	calls   int
}

func (c *counting) Verify(_ context.Context, token string) (Identity, error) {
	c.calls++
	if err := c.answers[token]; err != nil {
		return Identity{}, err
	}
	return Identity{Subject: token, Expiry: c.expiry}, nil
}

// TestCacheRules: an identity and a token rejection are answered from the
// cache until the ttl; an identity no longer than its expiry; an
// unavailable verifier's answer is asked again every time.
func TestCacheRules(t *testing.T) {
	t.Parallel()
	start := time.Unix(1_900_000_000, 0)
	tests := []struct {
		name      string
		answer    error
		expiry    time.Time
		after     time.Duration
		wantCalls int
	}{
		{"an identity is cached", nil, time.Time{}, time.Second, 1},
		{"an identity is asked again after the ttl", nil, time.Time{}, 11 * time.Second, 2},
		{"an identity is not cached past its expiry", nil, start.Add(2 * time.Second), 3 * time.Second, 2},
		{"a token rejection is cached", reject(ReasonUnknownToken, ""), time.Time{}, time.Second, 1},
		{"an unavailable verifier is asked again", reject(ReasonUnavailable, ""), time.Time{}, time.Second, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := &testClock{now: start}
			next := &counting{answers: map[string]error{"tok": tt.answer}, expiry: tt.expiry}
			c, err := newCache(next, 10*time.Second, clock)
			if err != nil {
				t.Fatal(err)
			}
			_, err1 := c.Verify(context.Background(), "tok")
			clock.now = clock.now.Add(tt.after)
			_, err2 := c.Verify(context.Background(), "tok")
			if next.calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", next.calls, tt.wantCalls)
			}
			if (err1 == nil) != (tt.answer == nil) || (err2 == nil) != (tt.answer == nil) {
				t.Errorf("answers %v, %v; want %v twice", err1, err2, tt.answer)
			}
		})
	}
}
