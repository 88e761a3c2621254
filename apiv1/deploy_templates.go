package apiv1

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
)

// templateStore is the part of the database the deploy_templates routes
// use; Ironic's API writes deploy templates itself.
type templateStore interface {
	ListDeployTemplates(ctx context.Context, o db.ListOpts) ([]models.DeployTemplate, error)
	GetDeployTemplateByUUID(ctx context.Context, uuid string) (*models.DeployTemplate, error)
	GetDeployTemplateByName(ctx context.Context, name string) (*models.DeployTemplate, error)
	CreateDeployTemplate(ctx context.Context, t *models.DeployTemplate) (*models.DeployTemplate, error)
	UpdateDeployTemplate(ctx context.Context, ref db.Ref, values db.Values, steps []models.DeployTemplateStep) (*models.DeployTemplate, error)
	DestroyDeployTemplate(ctx context.Context, id int64) error
}

// deployStepSchemaJSON is utils.py DEPLOY_STEP_SCHEMA; the interfaces are
// conductor/steps.py DEPLOYING_INTERFACE_PRIORITY in its order.
const deployStepSchemaJSON = `{
  "type": "object",
  "properties": {
    "args": {"type": "object"},
    "interface": {"type": "string", "enum": ["power", "management", "deploy", "bios", "raid"]},
    "priority": {"anyOf": [
      {"type": "integer", "minimum": 0},
      {"type": "string", "minLength": 1, "pattern": "^[0-9]+$"}
    ]},
    "step": {"type": "string", "minLength": 1}
  },
  "required": ["interface", "step", "args", "priority"],
  "additionalProperties": false
}`

// templateSchemaJSON is deploy_template.py TEMPLATE_SCHEMA; the name is a
// trait (TRAITS_SCHEMA) and the steps deploy steps.
const templateSchemaJSON = `{
  "type": "object",
  "properties": {
    "description": {"type": ["string", "null"], "maxLength": 255},
    "extra": {"type": ["object", "null"]},
    "name": %TRAIT%,
    "steps": {"type": "array", "items": %STEP%, "minItems": 1},
    "uuid": {"type": ["string", "null"]}
  },
  "required": ["steps", "name"],
  "additionalProperties": false
}`

// templateSchemaProps are TEMPLATE_SCHEMA's properties.
func templateSchemaProps() []string { return []string{"description", "extra", "name", "steps", "uuid"} }

// templatePatchAllowed is PATCH_ALLOWED_FIELDS.
func templatePatchAllowed() []string { return []string{"extra", "name", "steps", "description"} }

// stepSchemaProps are DEPLOY_STEP_SCHEMA's properties.
func stepSchemaProps() []string { return []string{"args", "interface", "priority", "step"} }

const templatesNotAllowed = "The API version does not allow deploy templates"

// templatesAPI serves DeployTemplatesController.
type templatesAPI struct {
	a      *API
	schema *pyschema.Schema
	step   *pyschema.Schema
}

// DeployTemplatesController's parameters (templates page by name).
var (
	templateListArgs   = params(paging(nameArg)...).and(opt("fields", stringListArg), opt("detail", boolArg))
	templateGetArgs    = params(req("template_ident", uuidOrNameArg), opt("fields", stringListArg))
	templateCreateArgs = params(req("template", bodyOf("object"))).takesBody("template")
	templatePatchArgs  = params(req("template_ident", uuidOrNameArg), opt("patch", bodyOf("array"))).takesBody("patch")
	templateDeleteArgs = params(req("template_ident", uuidOrNameArg))
)

// templatesController is DeployTemplatesController (API 1.55; its _route
// is a gate).
func (a *API) templatesController() restController {
	schema := strings.Replace(templateSchemaJSON, "%TRAIT%", traitSchemaJSON, 1)
	schema = strings.Replace(schema, "%STEP%", deployStepSchemaJSON, 1)
	h := &templatesAPI{a: a, schema: pyschema.MustCompile(schema), step: pyschema.MustCompile(deployStepSchemaJSON)}
	return restController{getAll: h.list, getOne: h.get, post: h.create, patch: h.patch, delete: h.delete}
}

