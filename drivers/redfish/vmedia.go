package redfish

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/stmcginnis/gofish/schemas"
)

// The virtual media types (sushy's VIRTUAL_MEDIA_*).
const (
	VirtualMediaCD       = "CD"
	VirtualMediaDVD      = "DVD"
	VirtualMediaFloppy   = "Floppy"
	VirtualMediaUSBStick = "USBStick"
)

var virtualMediaTypes = []string{VirtualMediaCD, VirtualMediaFloppy, VirtualMediaUSBStick, VirtualMediaDVD}

// insertRetries and insertRetryWait are Ironic's retries of a virtual
// media insertion a BMC answers with a server-side error (some BMCs are
// still ejecting).
const (
	insertAttempts  = 3
	insertRetryWait = 3 * time.Second
)

// vmedia is one VirtualMedia resource of a manager.
type vmedia struct {
	*doc
	header http.Header
	// stale is sushy's _is_stale: set by an insertion or ejection, it
	// makes the next listing of the manager's media read the device again.
	stale bool
}

// mediaTypes is the device's MediaTypes, restricted to sushy's
// enumeration.
func (v *vmedia) mediaTypes() []string {
	list, _ := v.raw.Get("MediaTypes").([]any)
	var out []string
	for _, t := range list {
		if m := mapped(t, virtualMediaTypes); m != "" {
			out = append(out, m)
		}
	}
	return out
}

func (v *vmedia) inserted() bool { return pyjsonTruthy(v.raw.Get("Inserted")) }

