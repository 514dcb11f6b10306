package logtime_test

import (
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/logtime"
)

// TestTimesAreUTCInTheLayout: a time in any zone is written in UTC, and
// what is written parses back to the same instant (to the millisecond).
func TestTimesAreUTCInTheLayout(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 22, 30, 0, 123_456_789, time.FixedZone("CET", 3600))
	got := logtime.Format(at)
	if got != "2026-12-01T21:30:00.123Z" {
		t.Errorf("Format = %q, want 2026-12-01T21:30:00.123Z (UTC, milliseconds)", got)
	}
	back, err := time.Parse(time.RFC3339, got)
	if err != nil || !back.Equal(at.Truncate(time.Millisecond)) {
		t.Errorf("RFC 3339 reads %q as %v (%v), want %v", got, back, err, at)
	}
	if got := string(logtime.AppendUnix(nil, 1796083200)); got != "2026-12-01T00:00:00.000Z" {
		t.Errorf("AppendUnix = %q", got)
	}
}
