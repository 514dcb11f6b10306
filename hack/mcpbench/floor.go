package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/toolgate/toolgate/hack/procstat"
)

// floor measures what bounds a gated call on this machine whatever the
// gateway does: the fdatasync of a small append (every Consumption waits
// for one; the service's journal shares one among concurrent consumes) and
// a no-op HTTP POST round trip on loopback (a gated call makes two more
// than a direct one: to the service and to the upstream).
func floor(dir string, n, c int) error {
	for _, writers := range []int{1, c} {
		lat, total, err := syncs(dir, n, writers)
		if err != nil {
			return err
		}
		fmt.Printf("fdatasync of a 256-byte append, %d writer(s), own files: p50 %.2f ms  p99 %.2f ms  %.0f syncs/s\n",
			writers, ms(pct(lat, 50)), ms(pct(lat, 99)), float64(len(lat))/total.Seconds())
	}
	for _, clients := range []int{1, c} {
		lat, total, cpu, err := noopHTTP(n, clients)
		if err != nil {
			return err
		}
		fmt.Printf("no-op HTTP POST round trip, %d client(s), client and server in this process: p50 %.3f ms  p99 %.3f ms  %.0f req/s  CPU %.3f ms per request\n",
			clients, ms(pct(lat, 50)), ms(pct(lat, 99)), float64(len(lat))/total.Seconds(), ms(cpu)/float64(len(lat)))
	}
	return nil
}

func syncs(dir string, n, writers int) ([]time.Duration, time.Duration, error) {
	files := make([]*os.File, writers)
	for i := range files {
		f, err := os.CreateTemp(dir, "mcpbench-sync-*")
		if err != nil {
			return nil, 0, err
		}
		defer func() { _ = f.Close(); _ = os.Remove(f.Name()) }()
		files[i] = f
	}
	rec := bytes.Repeat([]byte{'x'}, 255)
	rec = append(rec, '\n')
	lat := make([]time.Duration, n)
	start := time.Now()
	err := parallel(n, writers, func(w, i int) error {
		t := time.Now()
		if _, err := files[w].Write(rec); err != nil {
			return err
		}
		if err := fdatasync(files[w]); err != nil {
			return err
		}
		lat[i] = time.Since(t)
		return nil
	})
	return lat, time.Since(start), err
}

func noopHTTP(n, clients int) ([]time.Duration, time.Duration, time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, 0, 0, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	hc := &http.Client{Transport: t}
	url := "http://" + ln.Addr().String() + "/"
	body := bytes.Repeat([]byte{'x'}, 2048) // about a gated call's size
	lat := make([]time.Duration, n)
	cpu0, _ := procstat.CPUTime(os.Getpid())
	start := time.Now()
	err = parallel(n, clients, func(_, i int) error {
		t := time.Now()
		resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		lat[i] = time.Since(t)
		return nil
	})
	total := time.Since(start)
	cpu1, _ := procstat.CPUTime(os.Getpid())
	return lat, total, cpu1 - cpu0, err
}
