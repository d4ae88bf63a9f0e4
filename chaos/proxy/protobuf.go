package proxy

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/runtime"
)

// protobufMagic starts every Kubernetes protobuf object.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// protobufMeta reads kind, name, namespace and resourceVersion (and a
// Status's code, reason and message) from an encoded object without knowing
// its Go type: every Kubernetes object keeps its ObjectMeta in field 1.
func protobufMeta(raw []byte) (EventMeta, error) {
	if !bytes.HasPrefix(raw, protobufMagic) {
		return EventMeta{}, fmt.Errorf("watch event object lacks the protobuf envelope")
	}
	kind, obj, ok := protobufObject(raw)
	if !ok {
		return EventMeta{}, fmt.Errorf("watch event object does not parse")
	}
	meta := EventMeta{Kind: kind}
	fields := protoFields(obj)
	if kind == "Status" {
		// Status: metadata=1 (ListMeta), message=3, reason=4, code=6.
		meta.Message = string(fields[3].bytes)
		meta.Reason = string(fields[4].bytes)
		meta.Code = int32(fields[6].varint)
		meta.ResourceVersion = string(protoFields(fields[1].bytes)[2].bytes)
		return meta, nil
	}
	// ObjectMeta: name=1, namespace=3, resourceVersion=6.
	om := protoFields(fields[1].bytes)
	meta.Name = string(om[1].bytes)
	meta.Namespace = string(om[3].bytes)
	meta.ResourceVersion = string(om[6].bytes)
	return meta, nil
}

// protobufObject unwraps the envelope of an encoded object: its kind and
// its fields' bytes.
func protobufObject(raw []byte) (kind string, obj []byte, ok bool) {
	if !bytes.HasPrefix(raw, protobufMagic) {
		return "", nil, false
	}
	var u runtime.Unknown
	if err := u.Unmarshal(raw[len(protobufMagic):]); err != nil {
		return "", nil, false
	}
	return u.Kind, u.Raw, true
}

type protoField struct {
	bytes  []byte
	varint uint64
}

// protoFields indexes the first occurrence of each field number. Malformed
// input yields the fields read so far.
func protoFields(b []byte) map[protowire.Number]protoField {
	out := map[protowire.Number]protoField{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return out
		}
		b = b[n:]
		var f protoField
		switch typ {
		case protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return out
			}
			f.bytes, n = v, m
		case protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return out
			}
			f.varint, n = v, m
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return out
			}
		}
		if _, seen := out[num]; !seen {
			out[num] = f
		}
		b = b[n:]
	}
	return out
}
