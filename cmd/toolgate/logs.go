package main

import (
	"io"
	"log/slog"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/toolgate/toolgate/internal/logtime"
)

// processLogger is the JSON process log of serve and mcp gateway; its time
// is logtime.Layout in UTC, as in the decision log and the manager's log.
func processLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, logtime.SlogOptions()))
}

// managerLogger is controller-runtime's zap logger with the time under
// "time" in logtime.Layout, in UTC.
func managerLogger(w io.Writer) logr.Logger {
	return zap.New(zap.WriteTo(w), func(o *zap.Options) {
		o.EncoderConfigOptions = append(o.EncoderConfigOptions, logtime.ZapEncoder)
	})
}
