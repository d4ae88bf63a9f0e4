package proxy

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestLeaseWritesRecordTheHolder: a replica's own election identity is
// learned from the API server's answers to its Lease writes, in either
// wire format; reads, releases and failed writes name no holder.
func TestLeaseWritesRecordTheHolder(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		name := map[bool]string{false: "json", true: "protobuf"}[protobuf]
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, cluster(t))
			leases := kubernetes.NewForConfigOrDie(e.victimConfig(protobuf)).CoordinationV1().Leases(e.ns)
			l, err := leases.Create(t.Context(), &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: "election"},
				Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To("host_1234-abcd")},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := leases.Create(t.Context(), l, metav1.CreateOptions{}); err == nil {
				t.Fatal("a second create of the same Lease succeeded")
			}
			l.Spec.HolderIdentity = ptr.To("host_5678-ef01")
			if _, err := leases.Update(t.Context(), l, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := leases.Get(t.Context(), "election", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := leases.Patch(t.Context(), "election", types.MergePatchType, []byte(`{"spec":{"holderIdentity":""}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range e.proxy.Requests() {
				if r.Resource == "leases" {
					got = append(got, r.Verb+":"+r.Holder)
				}
			}
			want := []string{"create:host_1234-abcd", "create:", "update:host_5678-ef01", "get:", "patch:"}
			if !slices.Equal(got, want) {
				t.Errorf("recorded %q, want %q", got, want)
			}
		})
	}
}

// gzipped is data compressed with gzip.
func gzipped(t *testing.T, data string) []byte {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if _, err := z.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestLeaseHolderReadsGzippedAnswers(t *testing.T) {
	gz := gzipped(t, `{"kind":"Lease","spec":{"holderIdentity":"x_1"}}`)
	h := http.Header{"Content-Encoding": {"gzip"}}
	if got := leaseHolder(h, gz); got != "x_1" {
		t.Errorf("holder = %q, want x_1", got)
	}
	if got := leaseHolder(http.Header{}, []byte(`{"kind":"Status","spec":{"holderIdentity":"x_1"}}`)); got != "" {
		t.Errorf("a Status named holder %q", got)
	}
}

// TestStatusMessageReadsRefusals: the message of a Status answer is read
// in either wire format, compressed or not; a body that is no Status
// gives none.
func TestStatusMessageReadsRefusals(t *testing.T) {
	const msg = `Cluster.cluster.x-k8s.io "c" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"f"}`
	status := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Message: msg, Reason: metav1.StatusReasonInvalid, Code: 422}
	raw, err := status.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{Kind: "Status", APIVersion: "v1"}, Raw: raw}
	env, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	gz := gzipped(t, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"`+strings.ReplaceAll(msg, `"`, `\"`)+`","code":422}`)
	for _, tc := range []struct {
		name string
		h    http.Header
		body []byte
		want string
	}{
		{"json", http.Header{}, []byte(`{"kind":"Status","message":"widgets.example.com \"w\" is invalid: spec.size: Invalid value: -1","code":422}`), `widgets.example.com "w" is invalid: spec.size: Invalid value: -1`},
		{"gzip", http.Header{"Content-Encoding": {"gzip"}}, gz, msg},
		{"protobuf", http.Header{}, append(append([]byte{}, protobufMagic...), env...), msg},
		{"not a status", http.Header{}, []byte(`{"kind":"Lease","message":"x"}`), ""},
		{"not json", http.Header{}, []byte(`upstream connect error`), ""},
	} {
		if got := statusMessage(tc.h, tc.body); got != tc.want {
			t.Errorf("%s: message %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRefusedWritesRecordTheMessage: through the proxy, the API server's
// refusal of a write keeps its message; a write it answered does not.
func TestRefusedWritesRecordTheMessage(t *testing.T) {
	e := newEnv(t, cluster(t))
	cms := kubernetes.NewForConfigOrDie(e.victimConfig(false)).CoreV1().ConfigMaps(e.ns)
	if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fine"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Not_A_Name"}}, metav1.CreateOptions{}); err == nil {
		t.Fatal("an invalid name was accepted")
	}
	var got []string
	for _, r := range e.proxy.Requests() {
		if r.Resource == "configmaps" && r.Verb == "create" {
			got = append(got, fmt.Sprintf("%d:%s", r.Code, r.Message))
		}
	}
	if len(got) != 2 || got[0] != "201:" || !strings.HasPrefix(got[1], `422:ConfigMap "Not_A_Name" is invalid: metadata.name: Invalid value`) {
		t.Errorf("recorded %q, want a 201 without a message and the 422's message", got)
	}
}

// TestAnsweredObjectReadsNameAndUID: the name and uid of the object
// answering a write are read from the start of its body, in either wire
// format, compressed or not, and from a body cut after its metadata; a
// Status or a body that is no object gives none.
func TestAnsweredObjectReadsNameAndUID(t *testing.T) {
	cm := corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "w-abcde", GenerateName: "w-", UID: "u-1"}, Data: map[string]string{"k": strings.Repeat("v", 1000)}}
	raw, err := cm.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, Raw: raw}
	env, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	full := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"w-abcde","generateName":"w-","uid":"u-1","labels":{"a":"b"}},"data":{"k":"` + strings.Repeat("v", 1000) + `"}}`
	gz := gzipped(t, full)
	want := &ObjectRef{Name: "w-abcde", UID: "u-1"}
	for _, tc := range []struct {
		name string
		h    http.Header
		body []byte
		want *ObjectRef
	}{
		{"json", http.Header{}, []byte(full), want},
		{"json cut after its metadata", http.Header{}, []byte(full[:len(full)-900]), want},
		{"gzip", http.Header{"Content-Encoding": {"gzip"}}, gz, want},
		{"protobuf", http.Header{}, append(append([]byte{}, protobufMagic...), env...), want},
		{"status", http.Header{}, []byte(`{"kind":"Status","metadata":{},"message":"x","code":409}`), nil},
		{"not json", http.Header{}, []byte(`upstream connect error`), nil},
	} {
		got := answeredObject(tc.h, tc.body)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestWritesRecordTheObjectWritten: through the proxy, a create records
// the name (a generated one too) and uid of the object made, in either
// wire format; a server-side apply that makes an object is a patch
// answered 201, one that changes it a 200, both with the object; a
// refused write names none.
func TestWritesRecordTheObjectWritten(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		name := map[bool]string{false: "json", true: "protobuf"}[protobuf]
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, cluster(t))
			cms := kubernetes.NewForConfigOrDie(e.victimConfig(protobuf)).CoreV1().ConfigMaps(e.ns)
			made, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: made.Name}}, metav1.CreateOptions{}); err == nil {
				t.Fatal("a second create of the same name succeeded")
			}
			apply := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"a":"1"}}`)
			opts := metav1.PatchOptions{FieldManager: "test"}
			applied, err := cms.Patch(t.Context(), "applied", types.ApplyPatchType, apply, opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cms.Patch(t.Context(), "applied", types.ApplyPatchType, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"a":"2"}}`), opts); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range e.proxy.Requests() {
				if r.Resource == "configmaps" && r.IsWrite() {
					got = append(got, fmt.Sprintf("%s %d %v %s", r.Verb, r.Code, r.Created(), r.ObjectName()))
					if r.Code < 300 && (r.Object == nil || r.Object.UID == "") {
						t.Errorf("%s answered %d recorded no uid", r.Verb, r.Code)
					}
				}
			}
			want := []string{"create 201 true " + made.Name, "create 409 false ", "patch 201 true applied", "patch 200 false applied"}
			if !slices.Equal(got, want) {
				t.Errorf("recorded %q, want %q", got, want)
			}
			for _, r := range e.proxy.Requests() {
				if r.Created() && r.Object != nil && r.Object.Name == "applied" && r.Object.UID != string(applied.UID) {
					t.Errorf("the apply recorded uid %q, want %q", r.Object.UID, applied.UID)
				}
			}
		})
	}
}
