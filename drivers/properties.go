package drivers

import "github.com/goironic/ironic/internal/pyjson"

// Property is one driver_info key an implementation reads, with the text
// GET /v1/drivers/{name}/properties shows for it.
type Property struct {
	Name        string
	Description string
}

// Properties is an ordered list of properties, as a Python dict built in
// that order.
type Properties []Property

// Get returns the description of the property name.
func (p Properties) Get(name string) (string, bool) {
	for _, x := range p {
		if x.Name == name {
			return x.Description, true
		}
	}
	return "", false
}

// Update merges q into p like Python's dict.update: a key already present
// keeps its place and takes q's description, new keys are appended in q's
// order. p is not modified.
func (p Properties) Update(q Properties) Properties {
	out := make(Properties, len(p), len(p)+len(q))
	copy(out, p)
	for _, x := range q {
		found := false
		for i := range out {
			if out[i].Name == x.Name {
				out[i].Description = x.Description
				found = true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

// Object renders the properties as a JSON object in their order.
func (p Properties) Object() pyjson.Object {
	o := make(pyjson.Object, len(p))
	for i, x := range p {
		o[i] = pyjson.Member{Key: x.Name, Value: x.Description}
	}
	return o
}

// Concat joins property lists with Update semantics.
func Concat(lists ...Properties) Properties {
	var out Properties
	for _, l := range lists {
		out = out.Update(l)
	}
	return out
}
