// Package configdrive builds OpenStack config drives in process: the ISO 9660
// image labelled config-2 that Ironic's conductor/utils.py build_configdrive
// makes (through openstacksdk's baremetal.configdrive and genisoimage), then
// gzipped and base64-encoded as Ironic stores and sends it.
//
// The tree is Ironic 21.4's: openstack/{2012-08-10,latest}/ each holding
// meta_data.json (always), network_data.json, vendor_data2.json and user_data
// (each only when given and non-empty, as Python's truth test decides). JSON
// files are written as Python's json.dump writes them. The image itself is
// laid out in memory (isowriter.go): ISO 9660 with genisoimage's names plus
// Rock Ridge with the real ones, and a Joliet tree, as `genisoimage -r -J
// -l -V config-2` writes it.
package configdrive

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"time"

	"github.com/goironic/ironic/internal/pyjson"
)

// VolumeID is the volume label cloud-init and glean look for.
const VolumeID = "config-2"

// Node is what the builder needs to know about the node: meta_data's uuid and
// name default to these.
type Node struct {
	UUID string
	Name string
}

// Contents is the JSON form of a config drive (API 1.56): every key optional.
// MetaData, NetworkData and VendorData are JSON objects; UserData is a
// string, an object, an array or nil.
type Contents struct {
	MetaData    map[string]any
	NetworkData any
	UserData    any
	VendorData  any
}

// FromMap reads the API's dict form ({"meta_data": ..., "network_data": ...,
// "user_data": ..., "vendor_data": ...}); the API has validated its schema.
func FromMap(m map[string]any) (Contents, error) {
	var c Contents
	switch md := m["meta_data"].(type) {
	case nil:
	case map[string]any:
		c.MetaData = md
	case pyjson.Object:
		c.MetaData = make(map[string]any, len(md))
		for _, mem := range md {
			c.MetaData[mem.Key] = mem.Value
		}
	default:
		return c, fmt.Errorf("meta_data must be an object, not %T", md)
	}
	c.NetworkData = m["network_data"]
	c.UserData = m["user_data"]
	c.VendorData = m["vendor_data"]
	return c, nil
}

// File is one file of the image, by its path below the root.
type File struct {
	Path string
	Data []byte
}

// Files lays out the tree build_configdrive writes for node and c, in the
// order openstacksdk's populate_directory writes it.
func Files(node Node, c Contents) ([]File, error) {
	md := make(map[string]any, len(c.MetaData)+2)
	for k, v := range c.MetaData {
		md[k] = v
	}
	if _, ok := md["uuid"]; !ok {
		md["uuid"] = node.UUID
	}
	if _, ok := md["name"]; !ok && node.Name != "" {
		md["name"] = node.Name
	}
	metaJSON, err := pyjson.Marshal(md)
	if err != nil {
		return nil, fmt.Errorf("meta_data: %w", err)
	}
	var netJSON, vendorJSON, userData []byte
	if truthy(c.NetworkData) {
		if netJSON, err = pyjson.Marshal(c.NetworkData); err != nil {
			return nil, fmt.Errorf("network_data: %w", err)
		}
	}
	if truthy(c.VendorData) {
		if vendorJSON, err = pyjson.Marshal(c.VendorData); err != nil {
			return nil, fmt.Errorf("vendor_data: %w", err)
		}
	}
	switch ud := c.UserData.(type) {
	case nil:
	case string:
		userData = []byte(ud)
	default:
		// jsonutils.dump_as_bytes: json.dumps, UTF-8.
		if userData, err = pyjson.Marshal(ud); err != nil {
			return nil, fmt.Errorf("user_data: %w", err)
		}
	}
	files := make([]File, 0, 8)
	// openstacksdk's default metadata versions.
	for _, v := range [...]string{"2012-08-10", "latest"} {
		dir := "openstack/" + v + "/"
		files = append(files, File{dir + "meta_data.json", metaJSON})
		if len(netJSON) > 0 {
			files = append(files, File{dir + "network_data.json", netJSON})
		}
		if len(vendorJSON) > 0 {
			files = append(files, File{dir + "vendor_data2.json", vendorJSON})
		}
		if len(userData) > 0 {
			files = append(files, File{dir + "user_data", userData})
		}
	}
	return files, nil
}

// truthy is Python's truth test for a decoded JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case map[string]any:
		return len(x) > 0
	case pyjson.Object:
		return len(x) > 0
	case []any:
		return len(x) > 0
	case string:
		return x != ""
	case bool:
		return x
	}
	return true
}

// Builder builds config drive images, in memory.
type Builder struct {
	Log *slog.Logger
	// Now stamps the volume and its records (time.Now when nil).
	Now func() time.Time
}

// ISO writes the ISO 9660 + Rock Ridge + Joliet image of files, labelled
// config-2.
func (b Builder) ISO(ctx context.Context, files []File) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	img, err := writeISO(files, VolumeID, now())
	if err != nil {
		return nil, fmt.Errorf("writing the ISO image: %w", err)
	}
	return img, nil
}

// Build is build_configdrive: the gzipped, base64-encoded config drive image
// for node and c, as Ironic stores it in instance_info.configdrive.
func (b Builder) Build(ctx context.Context, node Node, c Contents) (string, error) {
	files, err := Files(node, c)
	if err != nil {
		return "", err
	}
	if b.Log != nil {
		b.Log.DebugContext(ctx, "Building a configdrive", "node", node.UUID)
	}
	img, err := b.ISO(ctx, files)
	if err != nil {
		return "", err
	}
	return Pack(img)
}

// Pack gzips and base64-encodes an image. Level 6, not Python's 9: the
// bytes unpacked are the same, and level 9 doubles the build time.
func Pack(img []byte) (string, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(img); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(gz.Bytes()), nil
}

// Unpack reverses Pack.
func Unpack(s string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
