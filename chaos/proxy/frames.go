package proxy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// EventMeta is what the proxy reads of one watch event.
type EventMeta struct {
	Type            string `json:"type"`
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Code, Reason and Message are set for ERROR events carrying a Status.
	Code    int32  `json:"code,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// frame is one watch event as it travels on the wire, ready to be written
// again unchanged.
type frame struct {
	raw  []byte
	meta EventMeta
	// initial says the frame is one of a watch-list's initial events
	// (sendInitialEvents), up to and with the bookmark that ends them:
	// the list an informer replaces its store with.
	initial bool
}

// initialEventsEnd is the annotation of the bookmark that ends a
// watch-list's initial events, as it reads in either encoding.
var initialEventsEnd = []byte(metav1.InitialEventsAnnotationKey)

// endsInitialEvents reports whether f is the bookmark that ends a
// watch-list's initial events.
func (f frame) endsInitialEvents() bool {
	return f.meta.Type == "BOOKMARK" && bytes.Contains(f.raw, initialEventsEnd)
}

// frameReader splits a watch response body into events.
type frameReader interface {
	next() (frame, error)
}

// Media types of watch streams the proxy can read event by event. A watch
// answered in any other (CBOR) is refused (RefusedEncoding).
const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// RefusedEncoding is the Fault of a watch the proxy refused with 406
// because it could not read its events.
const RefusedEncoding = "refused-encoding"

// readable reports whether the proxy reads watch events of this type.
func readable(contentType string) bool {
	mt := mediaType(contentType)
	return mt == mediaJSON || mt == mediaProtobuf
}

func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return contentType
	}
	return mt
}

// newFrameReader reads a stream of a readable type (see readable).
func newFrameReader(body io.Reader, contentType string) frameReader {
	if mediaType(contentType) == mediaProtobuf {
		return &protobufFrames{r: bufio.NewReaderSize(body, 64<<10)}
	}
	return &jsonFrames{dec: json.NewDecoder(body)}
}

type jsonFrames struct{ dec *json.Decoder }

// jsonEvent is the part of a JSON watch event the proxy reads.
type jsonEvent struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name            string `json:"name"`
			Namespace       string `json:"namespace"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Code    int32  `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"object"`
}

func (j *jsonFrames) next() (frame, error) {
	var raw json.RawMessage
	if err := j.dec.Decode(&raw); err != nil {
		return frame{}, err
	}
	var ev jsonEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return frame{}, fmt.Errorf("watch event does not parse: %w", err)
	}
	o := ev.Object
	meta := EventMeta{Type: ev.Type, Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, ResourceVersion: o.Metadata.ResourceVersion}
	if o.Kind == "Status" {
		meta.Code, meta.Reason, meta.Message = o.Code, o.Reason, o.Message
	}
	return frame{raw: append(raw, '\n'), meta: meta}, nil
}

// protobufFrames reads length-prefixed metav1.WatchEvent messages.
type protobufFrames struct{ r *bufio.Reader }

// maxFrame bounds one event, as the API server's own decoder does.
const maxFrame = 16 << 20

func (p *protobufFrames) next() (frame, error) {
	var size [4]byte
	if _, err := io.ReadFull(p.r, size[:]); err != nil {
		return frame{}, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > maxFrame {
		return frame{}, fmt.Errorf("watch event of %d bytes is larger than %d", n, maxFrame)
	}
	raw := make([]byte, 4+n)
	copy(raw, size[:])
	if _, err := io.ReadFull(p.r, raw[4:]); err != nil {
		return frame{}, unexpected(err)
	}
	var ev metav1.WatchEvent
	if err := ev.Unmarshal(raw[4:]); err != nil {
		return frame{}, fmt.Errorf("watch event does not parse: %w", err)
	}
	meta, err := protobufMeta(ev.Object.Raw)
	if err != nil {
		return frame{}, err
	}
	meta.Type = ev.Type
	return frame{raw: raw, meta: meta}, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// errorEvent encodes a watch ERROR event carrying status in the stream's
// media type, exactly as the API server frames it.
func errorEvent(contentType string, status *metav1.Status) ([]byte, error) {
	status.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	switch mediaType(contentType) {
	case mediaProtobuf:
		obj, err := runtime.Encode(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), status)
		if err != nil {
			return nil, err
		}
		ev := metav1.WatchEvent{Type: "ERROR", Object: runtime.RawExtension{Raw: obj}}
		body, err := ev.Marshal()
		if err != nil {
			return nil, err
		}
		out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
		return append(out, body...), nil
	default:
		body, err := json.Marshal(struct {
			Type   string         `json:"type"`
			Object *metav1.Status `json:"object"`
		}{"ERROR", status})
		return append(body, '\n'), err
	}
}