// templateView is convert_with_links before sanitizing; steps are the
// template's, or (for a template just created) the ones the request gave.
func templateView(base string, t *models.DeployTemplate, steps []any) pyjson.Object {
	if steps == nil {
		steps = make([]any, 0, len(t.Steps))
		for _, s := range t.Steps {
			steps = append(steps, stepView(s.Interface, s.Step, dictOrEmpty(s.Args), s.Priority))
		}
	}
	return pyjson.Object{
		{Key: "uuid", Value: t.UUID},
		{Key: "created_at", Value: isoTime(t.CreatedAt)},
		{Key: "updated_at", Value: isoTime(t.UpdatedAt)},
		{Key: "name", Value: t.Name},
		{Key: "extra", Value: dictOrEmpty(t.Extra)},
		{Key: "links", Value: selfLinks(base, "deploy_templates", t.UUID)},
		{Key: "steps", Value: steps},
	}
}

func stepView(iface, step string, args, priority any) pyjson.Object {
	return pyjson.Object{
		{Key: "interface", Value: iface},
		{Key: "step", Value: step},
		{Key: "args", Value: args},
		{Key: "priority", Value: priority},
	}
}

// render checks and keeps the requested fields, then masks secrets in the
// steps' arguments (template_sanitize).
func (h *templatesAPI) render(o pyjson.Object, fields []string) (pyjson.Object, error) {
	if fields != nil {
		if err := checkFields(fields, o); err != nil {
			return nil, err
		}
	}
	o = keepFields(o, fields)
	for _, m := range o {
		if m.Key != "steps" {
			continue
		}
		for _, s := range m.Value.([]any) {
			step := s.(pyjson.Object)
			for i, sm := range step {
				if args, ok := sm.Value.(map[string]any); ok && sm.Key == "args" && len(args) > 0 {
					step[i].Value = h.a.masker.MaskDict(args, "******")
				}
			}
		}
	}
	return o, nil
}

// find is get_rpc_deploy_template_with_suffix.
func (h *templatesAPI) find(rq *Request, ident string) (*models.DeployTemplate, error) {
	t, err := h.findOnce(rq.Ctx(), ident)
	if err != nil && rq.jsonSuffix && ironic.IsClass(err, ironic.DeployTemplateNotFound) {
		return h.findOnce(rq.Ctx(), ident+".json")
	}
	return t, err
}

func (h *templatesAPI) findOnce(ctx context.Context, ident string) (*models.DeployTemplate, error) {
	switch {
	case isUUID(ident):
		return h.a.d.Store.GetDeployTemplateByUUID(ctx, ident)
	case isName(ident):
		return h.a.d.Store.GetDeployTemplateByName(ctx, ident)
	}
	return nil, ironic.Errorf(ironic.InvalidUuidOrName, "Expected a logical name or UUID but received %s.", ident)
}

// list is get_all.
func (h *templatesAPI) list(rq *Request) (*Response, error) {
	b, err := templateListArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:deploy_template:get", nil); err != nil {
		return nil, err
	}
	if err := checkNodeFieldsAllowed(rq.Ver, b.list("fields")); err != nil {
		return nil, err
	}
	if err := checkNodeFieldsAllowed(rq.Ver, []string{b.strOr("sort_key", "id")}); err != nil {
		return nil, err
	}
	fields, err := returnFields(rq.Ver, b.list("fields"), b.boolean("detail"), []string{"uuid", "name"})
	if err != nil {
		return nil, err
	}
	pg, err := h.a.page(b)
	if err != nil {
		return nil, err
	}
	opts, err := pg.listOpts(sortKeyFirst, []string{"extra", "steps"}, func(marker string) (int64, error) {
		mk, err := h.a.d.Store.GetDeployTemplateByUUID(ctx, marker)
		if err != nil {
			return 0, err
		}
		return mk.ID, nil
	})
	if err != nil {
		return nil, err
	}
	ts, err := h.a.d.Store.ListDeployTemplates(ctx, opts)
	if err != nil {
		return nil, err
	}
	base := rq.BaseURL()
	items := make([]any, 0, len(ts))
	for i := range ts {
		o, err := h.render(templateView(base, &ts[i], nil), fields)
		if err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	var marker string
	if len(ts) > 0 {
		marker = ts[len(ts)-1].UUID
	}
	next := nextLink(rq, "deploy_templates", len(ts), pg.limit, marker, pg.nextArgs(b.boolean("detail")), fields)
	return OK(collection("deploy_templates", items, next)), nil
}

