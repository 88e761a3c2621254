package db

import (
	"cmp"
	"context"
	"slices"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// loadSteps fills the Steps of templates (one query per 500 templates).
func (s *Store) loadSteps(ctx context.Context, db querier, ts []models.DeployTemplate) error {
	if len(ts) == 0 {
		return nil
	}
	pos := make(map[int64]int, len(ts))
	ids := make([]any, len(ts))
	for i := range ts {
		ts[i].Steps = []models.DeployTemplateStep{}
		pos[ts[i].ID] = i
		ids[i] = ts[i].ID
	}
	for start := 0; start < len(ids); start += 500 {
		part := ids[start:min(start+500, len(ids))]
		steps, err := selectWhere(ctx, db, s.t.steps, "`deploy_template_steps`.`deploy_template_id` IN ("+placeholders(len(part))+
			") ORDER BY `deploy_template_steps`.`id`", part...)
		if err != nil {
			return err
		}
		for _, st := range steps {
			if i, ok := pos[st.DeployTemplateID]; ok {
				ts[i].Steps = append(ts[i].Steps, st)
			}
		}
	}
	return nil
}

// ListDeployTemplates returns a page of deploy templates with their steps.
func (s *Store) ListDeployTemplates(ctx context.Context, o ListOpts) ([]models.DeployTemplate, error) {
	ts, err := listAll(ctx, s.db, s.t.templates, query{}, o)
	if err != nil {
		return nil, err
	}
	return ts, s.loadSteps(ctx, s.db, ts)
}

// ListDeployTemplatesByNames returns the templates with these names (any
// order) with their steps.
func (s *Store) ListDeployTemplatesByNames(ctx context.Context, names []string) ([]models.DeployTemplate, error) {
	if len(names) == 0 {
		return []models.DeployTemplate{}, nil
	}
	ts, err := selectWhere(ctx, s.db, s.t.templates, "`deploy_templates`.`name` IN ("+placeholders(len(names))+") ORDER BY `deploy_templates`.`id`",
		anySlice(names)...)
	if err != nil {
		return nil, err
	}
	return ts, s.loadSteps(ctx, s.db, ts)
}

func (s *Store) getTemplate(ctx context.Context, db querier, where string, arg, ident any) (*models.DeployTemplate, error) {
	t, ok, err := selectOne(ctx, db, s.t.templates, where, "", arg)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFound(ironic.DeployTemplateNotFound, "Deploy template %s could not be found.", ident)
	}
	one := []models.DeployTemplate{*t}
	if err := s.loadSteps(ctx, db, one); err != nil {
		return nil, err
	}
	return &one[0], nil
}

// GetDeployTemplateByID returns a template with its steps
// (DeployTemplateNotFound).
func (s *Store) GetDeployTemplateByID(ctx context.Context, id int64) (*models.DeployTemplate, error) {
	return s.getTemplate(ctx, s.db, "`deploy_templates`.`id` = ?", id, id)
}

// GetDeployTemplateByUUID returns a template by UUID
// (DeployTemplateNotFound).
func (s *Store) GetDeployTemplateByUUID(ctx context.Context, uuid string) (*models.DeployTemplate, error) {
	return s.getTemplate(ctx, s.db, "`deploy_templates`.`uuid` = ?", uuid, uuid)
}

// GetDeployTemplateByName returns a template by name
// (DeployTemplateNotFound).
func (s *Store) GetDeployTemplateByName(ctx context.Context, name string) (*models.DeployTemplate, error) {
	return s.getTemplate(ctx, s.db, "`deploy_templates`.`name` = ?", name, name)
}

