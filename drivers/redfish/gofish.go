package redfish

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/goironic/ironic/internal/pyjson"
	"github.com/stmcginnis/gofish/schemas"
)

// gofishClient is a BMC connection as gofish's schemas.Client, bound to
// one operation's context: gofish's resource types decode what it reads
// and their actions send through it, so every request gets sushy's
// headers, authentication, retries and errors.
type gofishClient struct {
	ctx context.Context //nolint:containedctx // schemas.Client has no context parameter; the value lives for one operation
	b   *bmc
}

var _ schemas.Client = gofishClient{}

// GetSettings returns no default query options: sushy sends none.
func (gofishClient) GetSettings() schemas.ClientSettings { return schemas.ClientSettings{} }

func (c gofishClient) run(method, url string, payload any, hdr map[string]string) (*http.Response, error) {
	var r *response
	var err error
	if method == http.MethodPatch {
		r, err = c.b.patch(c.ctx, url, payload, hdr["If-Match"])
	} else {
		r, err = c.b.do(c.ctx, method, url, payload, hdr)
	}
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: r.status, Header: r.header,
		Body: io.NopCloser(bytes.NewReader(r.body)), ContentLength: int64(len(r.body)),
	}, nil
}

// Get implements schemas.Client.
func (c gofishClient) Get(url string) (*http.Response, error) {
	return c.run(http.MethodGet, url, nil, nil)
}

// GetWithHeaders implements schemas.Client.
func (c gofishClient) GetWithHeaders(url string, h map[string]string) (*http.Response, error) {
	return c.run(http.MethodGet, url, nil, h)
}

// Post implements schemas.Client.
func (c gofishClient) Post(url string, payload any) (*http.Response, error) {
	return c.run(http.MethodPost, url, payload, nil)
}

// PostWithHeaders implements schemas.Client.
func (c gofishClient) PostWithHeaders(url string, payload any, h map[string]string) (*http.Response, error) {
	return c.run(http.MethodPost, url, payload, h)
}

// PostMultipart is not used by the redfish interfaces.
func (gofishClient) PostMultipart(string, map[string]io.Reader) (*http.Response, error) {
	return nil, errors.ErrUnsupported
}

// PostMultipartWithHeaders is not used by the redfish interfaces.
func (gofishClient) PostMultipartWithHeaders(string, map[string]io.Reader, map[string]string) (*http.Response, error) {
	return nil, errors.ErrUnsupported
}

// Patch implements schemas.Client.
func (c gofishClient) Patch(url string, payload any) (*http.Response, error) {
	return c.run(http.MethodPatch, url, payload, nil)
}

// PatchWithHeaders implements schemas.Client.
func (c gofishClient) PatchWithHeaders(url string, payload any, h map[string]string) (*http.Response, error) {
	return c.run(http.MethodPatch, url, payload, h)
}

// Put implements schemas.Client.
func (c gofishClient) Put(url string, payload any) (*http.Response, error) {
	return c.run(http.MethodPut, url, payload, nil)
}

// PutWithHeaders implements schemas.Client.
func (c gofishClient) PutWithHeaders(url string, payload any, h map[string]string) (*http.Response, error) {
	return c.run(http.MethodPut, url, payload, h)
}

// Delete implements schemas.Client.
func (c gofishClient) Delete(url string) (*http.Response, error) {
	return c.run(http.MethodDelete, url, nil, nil)
}

// DeleteWithHeaders implements schemas.Client.
func (c gofishClient) DeleteWithHeaders(url string, h map[string]string) (*http.Response, error) {
	return c.run(http.MethodDelete, url, nil, h)
}

// resource is one Redfish resource as read: its path, its document (in
// the BMC's key order, for the fields sushy reads that gofish's types
// don't carry), its headers and gofish's typed view T of it.
type resource[T any] struct {
	path   string
	raw    *pyjson.Dict
	header http.Header
	obj    *T
}

// fetch reads the resource at path (sushy's ResourceBase refresh) and
// decodes it into gofish's type T.
func fetch[T any, PT schemas.GenericSchemaObjectPointer[T]](ctx context.Context, b *bmc, path string) (*resource[T], error) {
	r, err := b.get(ctx, path)
	if err != nil {
		return nil, err
	}
	obj, err := schemas.DecodeGenericEntity[T, PT](gofishClient{ctx: ctx, b: b}, &http.Response{
		StatusCode: r.status, Header: r.header, Body: io.NopCloser(bytes.NewReader(r.body)),
	})
	if err != nil {
		return nil, &sushyError{kind: kindMalformed, msg: "The resource " + path + " is malformed: " + err.Error()}
	}
	return &resource[T]{path: path, raw: r.dict(), header: r.header, obj: obj}, nil
}
