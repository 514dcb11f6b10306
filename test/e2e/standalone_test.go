package e2e_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	tgclient "github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/testutil"
)

// Standalone replicas on etcd (docs/decisions.md): two standalone `toolgate
// serve` replicas, no Kubernetes, share single use and held identities
// through one etcd reached over mutual TLS under a deployment's own key
// prefix; the second replica's state directory holds a copy of the first
// one's key sets, so each verifies the other's artifacts.

// The standalone development tokens (examples/standalone/tokens.yaml).
const (
	standaloneAgent    = "dev-agent-runtime-token-4f8b2c1e9d7a"
	standaloneExecutor = "dev-payments-executor-token-7c3e5a9b1f2d"
	standalonePrefix   = "/toolgate/e2e-standalone/"
)

// standaloneProc is one `toolgate serve` process on the etcd store.
type standaloneProc struct {
	name, state string
	port        int
	etcd        *etcdProc
	out         *testutil.SyncBuffer
	process
}

func (p *standaloneProc) url() string { return fmt.Sprintf("http://127.0.0.1:%d", p.port) }

func (p *standaloneProc) client(token string) *tgclient.Client {
	return tgclient.New(p.url(), token, &http.Client{Timeout: 30 * time.Second})
}

// start starts serve and waits until it answers /healthz (the domains are
// loaded; /readyz also needs the store).
func (p *standaloneProc) start() {
	GinkgoHelper()
	root, err := filepath.Abs(repoRoot)
	Expect(err).NotTo(HaveOccurred())
	t := p.etcd.tls
	cmd := exec.Command(binary, "serve",
		"--manifests", filepath.Join(root, "config", "samples"), "--state", p.state,
		"--tokens", filepath.Join(root, "examples", "standalone", "tokens.yaml"),
		"--listen", fmt.Sprintf("127.0.0.1:%d", p.port),
		"--consumption-store=etcd", "--etcd-endpoints="+p.etcd.url(), "--etcd-prefix="+standalonePrefix,
		"--etcd-ca="+t.ca, "--etcd-cert="+t.clientCert, "--etcd-key="+t.clientKey,
	)
	cmd.Stdout, cmd.Stderr = p.out, p.out
	fmt.Fprintf(p.out, "=== e2e: starting %s\n", p.name)
	p.launch(cmd)
	Eventually(func(g Gomega) {
		g.Expect(p.running()).To(BeTrue(), "%s exited:\n%s", p.name, p.out.String())
		g.Expect(p.status("/healthz")).To(Equal(http.StatusOK))
	}).WithTimeout(60*time.Second).WithPolling(200*time.Millisecond).Should(Succeed(), "%s did not come up", p.name)
}

// status returns the status of a GET of path, or an error.
func (p *standaloneProc) status(path string) (int, error) {
	resp, err := http.Get(p.url() + path)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// etcdTLS are the files of an etcd serving mutual TLS: its CA, its server
// certificate for 127.0.0.1, and a client certificate the CA signed.
type etcdTLS struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

// writeEtcdTLS makes a CA and the server and client certificates in dir.
func writeEtcdTLS(dir string) *etcdTLS {
	GinkgoHelper()
	Expect(os.MkdirAll(dir, 0o700)).To(Succeed())
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e etcd CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	Expect(err).NotTo(HaveOccurred())
	caCert, err := x509.ParseCertificate(caDER)
	Expect(err).NotTo(HaveOccurred())
	t := &etcdTLS{ca: filepath.Join(dir, "ca.crt")}
	writePEM(t.ca, "CERTIFICATE", caDER)
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage, ips ...net.IP) (string, string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		Expect(err).NotTo(HaveOccurred())
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		Expect(err).NotTo(HaveOccurred())
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		Expect(err).NotTo(HaveOccurred())
		cert, keyFile := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
		writePEM(cert, "CERTIFICATE", der)
		writePEM(keyFile, "PRIVATE KEY", keyDER)
		return cert, keyFile
	}
	t.serverCert, t.serverKey = leaf("server", 2, x509.ExtKeyUsageServerAuth, net.IPv4(127, 0, 0, 1))
	t.clientCert, t.clientKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return t
}

func writePEM(path, kind string, der []byte) {
	GinkgoHelper()
	Expect(os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)).To(Succeed())
}

// clientTLS is the client side of t: the CA and the client certificate.
func (t *etcdTLS) clientTLS() *tls.Config {
	GinkgoHelper()
	c, err := transport.TLSInfo{CertFile: t.clientCert, KeyFile: t.clientKey, TrustedCAFile: t.ca}.ClientConfig()
	Expect(err).NotTo(HaveOccurred())
	return c
}

