package fakeglance

// imageSchema is Glance's GET /v2/schemas/image (the fields Glance 2.x
// shows; custom properties are strings), which glanceclient reads to
// build its image model.
var imageSchema = map[string]any{
	"name": "image",
	"links": []any{
		map[string]any{"rel": "self", "href": "{self}"},
		map[string]any{"rel": "enclosure", "href": "{file}"},
		map[string]any{"rel": "describedby", "href": "{schema}"},
	},
	"additionalProperties": map[string]any{"type": "string"},
	"properties": map[string]any{
		"id":               map[string]any{"type": "string", "description": "An identifier for the image", "pattern": "^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$"},
		"name":             map[string]any{"type": []any{"null", "string"}, "description": "Descriptive name for the image", "maxLength": 255},
		"status":           map[string]any{"type": "string", "readOnly": true, "description": "Status of the image", "enum": []any{"queued", "saving", "active", "killed", "deleted", "uploading", "importing", "pending_delete", "deactivated"}},
		"visibility":       map[string]any{"type": "string", "description": "Scope of image accessibility", "enum": []any{"community", "public", "private", "shared"}},
		"protected":        map[string]any{"type": "boolean", "description": "If true, image will not be deletable."},
		"os_hidden":        map[string]any{"type": "boolean", "description": "If true, image will not appear in default image list response."},
		"checksum":         map[string]any{"type": []any{"null", "string"}, "readOnly": true, "description": "md5 hash of image contents.", "maxLength": 32},
		"os_hash_algo":     map[string]any{"type": []any{"null", "string"}, "readOnly": true, "description": "Algorithm to calculate the os_hash_value", "maxLength": 64},
		"os_hash_value":    map[string]any{"type": []any{"null", "string"}, "readOnly": true, "description": "Hexdigest of the image contents using the algorithm specified by the os_hash_algo", "maxLength": 128},
		"owner":            map[string]any{"type": []any{"null", "string"}, "description": "Owner of the image", "maxLength": 255},
		"size":             map[string]any{"type": []any{"null", "integer"}, "readOnly": true, "description": "Size of image file in bytes"},
		"virtual_size":     map[string]any{"type": []any{"null", "integer"}, "readOnly": true, "description": "Virtual size of image in bytes"},
		"container_format": map[string]any{"type": []any{"null", "string"}, "description": "Format of the container", "enum": []any{nil, "ami", "ari", "aki", "bare", "ovf", "ova", "docker", "compressed"}},
		"disk_format":      map[string]any{"type": []any{"null", "string"}, "description": "Format of the disk", "enum": []any{nil, "ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2", "vdi", "iso", "ploop"}},
		"created_at":       map[string]any{"type": "string", "readOnly": true, "description": "Date and time of image registration"},
		"updated_at":       map[string]any{"type": "string", "readOnly": true, "description": "Date and time of the last image modification"},
		"tags":             map[string]any{"type": "array", "description": "List of strings related to the image", "items": map[string]any{"type": "string", "maxLength": 255}},
		"direct_url":       map[string]any{"type": "string", "readOnly": true, "description": "URL to access the image file kept in external store"},
		"min_ram":          map[string]any{"type": "integer", "description": "Amount of ram (in MB) required to boot image."},
		"min_disk":         map[string]any{"type": "integer", "description": "Amount of disk space (in GB) required to boot image."},
		"self":             map[string]any{"type": "string", "readOnly": true, "description": "An image self url"},
		"file":             map[string]any{"type": "string", "readOnly": true, "description": "An image file url"},
		"stores":           map[string]any{"type": "string", "readOnly": true, "description": "Store in which image data resides."},
		"schema":           map[string]any{"type": "string", "readOnly": true, "description": "An image schema url"},
		"locations": map[string]any{"type": "array", "description": "A set of URLs to access the image file kept in external store", "items": map[string]any{
			"type": "object", "required": []any{"url", "metadata"},
			"properties": map[string]any{"url": map[string]any{"type": "string", "maxLength": 255}, "metadata": map[string]any{"type": "object"}, "validation_data": map[string]any{"type": "object"}},
		}},
		"kernel_id":  map[string]any{"type": []any{"null", "string"}, "description": "ID of image stored in Glance that should be used as the kernel when booting an AMI-style image.", "is_base": false},
		"ramdisk_id": map[string]any{"type": []any{"null", "string"}, "description": "ID of image stored in Glance that should be used as the ramdisk when booting an AMI-style image.", "is_base": false},
	},
}
