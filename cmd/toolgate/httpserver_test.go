package main

import (
	"net/http"
	"testing"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/apistore"
	"github.com/toolgate/toolgate/internal/consume/etcdstore"
)

// TestRequestTimeFitsTheConsumptionRetention: consume.MaxRequestTime
// bounds a request from its first header octet to its response, and every
// store keeps records consume.DefaultRetention past expiry on that bound
// (docs/consumption.md, "Records alive"). The service's timeouts and the stores' call
// timeouts must stay within it.
func TestRequestTimeFitsTheConsumptionRetention(t *testing.T) {
	t.Parallel()
	to := newHTTPServer(http.NotFoundHandler(), nil, nil).Timeouts()
	if to.Header <= 0 || to.Body <= 0 || to.Response <= 0 {
		t.Fatalf("every request timeout must be set: header %v, body %v, response %v", to.Header, to.Body, to.Response)
	}
	store := max(apistore.DefaultTimeout, etcdstore.DefaultTimeout)
	if got := to.Header + to.Body + to.Response + store; got > consume.MaxRequestTime {
		t.Errorf("header %v + body %v + response %v + store %v = %v > consume.MaxRequestTime %v",
			to.Header, to.Body, to.Response, store, got, consume.MaxRequestTime)
	}
	if consume.DefaultRetention < consume.MaxClockSkew+consume.MaxRequestTime {
		t.Errorf("consume.DefaultRetention %v < MaxClockSkew %v + MaxRequestTime %v", consume.DefaultRetention, consume.MaxClockSkew, consume.MaxRequestTime)
	}
}
