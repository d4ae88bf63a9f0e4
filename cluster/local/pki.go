package local

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/steadystate-dev/steadystate/internal/pki"
)

// clusterPKI holds the paths of a cluster's certificate files: the CA,
// serving certificates, client certificates and the service-account key;
// and each client identity's bearer token, in the API server's token
// file (Tokens), which its kubeconfig presents. The API server verifies
// a client certificate's chain at every request, not once a connection:
// about 4% of its CPU in a shared hunt, where a token is a lookup. The
// health probes keep the admin certificate.
type clusterPKI struct {
	CA                                   *pki.CA
	CACert                               string
	APIServerCert, APIServerKey          string
	KCMServingCert, KCMServingKey        string
	AdminCert, AdminKey                  string
	KCMClientCert, KCMClientKey          string
	SchedulerServingCert                 string
	SchedulerServingKey                  string
	SchedulerClientCert                  string
	SchedulerClientKey                   string
	KwokClientCert, KwokClientKey        string
	ServiceAccountKey, ServiceAccountPub string
	Tokens                               string
	AdminToken, KCMToken                 string
	SchedulerToken, KwokToken            string
}

// serviceIP is the first address of the service range: the "kubernetes"
// Service's ClusterIP, which the serving certificate must name.
const (
	serviceCIDR = "10.0.0.0/24"
	serviceIP   = "10.0.0.1"
)

func newPKI(dir string) (*clusterPKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	ca, err := pki.NewCA("steadystate-ca")
	if err != nil {
		return nil, err
	}
	k := &clusterPKI{CA: ca, CACert: path("ca.crt")}
	files := map[string][]byte{k.CACert: ca.CertPEM}

	dns, ips := pki.Loopback()
	apiDNS := append(dns, "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local")
	apiIPs := append(ips, net.ParseIP(serviceIP))
	issue := []struct {
		cert, key *string
		name      string
		req       pki.Request
		// token, for a client: its bearer token, for the same user and
		// groups as its certificate.
		token *string
	}{
		{&k.APIServerCert, &k.APIServerKey, "apiserver", pki.Request{Subject: pkix.Name{CommonName: "kube-apiserver"}, DNSNames: apiDNS, IPs: apiIPs, Usage: x509.ExtKeyUsageServerAuth}, nil},
		{&k.KCMServingCert, &k.KCMServingKey, "kcm-serving", pki.Request{Subject: pkix.Name{CommonName: "kube-controller-manager"}, DNSNames: dns, IPs: ips, Usage: x509.ExtKeyUsageServerAuth}, nil},
		{&k.AdminCert, &k.AdminKey, "admin", pki.Request{Subject: pkix.Name{CommonName: "steadystate-admin", Organization: []string{"system:masters"}}, Usage: x509.ExtKeyUsageClientAuth}, &k.AdminToken},
		{&k.KCMClientCert, &k.KCMClientKey, "kcm-client", pki.Request{Subject: pkix.Name{CommonName: "system:kube-controller-manager", Organization: []string{"system:masters"}}, Usage: x509.ExtKeyUsageClientAuth}, &k.KCMToken},
		{&k.SchedulerServingCert, &k.SchedulerServingKey, "scheduler-serving", pki.Request{Subject: pkix.Name{CommonName: "kube-scheduler"}, DNSNames: dns, IPs: ips, Usage: x509.ExtKeyUsageServerAuth}, nil},
		{&k.SchedulerClientCert, &k.SchedulerClientKey, "scheduler-client", pki.Request{Subject: pkix.Name{CommonName: "system:kube-scheduler", Organization: []string{"system:masters"}}, Usage: x509.ExtKeyUsageClientAuth}, &k.SchedulerToken},
		// kwok writes as itself, so a request log tells its node and pod
		// status writes from the subject's and the harness's.
		{&k.KwokClientCert, &k.KwokClientKey, "kwok-client", pki.Request{Subject: pkix.Name{CommonName: "system:kwok-controller", Organization: []string{"system:masters"}}, Usage: x509.ExtKeyUsageClientAuth}, &k.KwokToken},
	}
	var tokens strings.Builder
	for _, i := range issue {
		pair, err := ca.Issue(i.req)
		if err != nil {
			return nil, fmt.Errorf("issue %s certificate: %w", i.name, err)
		}
		*i.cert, *i.key = path(i.name+".crt"), path(i.name+".key")
		files[*i.cert], files[*i.key] = pair.CertPEM, pair.KeyPEM
		if i.token != nil {
			*i.token = rand.Text()
			// token,user,uid,"group,...": the uid is the user's name.
			fmt.Fprintf(&tokens, "%s,%s,%s,%q\n", *i.token, i.req.Subject.CommonName, i.req.Subject.CommonName, strings.Join(i.req.Subject.Organization, ","))
		}
	}
	k.Tokens = path("tokens.csv")
	files[k.Tokens] = []byte(tokens.String())

	sa, err := pki.NewKey()
	if err != nil {
		return nil, err
	}
	k.ServiceAccountKey, k.ServiceAccountPub = path("sa.key"), path("sa.pub")
	if files[k.ServiceAccountKey], err = pki.KeyPEM(sa); err != nil {
		return nil, err
	}
	if files[k.ServiceAccountPub], err = pki.PublicKeyPEM(sa); err != nil {
		return nil, err
	}
	for file, data := range files {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", file, err)
		}
	}
	return k, nil
}
