// Package jsonrpc is Ironic's json-rpc transport ([DEFAULT]rpc_transport =
// json-rpc, ironic_lib.json_rpc in 21.4): JSON-RPC 2.0 over HTTP, one POST
// to / per call. Requests carry the method's keyword arguments in
// "params" with "context" (RequestContext.to_dict()) and "rpc.version";
// objects travel in oslo.versionedobjects' primitive form, so requests are
// dispatched by rpc/oslo's Dispatcher and encoded by its Client.
package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/oslo"
)

// JSON-RPC's error codes, as ironic_lib's server uses them.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// maxBody bounds a request body.
const maxBody = 64 << 20

// Server is the conductor's json-rpc endpoint: an http.Handler serving
// every request with a dispatcher. Authentication (http_basic) wraps it.
type Server struct {
	d     *oslo.Dispatcher
	topic string
	log   *slog.Logger
}

// NewServer serves api as the conductor host. nodes resolves integer node
// ids (db.Store); may be nil.
func NewServer(host string, api rpc.ConductorAPI, nodes oslo.NodeUUIDLookup, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{d: oslo.NewDispatcher(api, nodes), topic: rpc.Topic + "." + host, log: log}
}

// rpcError is a JSON-RPC error object. class is the exception's dotted
// name, sent as data.class for Ironic's exceptions only.
type rpcError struct {
	code    int
	message string
	class   string
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// webob's json_body: no spaces, no charset.
		body := `{"error":{"code":405,"message":"Only POST method can be used"}}`
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = io.WriteString(w, body)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, appendError(nil, nil, &rpcError{code: codeParseError,
			message: "Invalid JSON received by RPC server"}))
		return
	}
	out := s.call(r.Context(), body)
	if out == nil {
		// webob's default content type, on an empty 204.
		w.Header()["Content-Type"] = []string{"text/html; charset=UTF-8"}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	// webob drops the charset of a json_body response.
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// request is a well-formed request's members.
type request struct {
	id     []byte // raw; nil for a notification
	method string
	params rawjson.Object
}

// parse checks the request as ironic_lib's _call does.
func parse(body []byte) (*request, *rpcError) {
	if _, err := pyjson.Load(body); err != nil {
		return nil, &rpcError{code: codeParseError, message: "Invalid JSON received by RPC server"}
	}
	invalid := &rpcError{code: codeInvalidRequest, message: "Invalid request object received by RPC server"}
	o, err := rawjson.SplitObject(body)
	if err != nil {
		return nil, invalid
	}
	req := &request{}
	var version string
	badParams := false
	for _, m := range o {
		switch m.Key {
		case "id":
			if !rawjson.IsNull(m.Raw) {
				req.id = m.Raw
			}
		case "jsonrpc":
			version, _ = rawjson.DecodeString(m.Raw)
		case "method":
			req.method, _ = rawjson.DecodeString(m.Raw)
		case "params":
			if req.params, err = rawjson.SplitObject(m.Raw); err != nil {
				badParams = true
			}
		}
	}
	if version != "2.0" || req.method == "" || badParams {
		return req, invalid
	}
	return req, nil
}

// call serves one request body; nil means no reply (a notification).
func (s *Server) call(ctx context.Context, body []byte) []byte {
	req, perr := parse(body)
	if perr != nil {
		var id []byte
		if req != nil {
			id = req.id
		}
		return appendError(nil, id, perr)
	}
	result, rerr := s.dispatch(ctx, req)
	if req.id == nil {
		if rerr != nil {
			s.log.WarnContext(ctx, "RPC notification failed", "method", req.method, "error", rerr.message)
		}
		return nil
	}
	if rerr != nil {
		return appendError(nil, req.id, rerr)
	}
	out := append([]byte(nil), `{"jsonrpc":"2.0","result":`...)
	if result == nil {
		result = []byte("null")
	}
	// webob's json_body has no spaces; the codec's output has.
	var buf bytes.Buffer
	if err := json.Compact(&buf, result); err != nil {
		return appendError(nil, req.id, &rpcError{code: http.StatusInternalServerError, message: "Cannot encode the result"})
	}
	out = append(out, buf.Bytes()...)
	out = append(out, `,"id":`...)
	out = append(out, normID(req.id)...)
	return append(out, '}')
}

func (s *Server) dispatch(ctx context.Context, req *request) ([]byte, *rpcError) {
	// ironic_lib looks the method up before it reads the params.
	if !s.d.Has(req.method) {
		return nil, &rpcError{code: codeMethodNotFound, message: "Method " + req.method + " was not found"}
	}
	in := &oslo.Incoming{Method: req.method, Version: "1.0", Context: &ironic.RequestContext{}}
	for _, m := range req.params {
		switch m.Key {
		case "rpc.version":
			v, err := rawjson.DecodeString(m.Raw)
			if err != nil {
				return nil, &rpcError{code: codeInvalidParams, message: "rpc.version must be a string"}
			}
			in.Version = v
		case "context":
			rc, err := oslo.DecodeContextDict(m.Raw)
			if err != nil {
				return nil, &rpcError{code: codeInvalidParams, message: "Context must be a dictionary, if provided"}
			}
			in.Context = rc
		default:
			in.Args = append(in.Args, m)
		}
	}
	result, f := s.d.Dispatch(ctx, s.topic, in)
	if f == nil {
		return result, nil
	}
	switch {
	case f.Class == "NoSuchMethod":
		return nil, &rpcError{code: codeMethodNotFound, message: "Method " + req.method + " was not found"}
	case f.IsArgumentError():
		names := make([]string, 0, len(in.Args)+1)
		for _, a := range in.Args {
			names = append(names, a.Key)
		}
		names = append(names, "context")
		return nil, &rpcError{code: codeInvalidParams, message: "Params " + strings.Join(names, ", ") +
			" are invalid for " + req.method + ": " + f.Message}
	case f.Module == oslo.IronicExceptionModule:
		code, ok := f.Code()
		if !ok {
			code = f.Fault().HTTPStatus()
		}
		return nil, &rpcError{code: code, message: f.Message, class: f.Module + "." + f.Class}
	}
	return nil, &rpcError{code: http.StatusInternalServerError, message: f.Message}
}

// normID is the request's id as Python writes back what json.loads read
// (1e2 as 100.0, "\u00e9" for é), without spaces.
func normID(raw []byte) []byte {
	v, err := pyjson.Load(raw)
	if n, ok := v.(json.Number); ok && strings.ContainsAny(string(n), ".eE") {
		if f, ferr := strconv.ParseFloat(string(n), 64); ferr == nil {
			v = f
		}
	}
	if err == nil {
		var out []byte
		if out, err = pyjson.Append(nil, v); err == nil {
			raw = out
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}

// appendError writes the error reply in the order ironic_lib's server
// builds it, as webob's json_body writes it (no spaces).
func appendError(dst, id []byte, e *rpcError) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, normID(id)...)
	}
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.code), 10)
	dst = append(dst, `,"message":`...)
	dst = pyjson.AppendString(dst, e.message)
	if e.class != "" {
		dst = append(dst, `,"data":{"class":`...)
		dst = pyjson.AppendString(dst, e.class)
		dst = append(dst, '}')
	}
	return append(dst, "}}"...)
}
