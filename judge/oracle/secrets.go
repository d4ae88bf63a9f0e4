package oracle

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// lastApplied is the annotation kubectl keeps a whole applied object in,
// a Secret's values among them.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// HashPrefix starts every value Hash gives.
const HashPrefix = "hmac-sha256:"

// Redacted is obj as evidence may keep it. A core Secret keeps its keys,
// and each value becomes its Hash (data's decoded from base64,
// stringData's as written), so a history, a bundle or a report never
// holds a secret and, within a run, two states still compare equal
// exactly when their values are equal; kubectl's last-applied
// annotation, which repeats them, is hashed whole. In any other object,
// a container's environment variable whose name looks secret
// (SecretName) keeps its name and its value becomes its Hash: a pod
// template's env list, wherever it is (a Deployment's, a Pod's, a
// custom resource's). Every other object is returned as it is.
func Redacted(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if obj == nil {
		return obj
	}
	if obj.GetKind() != "Secret" || obj.GetAPIVersion() != "v1" {
		if !secretEnv(obj.Object, false) {
			return obj
		}
		out := obj.DeepCopy()
		secretEnv(out.Object, true)
		return out
	}
	out := obj.DeepCopy()
	for _, field := range []string{"data", "stringData"} {
		values, ok := out.Object[field].(map[string]any)
		if !ok {
			continue
		}
		for k, v := range values {
			s, _ := v.(string)
			if field == "data" {
				if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
					s = string(raw)
				}
			}
			values[k] = Hash(s)
		}
	}
	if a := out.GetAnnotations(); a[lastApplied] != "" {
		a[lastApplied] = Hash(a[lastApplied])
		out.SetAnnotations(a)
	}
	return out
}

// secretWords are what an environment variable's name holds when its
// value is a secret, compared without case.
var secretWords = []string{"PASSWORD", "PASS", "SECRET", "TOKEN", "KEY", "CREDENTIAL", "AUTH"}

// SecretName says whether an environment variable named name holds a
// secret by its name: it contains PASSWORD, PASS, SECRET, TOKEN, KEY,
// CREDENTIAL or AUTH, whatever the case.
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// secretEnv says whether v holds, in a list under a field env, an
// environment variable ({name, value}) whose name looks secret, and with
// hash replaces each such value by its Hash.
func secretEnv(v any, hash bool) bool {
	found := false
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if list, ok := val.([]any); ok && k == "env" {
				for _, e := range list {
					ev, ok := e.(map[string]any)
					if !ok {
						continue
					}
					name, _ := ev["name"].(string)
					value, isString := ev["value"].(string)
					if !isString || !SecretName(name) || strings.HasPrefix(value, HashPrefix) {
						continue
					}
					found = true
					if !hash {
						return true
					}
					ev["value"] = Hash(value)
				}
			}
			if secretEnv(val, hash) {
				found = true
				if !hash {
					return true
				}
			}
		}
	case []any:
		for _, e := range t {
			if secretEnv(e, hash) {
				found = true
				if !hash {
					return true
				}
			}
		}
	}
	return found
}

// Hash is how a redacted value is kept: HashPrefix and the hex
// HMAC-SHA256 of the value under the run's key. The key is random, made
// once per run (see KeyEnv), and never written anywhere, so a hash found
// in a bundle cannot be matched against a dictionary of likely passwords;
// two equal values still hash equal within a run, which is all the
// judges compare. Hashes of two runs are not comparable.
func Hash(value string) string {
	return hashWith(runKey(), value)
}

func hashWith(key []byte, value string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(value))
	return HashPrefix + hex.EncodeToString(m.Sum(nil))
}

// KeyEnv is the environment variable through which the top process of a
// run (conform, e2e, selftest, explore, upstream, a campaign's index)
// hands its key to the suite processes it starts, in their environment
// only (KeyEnviron). A suite process takes it out of its environment at
// once (TakeKey), so that nothing it starts, the controller under test
// and the cluster among them, inherits it; nothing writes it to a file.
const KeyEnv = "STEADYSTATE_REDACTION_KEY"

// keySize is the key's length in bytes.
const keySize = 32

var redaction struct {
	once sync.Once
	key  []byte
}

// runKey is this process's key: the one TakeKey took, else a random one
// made at the first call.
func runKey() []byte {
	redaction.once.Do(func() {
		k := make([]byte, keySize)
		if _, err := rand.Read(k); err != nil {
			// crypto/rand does not fail on Linux; a run must not
			// hash with a key anyone could know.
			panic(fmt.Sprintf("redaction key: %v", err))
		}
		redaction.key = k
	})
	return redaction.key
}

// KeyEnviron is the KEY=value pair that hands this process's key to a
// suite process it starts: for that child's environment only, never for
// a file or a log.
func KeyEnviron() string {
	return KeyEnv + "=" + hex.EncodeToString(runKey())
}

// TakeKey makes the key this process's parent handed it in KeyEnv this
// process's key, and removes KeyEnv from the environment, so that no
// process this one starts inherits it. Without KeyEnv (a suite run on its
// own is the top of its run) the process makes its own key. Call it
// before anything is hashed: a key handed after a hash was made is
// refused.
func TakeKey() error {
	v, ok := os.LookupEnv(KeyEnv)
	if !ok {
		return nil
	}
	if err := os.Unsetenv(KeyEnv); err != nil {
		return err
	}
	k, err := hex.DecodeString(v)
	if err != nil || len(k) != keySize {
		return fmt.Errorf("%s is not a key of %d bytes in hex: it is the run's redaction key, handed by the process that started this one", KeyEnv, keySize)
	}
	taken := false
	redaction.once.Do(func() { redaction.key, taken = k, true })
	if !taken && !hmac.Equal(redaction.key, k) {
		return errors.New(KeyEnv + " came after this process made its own redaction key: its hashes would not compare with the run's")
	}
	return nil
}