// get is get_one.
func (h *templatesAPI) get(rq *Request) (*Response, error) {
	b, err := templateGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident, fields := b.ident("template_ident"), b.list("fields")
	if err := h.a.d.Policy.Authorize(rq.Ctx(), "baremetal:deploy_template:get", nil); err != nil {
		return nil, err
	}
	if err := checkNodeFieldsAllowed(rq.Ver, fields); err != nil {
		return nil, err
	}
	t, err := h.find(rq, ident)
	if err != nil {
		return nil, err
	}
	o, err := h.render(templateView(rq.BaseURL(), t, nil), fields)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// duplicateSteps is duplicate_steps: an interface's step may appear once.
func duplicateSteps(steps []any) error {
	type key struct{ iface, step any }
	count := map[key]int{}
	var order []key
	for _, s := range steps {
		m, _ := s.(map[string]any)
		k := key{m["interface"], m["step"]}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	var dups []string
	for _, k := range order {
		if count[k] > 1 {
			dups = append(dups, "interface: "+pyStr(k.iface)+", step: "+pyStr(k.step))
		}
	}
	if len(dups) == 0 {
		return nil
	}
	return ironic.Errorf(ironic.InvalidDeployTemplate,
		"Deploy template invalid: Duplicate deploy steps. A deploy template cannot have multiple deploy steps with the same interface and step. Duplicates: %s.",
		strings.Join(dups, "; "))
}

// validateTemplate is TEMPLATE_VALIDATOR: the schema, duplicate steps and
// the UUID.
func (h *templatesAPI) validateTemplate(doc any, name string) (map[string]any, error) {
	if verr := h.schema.Validate(doc); verr != nil {
		return nil, schemaError(name, verr)
	}
	body, _ := plain(doc).(map[string]any)
	steps, _ := body["steps"].([]any)
	if err := duplicateSteps(steps); err != nil {
		return nil, err
	}
	if _, err := uuidArg("uuid", body["uuid"]); err != nil {
		return nil, err
	}
	return body, nil
}

// stepPriority is a validated priority (an integer, or a string of
// digits) as the database stores it.
func stepPriority(v any) int64 {
	if s, ok := v.(string); ok {
		n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return n
	}
	if n := bodyInt64(v); n != nil {
		return *n
	}
	return 0
}

// modelSteps converts validated steps for the database.
func modelSteps(steps []any) []models.DeployTemplateStep {
	out := make([]models.DeployTemplateStep, 0, len(steps))
	for _, s := range steps {
		m, _ := s.(map[string]any)
		iface, _ := m["interface"].(string)
		step, _ := m["step"].(string)
		out = append(out, models.DeployTemplateStep{Interface: iface, Step: step,
			Args: bodyDict(m["args"]), Priority: stepPriority(m["priority"])})
	}
	return out
}

// create is post. The answer shows the steps as given (a priority sent as
// "5" stays a string), as Ironic's does.
func (h *templatesAPI) create(rq *Request) (*Response, error) {
	b, err := templateCreateArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	body, err := h.validateTemplate(b.body, "template")
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:deploy_template:create", nil); err != nil {
		return nil, err
	}
	steps, _ := body["steps"].([]any)
	t := &models.DeployTemplate{Extra: bodyDict(body["extra"]), Steps: modelSteps(steps)}
	t.Name, _ = body["name"].(string)
	if u, _ := body["uuid"].(string); u != "" {
		t.UUID = u
	} else {
		t.UUID = h.a.d.UUIDs.NewUUID()
	}
	created, err := h.a.d.Store.CreateDeployTemplate(ctx, t)
	if err != nil {
		return nil, err
	}
	given := make([]any, 0, len(steps))
	for _, s := range steps {
		m := s.(map[string]any)
		given = append(given, stepView(m["interface"].(string), m["step"].(string), m["args"], m["priority"]))
	}
	base := rq.BaseURL()
	o, err := h.render(templateView(base, created, given), nil)
	if err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusCreated, Body: o, Location: base + "/v1/deploy_templates/" + created.UUID}, nil
}