// managers is sushy's system.managers: every manager of Links/ManagedBy,
// read in order.
func (s *system) managers(ctx context.Context) ([]*doc, error) {
	paths, err := subPaths(s.path, s.raw, "Links", "ManagedBy")
	if err != nil {
		return nil, err
	}
	out := make([]*doc, 0, len(paths))
	for _, p := range paths {
		d, err := load[schemas.Manager](ctx, s.b, p, "Id")
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// managerMedia caches what was read of the managers' virtual media for
// one operation, as sushy's objects cache it: a retry reads nothing again.
type managerMedia struct {
	managers []*doc
	media    map[string][]*vmedia
}

// virtualMedia is manager.virtual_media.get_members().
func (mm *managerMedia) virtualMedia(ctx context.Context, b *bmc, m *doc) ([]*vmedia, error) {
	if v, ok := mm.media[m.path]; ok {
		for _, d := range v {
			if !d.stale {
				continue
			}
			res, err := fetch[schemas.VirtualMedia](ctx, b, d.path)
			if err != nil {
				return nil, err
			}
			d.raw, d.header, d.stale = res.raw, res.header, false
		}
		return v, nil
	}
	p, err := subPath(m.path, m.raw, "VirtualMedia")
	if err != nil {
		return nil, err
	}
	r, err := b.get(ctx, p)
	if err != nil {
		return nil, err
	}
	var out []*vmedia
	for _, id := range members(r.dict()) {
		res, err := fetch[schemas.VirtualMedia](ctx, b, id)
		if err != nil {
			return nil, err
		}
		if err := require(id, res.raw, "Id", "Name"); err != nil {
			return nil, err
		}
		out = append(out, &vmedia{doc: &doc{path: id, raw: res.raw}, header: res.header})
	}
	if mm.media == nil {
		mm.media = map[string][]*vmedia{}
	}
	mm.media[m.path] = out
	return out, nil
}

// allowPatch is ResourceBase._allow_patch: the resource read again for
// its Allow header.
func (v *vmedia) allowPatch(ctx context.Context, b *bmc) (bool, error) {
	r, err := b.get(ctx, v.path)
	if err != nil {
		return false, err
	}
	for _, m := range strings.Split(r.header.Get("Allow"), ",") {
		if strings.EqualFold(strings.TrimSpace(m), "PATCH") {
			return true, nil
		}
	}
	return false, nil
}

// actionURI is the target of a VirtualMedia action, or the resource
// itself when the BMC only allows PATCHing it.
func (v *vmedia) actionURI(ctx context.Context, b *bmc, action string) (string, bool, error) {
	if act, ok := pyjson.AsDict(mustField(v.raw, "Actions", action)); ok && act.Len() > 0 {
		target, ok := act.Get("target").(string)
		if !ok {
			return "", false, missingAttribute("Actions/"+action+"/target", v.path)
		}
		return target, false, nil
	}
	patch, err := v.allowPatch(ctx, b)
	if err != nil {
		return "", false, err
	}
	if !patch {
		return "", false, missingAction(action, v.path)
	}
	return v.path, true, nil
}

// etag is ResourceBase._get_etag.
func (v *vmedia) etag(ctx context.Context, b *bmc) (string, error) {
	r, err := b.get(ctx, v.path)
	if err != nil {
		return "", err
	}
	return r.header.Get("ETag"), nil
}

// insertMedia is sushy's VirtualMedia.insert_media(image, inserted=True,
// write_protected=True): the InsertMedia action, or a PATCH of Image on
// BMCs without it; a BMC that wants the transfer protocol gets it.
func (v *vmedia) insertMedia(ctx context.Context, b *bmc, image string) error {
	target, patch, err := v.actionURI(ctx, b, "#VirtualMedia.InsertMedia")
	if err != nil {
		return err
	}
	payload := pyjson.DictOf("Image", image)
	if patch {
		payload.Set("Inserted", true)
		payload.Set("WriteProtected", true)
		etag, err := v.etag(ctx, b)
		if err != nil {
			return err
		}
		if _, err = b.patch(ctx, target, payload, etag); err == nil {
			v.stale = true
		}
		return err
	}
	_, err = b.post(ctx, target, payload)
	if s, ok := asSushy(err); ok && s.kind.isHTTP() && s.transferProtocolRequired {
		switch {
		case strings.HasPrefix(image, "https://"):
			payload.Set("TransferProtocolType", "HTTPS")
		case strings.HasPrefix(image, "http://"):
			payload.Set("TransferProtocolType", "HTTP")
		}
		_, err = b.post(ctx, target, payload)
	}
	if err == nil {
		v.stale = true
	}
	return err
}

// ejectMedia is sushy's VirtualMedia.eject_media: the EjectMedia action
// (again with an empty body when the BMC wants one), or a PATCH clearing
// Image; other HTTP errors are ignored, as sushy does.
func (v *vmedia) ejectMedia(ctx context.Context, b *bmc) error {
	target, patch, err := v.actionURI(ctx, b, "#VirtualMedia.EjectMedia")
	if err == nil {
		if patch {
			var etag string
			if etag, err = v.etag(ctx, b); err == nil {
				_, err = b.patch(ctx, target, pyjson.DictOf("Image", nil, "Inserted", false), etag)
			}
		} else {
			_, err = b.post(ctx, target, nil)
		}
	}
	if s, ok := asSushy(err); ok && s.kind.isHTTP() {
		if s.status == http.StatusUnsupportedMediaType || s.status == http.StatusBadRequest {
			if _, err = b.post(ctx, target, pyjson.NewDict(0)); err != nil {
				return err
			}
		}
		err = nil
	}
	if err == nil {
		v.stale = true
	}
	return err
}

// mediaSession is what one of Ironic's boot operations holds: the system
// and its managers read once (redfish_utils.get_system(node).managers),
// their virtual media read once and then only the devices an insertion or
// ejection made stale, as sushy's cached objects do.
type mediaSession struct {
	c    *core
	task drivers.Task
	b    *bmc
	mm   *managerMedia
	done func()
}

// openMedia reads the node's system and managers. The caller calls close.
func (c *core) openMedia(ctx context.Context, task drivers.Task) (*mediaSession, error) {
	sys, done, err := c.getSystem(ctx, task)
	if err != nil {
		return nil, err
	}
	managers, err := sys.managers(ctx)
	if err != nil {
		done()
		return nil, asFault(err)
	}
	return &mediaSession{c: c, task: task, b: sys.b, mm: &managerMedia{managers: managers}, done: done}, nil
}

func (s *mediaSession) close() { s.done() }

// InsertVirtualMedia is Ironic's redfish boot _insert_vmedia: the image at
// url goes into the first free device of the type (CD, DVD, USBStick,
// Floppy) among the system's managers' virtual media; nothing happens
// when a device already holds it. A BMC answering with a server-side
// error is tried three times, three seconds apart. No such device:
// InvalidParameterValue.
func (c *core) InsertVirtualMedia(ctx context.Context, task drivers.Task, url, device string) error {
	s, err := c.openMedia(ctx, task)
	if err != nil {
		return err
	}
	defer s.close()
	return asFault(s.insert(ctx, url, device))
}

// insert is _insert_vmedia on the session's managers. The session's
// methods return sushy's errors as they are (Ironic's boot interface lets
// them through: the conductor names their class); the exported ones
// make them faults.
func (s *mediaSession) insert(ctx context.Context, url, device string) error {
	for attempt := 1; ; attempt++ {
		err := s.insertOnce(ctx, url, device)
		if !isKind(err, kindServerSide) || attempt == insertAttempts {
			return err
		}
		s.c.log.WarnContext(ctx, fmt.Sprintf("Boot media insert failed for node %s, will retry after 3 seconds", s.task.NodeUUID()))
		if err := s.c.sleep(ctx, insertRetryWait); err != nil {
			return err
		}
	}
}

func (s *mediaSession) insertOnce(ctx context.Context, url, device string) error {
	for _, m := range s.mm.managers {
		media, err := s.mm.virtualMedia(ctx, s.b, m)
		if err != nil {
			return err
		}
		for _, v := range media {
			if !slices.Contains(v.mediaTypes(), device) {
				continue
			}
			if v.inserted() {
				if v.raw.Get("Image") == url {
					s.c.log.DebugContext(ctx, "Boot media is already inserted", "node", s.task.NodeUUID(), "url", url, "device", device)
					return nil
				}
				continue
			}
			if err := v.insertMedia(ctx, s.b, url); err != nil {
				return err
			}
			s.c.log.InfoContext(ctx, fmt.Sprintf("Inserted boot media %s into %s for node %s", url, device, s.task.NodeUUID()))
			return nil
		}
	}
	return drivers.InvalidParameter("No suitable virtual media device found")
}

// EjectVirtualMedia is Ironic's redfish boot eject_vmedia: every inserted
// device of the type ("" for all; a DVD serves for a CD) is ejected. It
// reports whether one was.
func (c *core) EjectVirtualMedia(ctx context.Context, task drivers.Task, device string) (bool, error) {
	s, err := c.openMedia(ctx, task)
	if err != nil {
		return false, err
	}
	defer s.close()
	found, err := s.eject(ctx, device)
	return found, asFault(err)
}

// eject is _eject_vmedia on the session's managers.
func (s *mediaSession) eject(ctx context.Context, device string) (bool, error) {
	found := false
	for _, m := range s.mm.managers {
		media, err := s.mm.virtualMedia(ctx, s.b, m)
		if err != nil {
			return found, err
		}
		for _, v := range media {
			types := v.mediaTypes()
			if device != "" && !slices.Contains(types, device) {
				if device != VirtualMediaCD || !slices.Contains(types, VirtualMediaDVD) {
					continue
				}
			}
			inserted := v.inserted()
			if inserted {
				if err := v.ejectMedia(ctx, s.b); err != nil {
					return found, err
				}
				found = true
			}
			already := " already"
			if inserted {
				already = ""
			}
			s.c.log.InfoContext(ctx, fmt.Sprintf("Boot media is%s ejected from %s for node %s", already, str(v.raw, "Name"), s.task.NodeUUID()))
		}
	}
	return found, nil
}

// HasVirtualMediaDevice is Ironic's _has_vmedia_device: the first of
// devices some manager has (with inserted, if given, matching the
// device's state), or "".
func (c *core) HasVirtualMediaDevice(ctx context.Context, task drivers.Task, devices []string, inserted *bool) (string, error) {
	s, err := c.openMedia(ctx, task)
	if err != nil {
		return "", err
	}
	defer s.close()
	dev, err := s.has(ctx, devices, inserted)
	return dev, asFault(err)
}

func (s *mediaSession) has(ctx context.Context, devices []string, inserted *bool) (string, error) {
	for _, dev := range devices {
		for _, m := range s.mm.managers {
			media, err := s.mm.virtualMedia(ctx, s.b, m)
			if err != nil {
				return "", err
			}
			for _, v := range media {
				if !slices.Contains(v.mediaTypes(), dev) {
					continue
				}
				if inserted != nil && v.inserted() != *inserted {
					continue
				}
				return dev, nil
			}
		}
	}
	return "", nil
}
