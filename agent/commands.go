package agent

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/goironic/ironic/internal/pyjson"
)

// Command statuses (IPA's AgentCommandStatus).
const (
	statusRunning   = "RUNNING"
	statusSucceeded = "SUCCEEDED"
	statusFailed    = "FAILED"
)

// result is IPA's BaseCommandResult as serialised: id, command_name,
// command_status, command_error, command_result, in that order (IPA does
// not serialise command_params).
type result struct {
	mu     sync.Mutex
	id     string
	name   string
	params map[string]any
	status string
	err    *restError
	result any
	done   chan struct{}
}

// AppendPyJSON writes the result as IPA's serialize() and json.dumps do.
func (r *result) AppendPyJSON(dst []byte) ([]byte, error) {
	r.mu.Lock()
	var cmdErr any
	if r.err != nil {
		cmdErr = pyjson.Object{{Key: "type", Value: r.err.Type}, {Key: "code", Value: r.err.Code},
			{Key: "message", Value: r.err.Message}, {Key: "details", Value: r.err.Details}}
	}
	obj := pyjson.Object{{Key: "id", Value: r.id}, {Key: "command_name", Value: r.name}, {Key: "command_status", Value: r.status},
		{Key: "command_error", Value: cmdErr}, {Key: "command_result", Value: r.result}}
	r.mu.Unlock()
	return pyjson.Append(dst, obj)
}

func (r *result) isDone() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status != statusRunning
}

func (r *result) finish(out any, err error) {
	r.mu.Lock()
	if err != nil {
		var re *restError
		if !errors.As(err, &re) {
			re = errCommandExecution(err.Error())
		}
		r.status, r.err = statusFailed, re
	} else {
		// A string result is wrapped as IPA's AsyncCommandResult does.
		if s, ok := out.(string); ok {
			out = map[string]any{"result": r.name + ": " + s}
		}
		r.status, r.result = statusSucceeded, out
	}
	r.mu.Unlock()
	close(r.done)
}

// command is one of an extension's commands: synchronous (IPA's
// @sync_command) or asynchronous (@async_command, run in the
// background; one at a time).
type command struct {
	async bool
	// validate runs before an asynchronous command starts; its error
	// fails the request as IPA's validators do.
	validate func(params map[string]any) error
	run      func(ctx context.Context, params map[string]any) (any, error)
}

// commands is IPA's ExecuteCommandMixin: the extensions' commands and
// the results so far, oldest first.
type commands struct {
	a       *Agent
	table   map[string]map[string]command
	mu      sync.Mutex
	results []*result
	byID    map[string]*result
	running sync.WaitGroup
}

func newCommands(a *Agent) *commands {
	return &commands{a: a, table: extensions(a), byID: map[string]*result{}}
}

func (c *commands) list() []*result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*result{}, c.results...)
}

func (c *commands) get(id string) (*result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byID[id]
	if !ok {
		return nil, errNotFound("Command Result", id)
	}
	return r, nil
}

func (c *commands) wait() { c.running.Wait() }

// execute is execute_command. Its error (a *restError) is the API's
// refusal: busy, an unknown extension or command, bad parameters.
func (c *commands) execute(ctx context.Context, name string, params map[string]any) (*result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ext, cmdName, ok := strings.Cut(name, ".")
	if !ok {
		return nil, errInvalidCommand("Command name must be of the form <extension>.<name>")
	}
	if n := len(c.results); n > 0 && !c.results[n-1].isDone() {
		last := c.results[n-1]
		c.a.log.ErrorContext(ctx, "agent is busy", "command", name, "running", last.name)
		return nil, errAgentIsBusy(last.name)
	}
	cmds, ok := c.table[ext]
	if !ok {
		return nil, errNotFound("Extension", ext)
	}
	cmd, ok := cmds[cmdName]
	if !ok {
		return nil, errInvalidCommand("Unknown command: " + cmdName)
	}
	r := &result{name: cmdName, params: params, status: statusRunning, done: make(chan struct{})}
	if cmd.validate != nil {
		if err := cmd.validate(params); err != nil {
			var re *restError
			if errors.As(err, &re) && re.Code == 400 {
				return nil, re
			}
			// Another exception: IPA records a failed synchronous
			// result under the full command name.
			r.name = name
			r.finish(nil, err)
			c.add(r)
			return r, nil
		}
	}
	if !cmd.async {
		out, err := cmd.run(ctx, params)
		if err != nil {
			var re *restError
			if errors.As(err, &re) && re.Code == 400 {
				return nil, re
			}
			r.name = name
		}
		r.finish(out, err)
		c.add(r)
		c.a.log.InfoContext(ctx, "synchronous command completed", "command", name, "status", r.status)
		return r, nil
	}
	c.add(r)
	c.running.Add(1)
	bg := context.WithoutCancel(ctx)
	go func() {
		defer c.running.Done()
		out, err := cmd.run(bg, params)
		r.finish(out, err)
		c.a.log.InfoContext(bg, "asynchronous command completed", "command", name, "status", r.status, "error", err)
		c.a.forceHeartbeat()
	}()
	c.a.log.InfoContext(ctx, "asynchronous command started", "command", name)
	return r, nil
}

func (c *commands) add(r *result) {
	r.id = c.a.cfg.NewID()
	c.results = append(c.results, r)
	c.byID[r.id] = r
}
