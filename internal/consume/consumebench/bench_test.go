package consumebench_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/apistore"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/consume/consumetest"
	"github.com/toolgate/toolgate/internal/consume/etcdstore"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

// callers are the concurrency levels measured: one caller, and many
// callers (an authorization service under load).
var callers = []int{1, 4, 16, 32, 64}

// benchConsume runs b.N Consumes of fresh keys from c goroutines and
// reports throughput and p50/p99 latency.
func benchConsume(b *testing.B, s consume.Store, c int) {
	ctx := context.Background()
	domain := consumetest.NewDomain()
	keys := make([]consume.Key, b.N)
	for i := range keys {
		keys[i] = consumetest.NewKey(domain)
	}
	exp := time.Now().Add(time.Hour)
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for g := range c {
		wg.Go(func() {
			for i := g; i < b.N; i += c {
				t0 := time.Now()
				if err := s.Consume(ctx, consumetest.RecordAt(keys[i], exp)); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "consumes/s")
	b.ReportMetric(float64(lat[len(lat)*50/100].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(0, "ns/op") // per-op time is meaningless with concurrent callers; see consumes/s
}

func BenchmarkConsume(b *testing.B) {
	b.Run("bbolt", func(b *testing.B) {
		for _, c := range callers {
			b.Run(name(c), func(b *testing.B) {
				dir := b.TempDir()
				s, err := boltstore.Open(dir, boltstore.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer func() { _ = s.Close() }()
				benchConsume(b, s, c)
				// File size per record held (includes free pages).
				if fi, err := os.Stat(filepath.Join(dir, boltstore.FileName)); err == nil {
					b.ReportMetric(float64(fi.Size())/float64(b.N), "file-B/record")
				}
			})
		}
		// Consume b.N records, then one Sweep removes them all: ns/op is
		// the cost of both per record (so b.N stays bounded by the consume
		// rate); remove-µs/record is the Sweep alone.
		b.Run("sweep", func(b *testing.B) {
			t0 := time.Now()
			now := t0
			s, err := boltstore.Open(b.TempDir(), boltstore.Options{Clock: func() time.Time { return now }, SweepInterval: -1})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			fill(b, s, b.N, t0.Add(time.Second))
			now = t0.Add(2 * time.Second)
			start := time.Now()
			n, err := s.Sweep(context.Background())
			reportRemoval(b, time.Since(start))
			if err != nil || n != b.N {
				b.Fatalf("Sweep = %d, %v; want %d", n, err, b.N)
			}
		})
	})
	b.Run("etcd", func(b *testing.B) {
		e := consumetest.StartEtcd(b, consumetest.Assets(b))
		s, err := etcdstore.Open(e.Config(), etcdstore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = s.Close() }()
		cli, err := clientv3.New(e.Config())
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = cli.Close() }()
		for _, c := range callers {
			b.Run(name(c), func(b *testing.B) {
				before := dbSize(b, cli, e.Endpoint())
				benchConsume(b, s, c)
				b.ReportMetric(float64(dbSize(b, cli, e.Endpoint())-before)/float64(b.N), "db-B/record")
			})
		}
	})
	b.Run("apiserver", func(b *testing.B) {
		assets := consumetest.Assets(b)
		ctrllog.SetLogger(logr.Discard())
		env := &envtest.Environment{
			BinaryAssetsDirectory: assets,
			CRDDirectoryPaths:     []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
			ErrorIfCRDPathMissing: true,
		}
		env.ControlPlane.Etcd = &envtest.Etcd{}
		env.ControlPlane.Etcd.Configure().Set("unsafe-no-fsync", "false")
		cfg, err := env.Start()
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = env.Stop() }()
		scheme, err := kubefixture.Scheme()
		if err != nil {
			b.Fatal(err)
		}
		// The default client-side rate limit (QPS 5) would measure the
		// limiter, not the apiserver: a service sets its own.
		cfg.QPS, cfg.Burst = 5000, 5000
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			b.Fatal(err)
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}
		if err := c.Create(context.Background(), ns); err != nil {
			b.Fatal(err)
		}
		s := apistore.New(c, ns.Name, apistore.Options{})
		// Warm up discovery and the REST mapping outside the measurement.
		if err := s.Consume(context.Background(), consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), time.Now().Add(time.Hour))); err != nil {
			b.Fatal(err)
		}
		for _, n := range callers {
			b.Run(name(n), func(b *testing.B) {
				benchConsume(b, s, n)
				// The size of one object as the apiserver returns it
				// (JSON, managedFields included).
				var list v1alpha1.ConsumptionList
				if err := c.List(context.Background(), &list, client.InNamespace(ns.Name), client.Limit(1)); err == nil && len(list.Items) == 1 {
					if raw, err := json.Marshal(&list.Items[0]); err == nil {
						b.ReportMetric(float64(len(raw)), "object-B")
					}
				}
			})
		}
		// Consume b.N records, then one Collect pass deletes them all:
		// ns/op is the cost of both per record; remove-µs/record is the
		// Collect alone.
		b.Run("collect", func(b *testing.B) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "collect-"}}
			if err := c.Create(context.Background(), ns); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			fill(b, apistore.New(c, ns.Name, apistore.Options{}), b.N, t0.Add(time.Second))
			gc := apistore.NewCollector(c, ns.Name, apistore.CollectorOptions{Clock: func() time.Time { return t0.Add(2 * time.Second) }})
			start := time.Now()
			n, err := gc.Collect(context.Background())
			reportRemoval(b, time.Since(start))
			if err != nil || n != b.N {
				b.Fatalf("Collect = %d, %v; want %d", n, err, b.N)
			}
		})
	})
}

// reportRemoval reports the removal time per record and the rate.
func reportRemoval(b *testing.B, d time.Duration) {
	b.ReportMetric(float64(d.Microseconds())/float64(b.N), "remove-µs/record")
	b.ReportMetric(float64(b.N)/d.Seconds(), "removed/s")
}

// fill consumes n fresh keys expiring at exp from 32 goroutines.
func fill(b *testing.B, s consume.Store, n int, exp time.Time) {
	b.Helper()
	domain := consumetest.NewDomain()
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := g; i < n; i += 32 {
				if err := s.Consume(context.Background(), consumetest.RecordAt(consumetest.NewKey(domain), exp)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// dbSize is the etcd backend's size in use (bytes).
func dbSize(b *testing.B, cli *clientv3.Client, endpoint string) int64 {
	st, err := cli.Status(context.Background(), endpoint)
	if err != nil {
		b.Fatal(err)
	}
	return st.DbSizeInUse
}

func name(c int) string {
	return "callers=" + strconv.Itoa(c)
}
