package redfish

import (
	"context"
	"strings"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// registry is one registry the BMC publishes (a message or attribute
// registry document).
type registry struct {
	identity, language string
	doc                *pyjson.Dict
}

// registries is sushy's Sushy.registries, read once per connection (as
// sushy caches it on its root object): each file of the service root's
// Registries collection is loaded as a message registry or, failing that,
// as an attribute registry, and kept under its Registry name and its Id.
// The packaged standard message registries that sushy adds need no
// request and serve no purpose here.
func (b *bmc) registries(ctx context.Context) (map[string]*registry, []string, error) {
	b.regMu.Lock()
	defer b.regMu.Unlock()
	if b.regs != nil {
		return b.regs, b.regOrder, nil
	}
	regs, order := map[string]*registry{}, []string{}
	coll, _ := field(b.root, "Registries", "@odata.id")
	if p, ok := coll.(string); ok && p != "" {
		r, err := b.get(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range members(r.dict()) {
			f, err := b.get(ctx, m)
			if err != nil {
				return nil, nil, err
			}
			file := f.dict()
			if err := require(m, file, "Id", "Name", "Languages", "Location"); err != nil {
				return nil, nil, err
			}
			reg := b.loadRegistry(ctx, file, "MessageRegistry")
			if reg == nil {
				reg = b.loadRegistry(ctx, file, "AttributeRegistry")
			}
			if reg == nil {
				continue
			}
			name := "UNKNOWN.0.0"
			if v, ok := file.Lookup("Registry"); ok {
				name = pyStrOf(v)
			}
			add := func(k string, overwrite bool) {
				if _, ok := regs[k]; ok && !overwrite {
					return
				}
				if _, ok := regs[k]; !ok {
					order = append(order, k)
				}
				regs[k] = reg
			}
			add(name, true)
			add(str(file, "Id"), false)
		}
	}
	b.regs, b.regOrder = regs, order
	return regs, order, nil
}

// loadRegistry is MessageRegistryFile._get_registry: the file's English
// (then default) locations tried in order; the first location whose
// document is of another type ends the search.
func (b *bmc) loadRegistry(ctx context.Context, file *pyjson.Dict, requested string) *registry {
	locs, _ := file.Get("Location").([]any)
	var en, def []*pyjson.Dict
	for _, l := range locs {
		d, ok := pyjson.AsDict(l)
		if !ok {
			continue
		}
		switch strings.ToLower(str(d, "Language")) {
		case "en":
			en = append(en, d)
		case "default":
			def = append(def, d)
		}
	}
	for _, l := range append(en, def...) {
		uri := str(l, "Uri")
		if uri == "" {
			// Archives and publications on the Internet are not read.
			b.log.WarnContext(ctx, "Incomplete location for language en")
			continue
		}
		r, err := b.get(ctx, uri)
		if err != nil {
			b.log.WarnContext(ctx, "Cannot load registry type from location", "location", uri, "error", err)
			continue
		}
		typ, ok := r.dict().Get("@odata.type").(string)
		if !ok {
			b.log.WarnContext(ctx, "Cannot load registry type from location", "location", uri)
			continue
		}
		if !strings.HasSuffix(typ, requested) {
			return nil
		}
		r, err = b.get(ctx, uri)
		if err != nil {
			b.log.WarnContext(ctx, "Cannot load registry", "type", requested, "location", uri, "error", err)
			continue
		}
		d := r.dict()
		return &registry{identity: str(d, "Id"), language: str(d, "Language"), doc: d}
	}
	return nil
}

// attributeRegistry is Bios.get_attribute_registry: the registry named by
// the Bios' AttributeRegistry, in English.
func attributeRegistry(ctx context.Context, b *bmc, bios *pyjson.Dict) (*registry, error) {
	name, _ := bios.Get("AttributeRegistry").(string)
	regs, order, err := b.registries(ctx)
	if err != nil {
		return nil, err
	}
	for _, k := range order {
		r := regs[k]
		if name == k || name == r.identity {
			if r.language != "en" {
				continue
			}
			return r, nil
		}
	}
	return nil, nil
}

// withRegistryFields adds to each setting the fields of its entry in the
// attribute registry, as cache_bios_settings does.
func withRegistryFields(settings []drivers.BIOSSetting, reg *registry) {
	entries, _ := mustField(reg.doc, "RegistryEntries", "Attributes").([]any)
	byName := map[string]*pyjson.Dict{}
	for _, e := range entries {
		d, ok := pyjson.AsDict(e)
		if !ok {
			continue
		}
		if n, ok := d.Get("AttributeName").(string); ok {
			if _, seen := byName[n]; !seen {
				byName[n] = d
			}
		}
	}
	optInt := func(v any) *int64 {
		if n, ok := pyNumber(v); ok {
			i := int64(n)
			return &i
		}
		return nil
	}
	optBool := func(d *pyjson.Dict, k string) *bool {
		v, ok := d.Lookup(k)
		if !ok || v == nil {
			return nil
		}
		b := pyjson.Truthy(v)
		return &b
	}
	for i := range settings {
		e, ok := byName[settings[i].Name]
		if !ok {
			continue
		}
		s := &settings[i]
		if t, ok := e.Get("Type").(string); ok {
			s.AttributeType = &t
		}
		if vals, ok := e.Get("Value").([]any); ok {
			s.AllowableValues = []string{}
			for _, v := range vals {
				d, ok := pyjson.AsDict(v)
				if !ok {
					continue
				}
				key := d.Get("ValueName")
				if !pyjson.Truthy(key) {
					key = d.Get("ValueDisplayName")
				}
				if pyjson.Truthy(key) {
					s.AllowableValues = append(s.AllowableValues, pyStrOf(key))
				}
			}
		}
		s.LowerBound, s.UpperBound = optInt(e.Get("LowerBound")), optInt(e.Get("UpperBound"))
		s.MaxLength, s.MinLength = optInt(e.Get("MaxLength")), optInt(e.Get("MinLength"))
		s.ReadOnly, s.ResetRequired, s.Unique = optBool(e, "ReadOnly"), optBool(e, "ResetRequired"), optBool(e, "IsSystemUniqueProperty")
	}
}