// templateDoc is the template's as_dict(); steps carry their row's
// columns, as Ironic's step dicts do.
func templateDoc(t *models.DeployTemplate) map[string]any {
	steps := make([]any, 0, len(t.Steps))
	for _, s := range t.Steps {
		steps = append(steps, map[string]any{
			"id":                 s.ID,
			"deploy_template_id": s.DeployTemplateID,
			"created_at":         isoTime(s.CreatedAt),
			"updated_at":         isoTime(s.UpdatedAt),
			"version":            s.Version,
			"interface":          s.Interface,
			"step":               s.Step,
			"args":               deepCopy(map[string]any(dictOrEmptyMap(s.Args))),
			"priority":           s.Priority,
		})
	}
	return map[string]any{
		"id":         t.ID,
		"uuid":       t.UUID,
		"created_at": isoTime(t.CreatedAt),
		"updated_at": isoTime(t.UpdatedAt),
		"name":       t.Name,
		"extra":      patchDictValue(t.Extra),
		"steps":      steps,
	}
}

func dictOrEmptyMap(d models.JSONDict) map[string]any {
	if d == nil {
		return map[string]any{}
	}
	return d
}

// sameSteps compares steps as the database would store them.
func sameSteps(a, b []models.DeployTemplateStep) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Interface != b[i].Interface || a[i].Step != b[i].Step || a[i].Priority != b[i].Priority ||
			!reflect.DeepEqual(dictOrEmptyMap(a[i].Args), dictOrEmptyMap(b[i].Args)) {
			return false
		}
	}
	return true
}

// patch is DeployTemplatesController.patch.
func (h *templatesAPI) patch(rq *Request) (*Response, error) {
	b, err := templatePatchArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident("template_ident")
	ops, err := h.a.patchOps(b.body)
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:deploy_template:update", nil); err != nil {
		return nil, err
	}
	if err := checkPatchAllowed(ops, templatePatchAllowed()); err != nil {
		return nil, err
	}
	t, err := h.find(rq, ident)
	if err != nil {
		return nil, err
	}
	patched, err := applyPatch(templateDoc(t), ops)
	if err != nil {
		return nil, err
	}
	// Each step is pruned to the step schema and validated, then the
	// template as a whole.
	if steps, ok := patched["steps"].([]any); ok {
		for i, s := range steps {
			if m, ok := s.(map[string]any); ok {
				s = pruneToSchema(m, stepSchemaProps())
				steps[i] = s
			}
			if verr := h.step.Validate(s); verr != nil {
				return nil, schemaError("patch", verr)
			}
		}
	}
	body, err := h.validateTemplate(pruneToSchema(patched, templateSchemaProps()), "patch")
	if err != nil {
		return nil, err
	}
	values := db.Values{}
	if u, _ := body["uuid"].(string); u != t.UUID {
		values["uuid"] = body["uuid"]
	}
	if name, _ := body["name"].(string); name != t.Name {
		values["name"] = name
	}
	if !reflect.DeepEqual(body["extra"], patchDictValue(t.Extra)) {
		values["extra"] = body["extra"]
	}
	var steps []models.DeployTemplateStep
	if list, _ := body["steps"].([]any); list != nil {
		if s := modelSteps(list); !sameSteps(s, t.Steps) {
			steps = s
		}
	}
	updated, err := h.a.d.Store.UpdateDeployTemplate(ctx, db.ByUUID(t.UUID), values, steps)
	if err != nil {
		return nil, err
	}
	o, err := h.render(templateView(rq.BaseURL(), updated, nil), nil)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// delete is DeployTemplatesController.delete.
func (h *templatesAPI) delete(rq *Request) (*Response, error) {
	b, err := templateDeleteArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident("template_ident")
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:deploy_template:delete", nil); err != nil {
		return nil, err
	}
	t, err := h.find(rq, ident)
	if err != nil {
		return nil, err
	}
	if err := h.a.d.Store.DestroyDeployTemplate(ctx, t.ID); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}