// standaloneKeys returns the keys the etcd of the standalone replicas holds
// under their prefix.
func standaloneKeys(e *etcdProc) []string {
	GinkgoHelper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{e.url()}, DialTimeout: 5 * time.Second, TLS: e.tls.clientTLS(), Logger: zap.NewNop()})
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = cli.Close() }()
	resp, err := cli.Get(ctx, standalonePrefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	Expect(err).NotTo(HaveOccurred())
	keys := make([]string, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		keys = append(keys, strings.TrimPrefix(string(kv.Key), standalonePrefix))
	}
	return keys
}

// standaloneRequest is renamed's request for the samples as served
// standalone: generation 2, whatever the cluster specs have applied since.
func standaloneRequest(suffix string) (tgclient.AuthorizeRequest, tgclient.Expectations) {
	req, exp := renamed(suffix + "-" + nonce())
	req.Policy.SnapshotGeneration = "2"
	return req, exp
}

// raceConsume consumes v n times at once, call i at ps[i%len(ps)].
func raceConsume(ps []*standaloneProc, v tgclient.ValidateRequest, n int) ([]*tgclient.ValidateResponse, []error) {
	res, errs := make([]*tgclient.ValidateResponse, n), make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			res[i], errs[i] = ps[i%len(ps)].client(standaloneExecutor).Consume(ctx, v)
		})
	}
	close(start)
	wg.Wait()
	return res, errs
}

// expectOneConsumed asserts that exactly one of the answers is a 200
// consumed and every other one a 409 consumed.
func expectOneConsumed(res []*tgclient.ValidateResponse, errs []error) *tgclient.ValidateResponse {
	GinkgoHelper()
	var ok []*tgclient.ValidateResponse
	for i, err := range errs {
		if err == nil {
			Expect(res[i].Consumed).To(BeTrue())
			ok = append(ok, res[i])
			continue
		}
		// The client returns ErrConsumed for a 409 consumed only.
		Expect(err).To(MatchError(tgclient.ErrConsumed), "consume %d", i)
	}
	Expect(ok).To(HaveLen(1), "successful consumes among %d", len(errs))
	return ok[0]
}

