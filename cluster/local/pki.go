package local

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the files of a cluster's private certificate authority: the CA,
// serving certificates, client certificates and the service-account key.
// ECDSA P-256 keys keep generation to a few milliseconds.
type pki struct {
	dir string

	CACert, CAKey                        string
	APIServerCert, APIServerKey          string
	KCMServingCert, KCMServingKey        string
	AdminCert, AdminKey                  string
	KCMClientCert, KCMClientKey          string
	ServiceAccountKey, ServiceAccountPub string

	ca    *x509.Certificate
	caKey *ecdsa.PrivateKey
}

// serviceIP is the first address of the service range: the "kubernetes"
// Service's ClusterIP, which the serving certificate must name.
const (
	serviceCIDR = "10.0.0.0/24"
	serviceIP   = "10.0.0.1"
)

func newPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &pki{dir: dir}
	path := func(name string) string { return filepath.Join(dir, name) }
	p.CACert, p.CAKey = path("ca.crt"), path("ca.key")
	p.APIServerCert, p.APIServerKey = path("apiserver.crt"), path("apiserver.key")
	p.KCMServingCert, p.KCMServingKey = path("kcm-serving.crt"), path("kcm-serving.key")
	p.AdminCert, p.AdminKey = path("admin.crt"), path("admin.key")
	p.KCMClientCert, p.KCMClientKey = path("kcm-client.crt"), path("kcm-client.key")
	p.ServiceAccountKey, p.ServiceAccountPub = path("sa.key"), path("sa.pub")

	if err := p.writeCA(); err != nil {
		return nil, err
	}
	loopback := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(serviceIP)}
	apiNames := []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}
	steps := []func() error{
		func() error {
			return p.issue(p.APIServerCert, p.APIServerKey, pkix.Name{CommonName: "kube-apiserver"}, apiNames, loopback, x509.ExtKeyUsageServerAuth)
		},
		func() error {
			return p.issue(p.KCMServingCert, p.KCMServingKey, pkix.Name{CommonName: "kube-controller-manager"}, []string{"localhost"}, loopback, x509.ExtKeyUsageServerAuth)
		},
		func() error {
			return p.issue(p.AdminCert, p.AdminKey, pkix.Name{CommonName: "steadystate-admin", Organization: []string{"system:masters"}}, nil, nil, x509.ExtKeyUsageClientAuth)
		},
		func() error {
			return p.issue(p.KCMClientCert, p.KCMClientKey, pkix.Name{CommonName: "system:kube-controller-manager", Organization: []string{"system:masters"}}, nil, nil, x509.ExtKeyUsageClientAuth)
		},
		p.writeServiceAccountKey,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("generate certificates in %s: %w", dir, err)
		}
	}
	return p, nil
}

func (p *pki) writeCA() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "steadystate-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	if p.ca, err = x509.ParseCertificate(der); err != nil {
		return err
	}
	p.caKey = key
	return writeCertAndKey(p.CACert, p.CAKey, der, key)
}

func (p *pki) issue(certPath, keyPath string, subject pkix.Name, dnsNames []string, ips []net.IP, usage x509.ExtKeyUsage) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     dnsNames,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		return err
	}
	return writeCertAndKey(certPath, keyPath, der, key)
}

func (p *pki) writeServiceAccountKey() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	if err := writeKey(p.ServiceAccountKey, key); err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	return os.WriteFile(p.ServiceAccountPub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600)
}

func writeCertAndKey(certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) error {
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return writeKey(keyPath, key)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}
