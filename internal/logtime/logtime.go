// Package logtime holds toolgate's one time format for logs
// (docs/decisions.md, "Findings users can act on"): RFC 3339 in UTC with
// milliseconds, "2026-12-01T21:30:00.123Z" — what log/slog's JSON handler
// writes, pinned to UTC. The process log (slog), the decision log and the
// manager's log (zap) all write their "time" field with it, so one parser
// reads every line and lines from different logs sort and join as text.
package logtime

import (
	"log/slog"
	"time"

	"go.uber.org/zap/zapcore"
)

// Layout is the time layout of every toolgate log line's "time" field.
const Layout = "2006-01-02T15:04:05.000Z07:00"

// Key is the name of the time field in every log.
const Key = "time"

// Format returns t in UTC in Layout.
func Format(t time.Time) string { return t.UTC().Format(Layout) }

// AppendUnix appends the Unix time sec in UTC in Layout.
func AppendUnix(b []byte, sec int64) []byte {
	return time.Unix(sec, 0).UTC().AppendFormat(b, Layout)
}

// SlogOptions are the handler options of a process log: the time in
// Layout, in UTC.
func SlogOptions() *slog.HandlerOptions {
	return &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey && a.Value.Kind() == slog.KindTime {
			return slog.String(Key, Format(a.Value.Time()))
		}
		return a
	}}
}

// ZapEncoder configures a zap encoder to write the time under Key in
// Layout, in UTC.
func ZapEncoder(c *zapcore.EncoderConfig) {
	c.TimeKey = Key
	c.EncodeTime = func(t time.Time, enc zapcore.PrimitiveArrayEncoder) { enc.AppendString(Format(t)) }
}
