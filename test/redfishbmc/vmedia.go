package redfishbmc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// virtualMedia is one VirtualMedia device of a system's Manager.
type virtualMedia struct {
	id, name       string
	mediaTypes     []string
	image          string
	inserted       bool
	writeProtected bool
	transfer       string
	user           string
	// size and sha256 are those of the downloaded image.
	size   int64
	sha256 string
}

func newVirtualMedia() []*virtualMedia {
	return []*virtualMedia{
		{id: "Cd", name: "Virtual CD", mediaTypes: []string{"CD", "DVD"}, writeProtected: true},
		{id: "Floppy", name: "Virtual Removable Media", mediaTypes: []string{"Floppy", "USBStick"}, writeProtected: true},
	}
}

// Media is the state of a VirtualMedia device.
type Media struct {
	// Image is the inserted image's URL ("" when none).
	Image          string
	Inserted       bool
	WriteProtected bool
	// Size and SHA256 are those of the image the BMC downloaded.
	Size   int64
	SHA256 string
}

// VirtualMedia returns the state of the device with the given Id ("Cd"
// or "Floppy").
func (s *System) VirtualMedia(id string) (Media, bool) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	vm := s.vmediaByID(id)
	if vm == nil {
		return Media{}, false
	}
	return Media{Image: vm.image, Inserted: vm.inserted, WriteProtected: vm.writeProtected, Size: vm.size, SHA256: vm.sha256}, true
}

func (s *System) vmediaByID(id string) *virtualMedia {
	for _, vm := range s.vmedia {
		if vm.id == id {
			return vm
		}
	}
	return nil
}

func getVirtualMediaCollection(c *call) (*reply, error) {
	s, err := c.system()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(s.vmedia))
	for i, vm := range s.vmedia {
		ids[i] = vm.id
	}
	return okReply(c.collection("#VirtualMediaCollection.VirtualMediaCollection", "Virtual Media Services",
		[]string{"Managers", s.spec.ID, "VirtualMedia"}, ids)), nil
}

func (c *call) renderVirtualMedia(s *System, vm *virtualMedia) map[string]any {
	base := []string{"Managers", s.spec.ID, "VirtualMedia", vm.id}
	m := map[string]any{
		"@odata.type":    "#VirtualMedia.v1_3_0.VirtualMedia",
		"@odata.id":      c.uri(base...),
		"Id":             vm.id,
		"Name":           vm.name,
		"MediaTypes":     vm.mediaTypes,
		"Image":          nil,
		"ImageName":      "",
		"ConnectedVia":   "NotConnected",
		"Inserted":       vm.inserted,
		"WriteProtected": vm.writeProtected,
		"Status":         status(true),
	}
	if vm.image != "" {
		m["Image"] = vm.image
		m["ImageName"] = imageName(vm.image)
		m["ConnectedVia"] = "URI"
		m["TransferMethod"] = vm.transfer
		m["UserName"] = vm.user
	}
	if !s.spec.VirtualMediaViaPatch {
		m["Actions"] = map[string]any{
			"#VirtualMedia.InsertMedia": map[string]any{"target": c.uri(append(base, "Actions", "VirtualMedia.InsertMedia")...)},
			"#VirtualMedia.EjectMedia":  map[string]any{"target": c.uri(append(base, "Actions", "VirtualMedia.EjectMedia")...)},
		}
	}
	return m
}

func imageName(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return path.Base(u)
	}
	return path.Base(p.Path)
}

// vmedia finds the device of the path (Managers/{}/VirtualMedia/{}).
func (c *call) vmedia() (*System, *virtualMedia, error) {
	s, err := c.system()
	if err != nil {
		return nil, nil, err
	}
	vm := s.vmediaByID(c.args[1])
	if vm == nil {
		return nil, nil, errNotFound(c.r.URL.Path)
	}
	return s, vm, nil
}

func getVirtualMedia(c *call) (*reply, error) {
	s, vm, err := c.vmedia()
	if err != nil {
		return nil, err
	}
	return okReply(c.renderVirtualMedia(s, vm)), nil
}