var _ = Describe("standalone toolgate serve replicas on one etcd", Ordered, func() {
	var (
		etcd     *etcdProc
		replicas []*standaloneProc
	)

	BeforeAll(func() {
		dir := filepath.Join(workDir, "standalone")
		By("starting an etcd that requires client certificates")
		etcd = &etcdProc{binary: etcdServer.binary, dataDir: filepath.Join(dir, "etcd"), clientPort: freePort(), peerPort: freePort(),
			out: &testutil.SyncBuffer{}, tls: writeEtcdTLS(filepath.Join(dir, "tls"))}
		etcd.start()
		DeferCleanup(etcd.kill)

		By("starting replica a, which creates the domain's key set, then replica b on a copy of it")
		for _, name := range []string{"a", "b"} {
			p := &standaloneProc{name: "standalone-" + name, state: filepath.Join(dir, name), port: freePort(), etcd: etcd, out: &testutil.SyncBuffer{}}
			if name == "b" {
				keys, err := filepath.Glob(filepath.Join(replicas[0].state, "keys", "*.keyset.json"))
				Expect(err).NotTo(HaveOccurred())
				Expect(keys).NotTo(BeEmpty(), "replica a wrote no key set")
				Expect(os.MkdirAll(filepath.Join(p.state, "keys"), 0o700)).To(Succeed())
				for _, k := range keys {
					raw, err := os.ReadFile(k)
					Expect(err).NotTo(HaveOccurred())
					Expect(os.WriteFile(filepath.Join(p.state, "keys", filepath.Base(k)), raw, 0o600)).To(Succeed())
				}
			}
			p.start()
			DeferCleanup(p.stop, false)
			replicas = append(replicas, p)
		}
		for _, p := range replicas {
			Eventually(p.status).WithArguments("/readyz").WithTimeout(30*time.Second).Should(Equal(http.StatusOK), "%s /readyz", p.name)
		}
	})

	AfterEach(func() {
		if CurrentSpecReport().Failed() {
			for _, p := range replicas {
				GinkgoWriter.Printf("----- %s output -----\n%s\n", p.name, p.out.String())
			}
			if etcd != nil {
				GinkgoWriter.Printf("----- standalone etcd output -----\n%s\n", etcd.out.String())
			}
		}
	})

	It("share single use: 16 concurrent consumes of one artifact split across both replicas get one 200 and fifteen 409 consumed", func() {
		req, exp := standaloneRequest("standalone-race")
		res, err := replicas[0].client(standaloneAgent).Authorize(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Authorization).NotTo(BeNil())
		v := tgclient.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp}

		By("replica b verifies replica a's artifact (the copied key set)")
		got, err := replicas[1].client(standaloneExecutor).Validate(ctx, v)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Consumed).To(BeFalse())

		ok := expectOneConsumed(raceConsume(replicas, v, 16))
		By("one record under the deployment's prefix")
		binding := strings.TrimPrefix(ok.Binding, "sha256:")
		records := 0
		for _, k := range standaloneKeys(etcd) {
			if strings.HasSuffix(k, "/"+binding) {
				records++
			}
		}
		Expect(records).To(Equal(1), "etcd records of the binding under %s", standalonePrefix)
	})

	It("need the same key set: a replica that made its own refuses the others' artifact (422 artifact)", func() {
		c := &standaloneProc{name: "standalone-c", state: filepath.Join(workDir, "standalone", "c"), port: freePort(), etcd: etcd, out: &testutil.SyncBuffer{}}
		c.start()
		defer c.stop(false)
		req, exp := standaloneRequest("standalone-keys")
		res, err := replicas[0].client(standaloneAgent).Authorize(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Authorization).NotTo(BeNil())
		_, err = c.client(standaloneExecutor).Consume(ctx, tgclient.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp})
		expectCode(err, http.StatusUnprocessableEntity, "artifact")
	})

	It("share held identities: the same authorize on the other replica gets an equivalent artifact, only one of the two consumes, and another request reusing an identity is then refused on both", func() {
		req, exp := standaloneRequest("standalone-claim")
		first, err := replicas[0].client(standaloneAgent).Authorize(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Authorization).NotTo(BeNil())
		Expect(standaloneKeys(etcd)).NotTo(ContainElement(HaveSuffix("/claim/0/"+req.AuthorizationID)), "an issuing authorize writes nothing")

		time.Sleep(1100 * time.Millisecond) // the service clock has whole seconds
		again, err := replicas[1].client(standaloneAgent).Authorize(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Authorization).NotTo(BeNil())
		Expect(again.Authorization.ID).To(Equal(first.Authorization.ID))
		Expect(again.Authorization.Artifact).NotTo(Equal(first.Authorization.Artifact))

		_, err = replicas[1].client(standaloneExecutor).Consume(ctx, tgclient.ValidateRequest{Artifact: again.Authorization.Artifact, Expectations: exp})
		Expect(err).NotTo(HaveOccurred())
		Expect(standaloneKeys(etcd)).To(ContainElements(
			HaveSuffix("/claim/0/"+req.AuthorizationID), HaveSuffix("/claim/1/"+req.ReplayID), HaveSuffix("/claim/2/"+req.ConsumptionID)))
		for _, p := range replicas {
			_, err := p.client(standaloneExecutor).Consume(ctx, tgclient.ValidateRequest{Artifact: first.Authorization.Artifact, Expectations: exp})
			expectCode(err, http.StatusConflict, "identityReused")
		}

		other, _ := standaloneRequest("standalone-claim-other")
		other.ConsumptionID = req.ConsumptionID
		for _, p := range replicas {
			_, err := p.client(standaloneAgent).Authorize(ctx, other)
			expectCode(err, http.StatusConflict, "identityReused")
		}
	})

	It("fail closed while etcd is down: consume and authorize 503 unavailable on both replicas, /readyz not ready; afterwards the artifact consumes exactly once", func() {
		req, exp := standaloneRequest("standalone-outage")
		res, err := replicas[1].client(standaloneAgent).Authorize(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Authorization).NotTo(BeNil())
		v := tgclient.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp}

		By("killing etcd")
		etcd.kill()
		for _, p := range replicas {
			Eventually(p.status).WithArguments("/readyz").WithTimeout(20*time.Second).Should(Equal(http.StatusServiceUnavailable), "%s /readyz", p.name)
		}
		_, errs := raceConsume(replicas, v, 4)
		for _, err := range errs {
			Expect(err).To(HaveOccurred(), "a consume succeeded without the store")
			expectCode(err, http.StatusServiceUnavailable, "unavailable")
		}
		for i, p := range replicas {
			fresh, _ := standaloneRequest(fmt.Sprintf("outage-%d", i))
			_, err := p.client(standaloneAgent).Authorize(ctx, fresh)
			Expect(err).To(HaveOccurred(), "%s issued an artifact without asking the store whether its identities are held", p.name)
			expectCode(err, http.StatusServiceUnavailable, "unavailable")
		}

		By("restarting etcd on its data directory")
		etcd.start()
		for _, p := range replicas {
			Eventually(p.status).WithArguments("/readyz").WithTimeout(30*time.Second).Should(Equal(http.StatusOK), "%s /readyz", p.name)
		}
		expectOneConsumed(raceConsume(replicas, v, 8))
	})
})
