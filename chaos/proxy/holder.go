package proxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"slices"
)

// maxHolderBody bounds how much of a Lease write's answer the proxy keeps
// to read the holder from; a Lease is a few hundred bytes.
const maxHolderBody = 64 << 10

// isLeaseWrite reports whether the request writes a coordination Lease:
// the election traffic whose answers tell which holder identity a replica
// uses.
func isLeaseWrite(info RequestInfo) bool {
	return info.Group == "coordination.k8s.io" && info.Resource == "leases" && info.Subresource == "" &&
		slices.Contains([]string{"create", "update", "patch"}, info.Verb)
}

// bodyTap keeps the first maxHolderBody bytes written through it.
type bodyTap struct {
	buf bytes.Buffer
}

func (t *bodyTap) keep(b []byte) {
	if room := maxHolderBody - t.buf.Len(); room > 0 {
		t.buf.Write(b[:min(len(b), room)])
	}
}

// statusMessage reads the message of the API server's Status answering a
// refused request, JSON or protobuf, gzip-compressed or not; "" when the
// body is no Status.
func statusMessage(h http.Header, body []byte) string {
	body = gunzipped(h, body)
	if bytes.HasPrefix(body, protobufMagic) {
		if meta, err := protobufMeta(body); err == nil && meta.Kind == "Status" {
			return meta.Message
		}
		return ""
	}
	var status struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &status) != nil || status.Kind != "Status" {
		return ""
	}
	return status.Message
}

// gunzipped is body decompressed when h says it is gzip-compressed, nil
// when it does not decompress.
func gunzipped(h http.Header, body []byte) []byte {
	if h.Get("Content-Encoding") != "gzip" {
		return body
	}
	r, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	out, err := io.ReadAll(io.LimitReader(r, maxHolderBody))
	if err != nil {
		return nil
	}
	return out
}

// leaseHolder reads spec.holderIdentity from the API server's answer to a
// Lease write, JSON or protobuf, gzip-compressed or not; "" when the body
// is not a Lease or holds no holder (a released Lease).
func leaseHolder(h http.Header, body []byte) string {
	body = gunzipped(h, body)
	if bytes.HasPrefix(body, protobufMagic) {
		return protobufLeaseHolder(body)
	}
	var lease struct {
		Kind string `json:"kind"`
		Spec struct {
			HolderIdentity string `json:"holderIdentity"`
		} `json:"spec"`
	}
	if json.Unmarshal(body, &lease) != nil || lease.Kind != "Lease" {
		return ""
	}
	return lease.Spec.HolderIdentity
}

// protobufLeaseHolder reads Lease.spec (field 2).holderIdentity (field 1).
func protobufLeaseHolder(raw []byte) string {
	kind, obj, ok := protobufObject(raw)
	if !ok || kind != "Lease" {
		return ""
	}
	return string(protoFields(protoFields(obj)[2].bytes)[1].bytes)
}

// answeredObject reads the name and uid of the object answering a write,
// JSON or protobuf, gzip-compressed or not, from the start of the body
// the proxy kept (an object's metadata comes first); nil when it holds
// none.
func answeredObject(h http.Header, body []byte) *ObjectRef {
	body = gunzipped(h, body)
	if bytes.HasPrefix(body, protobufMagic) {
		kind, obj, ok := protobufObject(body)
		if !ok || kind == "Status" {
			return nil
		}
		// ObjectMeta (field 1): name=1, uid=5.
		om := protoFields(protoFields(obj)[1].bytes)
		if name := string(om[1].bytes); name != "" {
			return &ObjectRef{Name: name, UID: string(om[5].bytes)}
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "metadata" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		var md struct {
			Name string `json:"name"`
			UID  string `json:"uid"`
		}
		if dec.Decode(&md) != nil || md.Name == "" {
			return nil
		}
		return &ObjectRef{Name: md.Name, UID: md.UID}
	}
	return nil
}