// insertion is a validated InsertMedia (or PATCH Image) request.
type insertion struct {
	image, user, password, transfer string
	// mediaType, when given (gofish can send it), must be one of the
	// device's MediaTypes.
	mediaType                string
	inserted, writeProtected bool
}

const insertAction = "VirtualMedia.InsertMedia"

// postInsertMedia validates under the BMC's lock, downloads the image
// without it (bounded by Options.MaxImageBytes and ImageTimeout), and
// records it.
func postInsertMedia(c *call) (*reply, error) {
	body, err := c.object()
	if err != nil {
		return nil, err
	}
	ins := insertion{inserted: true, writeProtected: true, transfer: "Stream"}
	known := map[string]bool{"Image": true, "Inserted": true, "WriteProtected": true, "UserName": true,
		"Password": true, "TransferMethod": true, "TransferProtocolType": true, "MediaType": true}
	for k := range body {
		if !known[k] && !strings.Contains(k, "@") {
			return nil, errActionParamUnknown(insertAction, k)
		}
	}
	v, ok := body["Image"]
	if !ok {
		return nil, errActionParamMissing(insertAction, "Image")
	}
	if ins.image, ok = v.(string); !ok || ins.image == "" {
		return nil, errActionParamType(insertAction, "Image", toString(v))
	}
	if err := ins.parse(body, func(p string, v any) error { return errActionParamType(insertAction, p, toString(v)) }); err != nil {
		return nil, err
	}
	if t, ok := body["TransferMethod"]; ok && t != "Stream" && t != "Upload" {
		return nil, errActionParamNotInList(insertAction, "TransferMethod", toString(t), []string{"Stream", "Upload"})
	}
	if p, ok := body["TransferProtocolType"]; ok {
		want := strings.ToUpper(strings.SplitN(ins.image, ":", 2)[0])
		if p != want {
			return nil, errActionParamNotInList(insertAction, "TransferProtocolType", toString(p), []string{want})
		}
	}
	ins.mediaType, _ = body["MediaType"].(string)
	return c.insert(ins)
}

// parse reads the optional members shared by InsertMedia and PATCH.
func (ins *insertion) parse(body map[string]any, typeErr func(string, any) error) error {
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"Inserted", &ins.inserted}, {"WriteProtected", &ins.writeProtected}} {
		if v, ok := body[f.name]; ok {
			b, isBool := v.(bool)
			if !isBool {
				return typeErr(f.name, v)
			}
			*f.dst = b
		}
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"UserName", &ins.user}, {"Password", &ins.password}, {"TransferMethod", &ins.transfer}} {
		if v, ok := body[f.name]; ok && v != nil {
			str, isStr := v.(string)
			if !isStr {
				return typeErr(f.name, v)
			}
			*f.dst = str
		}
	}
	return nil
}

// insert checks the device is free, downloads the image and records it.
func (c *call) insert(ins insertion) (*reply, error) {
	c.b.mu.Lock()
	s, vm, err := c.vmedia()
	if err == nil && s != nil && s.spec.RefuseInsertMedia != 0 {
		e := errInternal()
		e.status = s.spec.RefuseInsertMedia
		err = e
	}
	if err == nil && ins.mediaType != "" && !slices.Contains(vm.mediaTypes, ins.mediaType) {
		err = errActionParamNotInList(insertAction, "MediaType", ins.mediaType, vm.mediaTypes)
	}
	if err == nil && vm.inserted {
		err = errResourceInUse(fmt.Sprintf("Virtual media %s holds %s; eject it first.", vm.id, vm.image))
	}
	c.b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	dst := ""
	if s != nil && s.spec.Machine != nil {
		dst = s.spec.Machine.MediaFile(vm.id)
	}
	size, sum, derr := c.download(ins, dst)
	if derr != nil {
		c.s.opts.Log.WarnContext(c.r.Context(), "virtual media download failed", "image", ins.image, "error", derr)
		return nil, derr
	}
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if vm.inserted {
		return nil, errResourceInUse(fmt.Sprintf("Virtual media %s holds %s; eject it first.", vm.id, vm.image))
	}
	vm.image, vm.inserted, vm.writeProtected = ins.image, ins.inserted, ins.writeProtected
	vm.transfer, vm.user, vm.size, vm.sha256 = ins.transfer, ins.user, size, sum
	if m := s.spec.Machine; m != nil && m.Running() {
		if err := m.ChangeMedia(c.r.Context(), vm.id, true); err != nil {
			return nil, fmt.Errorf("inserting %s into %s: %w", vm.image, vm.id, err)
		}
	}
	return noContent(), nil
}