// CreateDeployTemplate inserts a template and its steps (UUID generated
// when empty). Errors: DeployTemplateDuplicateName,
// DeployTemplateAlreadyExists.
func (s *Store) CreateDeployTemplate(ctx context.Context, t *models.DeployTemplate) (*models.DeployTemplate, error) {
	c := *t
	if c.UUID == "" {
		c.UUID = s.uuids.NewUUID()
	}
	now := models.NewTime(s.now())
	if !c.CreatedAt.Valid() {
		c.CreatedAt = now
	}
	c.Version = models.DeployTemplateVersion
	nilDicts(&c.Extra)
	err := s.write(ctx, func(tx *txn) error {
		if err := insertRow(ctx, tx, s.t.templates, &c); err != nil {
			return err
		}
		steps, err := s.insertSteps(ctx, tx, c.ID, t.Steps, now)
		c.Steps = steps
		return err
	})
	if cols, dup := uniqueViolation(err); dup {
		if hasCol(cols, "name") {
			return nil, ironic.Errorf(ironic.DeployTemplateDuplicateName, "A deploy template with name %s already exists.", c.Name)
		}
		return nil, ironic.Errorf(ironic.DeployTemplateAlreadyExists, "A deploy template with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (s *Store) insertSteps(ctx context.Context, tx *txn, templateID int64, steps []models.DeployTemplateStep, now models.Time) ([]models.DeployTemplateStep, error) {
	out := make([]models.DeployTemplateStep, 0, len(steps))
	for _, st := range steps {
		r := st
		r.ID = 0
		r.DeployTemplateID = templateID
		r.CreatedAt, r.UpdatedAt = now, models.Time{}
		nilDicts(&r.Args)
		if err := insertRow(ctx, tx, s.t.steps, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// stepKey is Ironic's _step_key: interface, step, args (JSON with sorted
// keys), priority.
type stepKey struct {
	iface, step, args string
	priority          int64
}

func keyOf(st *models.DeployTemplateStep) stepKey {
	a, _ := st.Args.Value()
	return stepKey{st.Interface, st.Step, a.(string), st.Priority}
}

func compareStepKeys(a, b stepKey) int {
	return cmp.Or(cmp.Compare(a.iface, b.iface), cmp.Compare(a.step, b.step), cmp.Compare(a.args, b.args), cmp.Compare(a.priority, b.priority))
}

// UpdateDeployTemplate updates columns of a template and, when steps is
// not nil, makes its steps equal to steps: unchanged steps keep their
// rows, others are deleted or created (Ironic's _zip_matching). An empty
// non-nil steps removes all steps. Errors: InvalidParameterValue (uuid),
// DeployTemplateNotFound, DeployTemplateDuplicateName.
func (s *Store) UpdateDeployTemplate(ctx context.Context, ref Ref, values Values, steps []models.DeployTemplateStep) (*models.DeployTemplate, error) {
	if _, ok := values["uuid"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing deploy template.")
	}
	vals := withVersion(values, models.DeployTemplateVersion)
	var out *models.DeployTemplate
	err := s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("deploy_templates")
		cur, ok, err := selectOne(ctx, tx, s.t.templates, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.DeployTemplateNotFound, "Deploy template %s could not be found.", ref)
		}
		now := s.now()
		if _, err := updateChanged(ctx, tx, s.t.templates, cur, vals, now, "`id` = ?", cur.ID); err != nil {
			return err
		}
		if steps != nil {
			if err := s.syncSteps(ctx, tx, cur.ID, steps, models.NewTime(now)); err != nil {
				return err
			}
		}
		out, err = s.getTemplate(ctx, tx, "`deploy_templates`.`id` = ?", cur.ID, ref)
		return err
	})
	if cols, dup := uniqueViolation(err); dup && hasCol(cols, "name") {
		return nil, ironic.Errorf(ironic.DeployTemplateDuplicateName, "A deploy template with name %s already exists.", pyStr(values["name"]))
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// syncSteps matches current and wanted steps by key in one sorted pass.
func (s *Store) syncSteps(ctx context.Context, tx *txn, templateID int64, wanted []models.DeployTemplateStep, now models.Time) error {
	current, err := selectWhere(ctx, tx, s.t.steps, "`deploy_template_steps`.`deploy_template_id` = ?", templateID)
	if err != nil {
		return err
	}
	byKey := func(a, b models.DeployTemplateStep) int { return compareStepKeys(keyOf(&a), keyOf(&b)) }
	slices.SortStableFunc(current, byKey)
	want := slices.Clone(wanted)
	slices.SortStableFunc(want, byKey)
	var create []models.DeployTemplateStep
	var del []any
	i, j := 0, 0
	for i < len(current) && j < len(want) {
		switch c := compareStepKeys(keyOf(&current[i]), keyOf(&want[j])); {
		case c == 0:
			i++
			j++
		case c < 0:
			del = append(del, current[i].ID)
			i++
		default:
			create = append(create, want[j])
			j++
		}
	}
	for ; i < len(current); i++ {
		del = append(del, current[i].ID)
	}
	create = append(create, want[j:]...)
	if len(del) > 0 {
		if _, err := tx.ExecContext(ctx, "DELETE FROM `deploy_template_steps` WHERE `id` IN ("+placeholders(len(del))+")", del...); err != nil {
			return err
		}
	}
	_, err = s.insertSteps(ctx, tx, templateID, create, now)
	return err
}

// DestroyDeployTemplate deletes a template and its steps
// (DeployTemplateNotFound).
func (s *Store) DestroyDeployTemplate(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx *txn) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM `deploy_template_steps` WHERE `deploy_template_id` = ?", id); err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, "DELETE FROM `deploy_templates` WHERE `id` = ?", id)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound(ironic.DeployTemplateNotFound, "Deploy template %s could not be found.", id)
		}
		return nil
	})
}
