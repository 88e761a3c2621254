package objects

import (
	"errors"
	"strings"
	"time"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
)

// NodeAsDict is node.as_dict(): every field of the Node object, in its
// field order, datetimes as oslo's to_primitive writes them
// ("%Y-%m-%dT%H:%M:%S.%f") and traits as {"objects": [{"trait": ...,
// ...}]}. Nothing is masked (as_dict(secure=True) is the caller's job).
func NodeAsDict(n *models.Node) (pyjson.Object, error) {
	raw, err := AppendNode(nil, n, nil)
	if err != nil {
		return nil, err
	}
	fields, err := primitiveData(raw)
	if err != nil {
		return nil, err
	}
	for i, f := range fields {
		if x, ok := f.Value.(pyjson.Object); ok && f.Key == "traits" {
			fields[i].Value = pyjson.Object{{Key: "objects", Value: traitDicts(x)}}
		}
	}
	return fields, nil
}

// traitDicts are the data of the Trait primitives of a TraitList
// primitive.
func traitDicts(list pyjson.Object) []any {
	d, _ := list.Get("ironic_object.data")
	do, _ := d.(pyjson.Object)
	objs, _ := do.Get("objects")
	items, _ := objs.([]any)
	out := make([]any, 0, len(items))
	for _, it := range items {
		if o, ok := it.(pyjson.Object); ok {
			td, _ := o.Get("ironic_object.data")
			out = append(out, td)
		}
	}
	return out
}

// PortAsDict is port.as_dict(): every field of the Port object, in its
// field order, node_uuid being nodeUUID, datetimes as in NodeAsDict.
func PortAsDict(p *models.Port, nodeUUID string) (pyjson.Object, error) {
	raw, err := AppendPort(nil, p, nodeUUID)
	if err != nil {
		return nil, err
	}
	return primitiveData(raw)
}

// primitiveData is the "ironic_object.data" of a primitive, with
// datetimes as to_primitive writes them.
func primitiveData(raw []byte) (pyjson.Object, error) {
	v, err := pyjson.DecodeOrdered(raw)
	if err != nil {
		return nil, err
	}
	obj, _ := v.(pyjson.Object)
	data, _ := obj.Get("ironic_object.data")
	fields, ok := data.(pyjson.Object)
	if !ok {
		return nil, errors.New("objects: primitive without data")
	}
	for i, f := range fields {
		if x, ok := f.Value.(string); ok && strings.HasSuffix(f.Key, "_at") {
			if tm, err := time.Parse(TimeFormat, x); err == nil {
				fields[i].Value = tm.Format("2006-01-02T15:04:05.000000")
			}
		}
	}
	return fields, nil
}