// download fetches the image as a BMC would, returning its size and
// SHA-256; with dst, the image is written there (through a temporary
// file).
func (c *call) download(ins insertion, dst string) (int64, string, error) {
	u, err := url.Parse(ins.image)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, "", errCouldNotConnect(ins.image)
	}
	ctx, cancel := context.WithTimeout(c.r.Context(), c.s.opts.ImageTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ins.image, nil)
	if err != nil {
		return 0, "", errCouldNotConnect(ins.image)
	}
	if ins.user != "" || ins.password != "" {
		req.SetBasicAuth(ins.user, ins.password)
	}
	resp, err := c.s.opts.HTTPClient.Do(req)
	if err != nil {
		return 0, "", errCouldNotConnect(ins.image)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, "", errCouldNotConnect(ins.image)
	}
	h := sha256.New()
	var w io.Writer = h
	var f *os.File
	if dst != "" {
		if f, err = os.CreateTemp(filepath.Dir(dst), ".image-*"); err != nil {
			return 0, "", err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		w = io.MultiWriter(h, f)
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, c.s.opts.MaxImageBytes+1))
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, "", errCouldNotConnect(ins.image)
	}
	if n > c.s.opts.MaxImageBytes {
		return 0, "", errImageTooLarge(ins.image, c.s.opts.MaxImageBytes)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return 0, "", err
		}
		if err := os.Rename(f.Name(), dst); err != nil {
			return 0, "", err
		}
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

func postEjectMedia(c *call) (*reply, error) {
	if _, err := c.object(); err != nil {
		return nil, err
	}
	s, vm, err := c.vmedia()
	if err != nil {
		return nil, err
	}
	return noContent(), s.eject(c.r.Context(), vm)
}

// eject empties vm (and the Machine's drive). Callers hold b.mu.
func (s *System) eject(ctx context.Context, vm *virtualMedia) error {
	was := vm.inserted
	vm.image, vm.inserted, vm.transfer, vm.user, vm.size, vm.sha256 = "", false, "", "", 0, ""
	m := s.spec.Machine
	if m == nil || !was {
		return nil
	}
	if m.Running() {
		if err := m.ChangeMedia(ctx, vm.id, false); err != nil {
			return fmt.Errorf("ejecting %s: %w", vm.id, err)
		}
	}
	if err := os.Remove(m.MediaFile(vm.id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// patchVirtualMedia is the older way: PATCH Image (and Inserted) to
// insert, Image null or Inserted false to eject.
func patchVirtualMedia(c *call) (*reply, error) {
	body, err := c.object()
	if err != nil {
		return nil, err
	}
	c.b.mu.Lock()
	s, vm, err := c.vmedia()
	if err == nil {
		err = c.checkIfMatch(c.renderVirtualMedia(s, vm))
	}
	c.b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	writable := []string{"Image", "Inserted", "WriteProtected", "UserName", "Password", "TransferMethod", "TransferProtocolType"}
	for k := range body {
		if !slices.Contains(writable, k) && !strings.Contains(k, "@") {
			return nil, errPropertyUnknown("#/" + k)
		}
	}
	ins := insertion{inserted: true, writeProtected: true, transfer: "Stream"}
	if err := ins.parse(body, func(p string, v any) error { return errPropertyType("#/"+p, toString(v)) }); err != nil {
		return nil, err
	}
	img, hasImage := body["Image"]
	if (hasImage && img == nil) || !ins.inserted {
		c.b.mu.Lock()
		defer c.b.mu.Unlock()
		return noContent(), s.eject(c.r.Context(), vm)
	}
	if !hasImage {
		return noContent(), nil
	}
	str, ok := img.(string)
	if !ok || str == "" {
		return nil, errPropertyType("#/Image", toString(img))
	}
	ins.image = str
	return c.insert(ins)
}
