package differential

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/google/go-cmp/cmp"
)

// DefaultMaxString is the length above which strings are stored as a digest.
const DefaultMaxString = 1024

// Replayer runs a corpus against one endpoint and either records goldens or
// compares the answers with them.
type Replayer struct {
	Runner     *Runner
	Normalizer Normalizer
	// GoldenDir holds one <id>.json per entry.
	GoldenDir string
	// Record writes goldens instead of comparing.
	Record bool
	// Deviations, when comparing, replace the golden of their entries; nil
	// compares every entry with its golden (as against the reference).
	Deviations map[string]Deviation
	// MaxString is passed to Shorten; 0 means DefaultMaxString.
	MaxString int
	// DumpDir, when set, receives the normalised answer of every entry as
	// <id>.json in golden format (for writing deviations or debugging).
	DumpDir string
}

// Result is what happened to one entry.
type Result struct {
	Entry Entry
	// Got is the normalised answer, UUIDs replaced.
	Got Response
	// Want is the golden (or deviation) it was compared with.
	Want Response
	// Deviation is set when Want came from a deviation.
	Deviation *Deviation
	// Diff is cmp.Diff(Want, Got); empty when they are equal or when recording.
	Diff string
	// Style lists departures from Python's JSON style in the raw body.
	Style []string
	// Err is set when the entry could not be compared (no golden).
	Err error
}

// Run sends every entry in order. It stops early only when ctx ends; a
// failed request is recorded in its Result and the run goes on.
func (p *Replayer) Run(ctx context.Context, c Corpus) ([]Result, error) {
	maxString := p.MaxString
	if maxString == 0 {
		maxString = DefaultMaxString
	}
	uuids := NewUUIDMap()
	if p.DumpDir != "" {
		if err := os.MkdirAll(p.DumpDir, 0o755); err != nil {
			return nil, err
		}
	}
	if p.Record {
		if err := os.MkdirAll(p.GoldenDir, 0o755); err != nil {
			return nil, err
		}
	}
	results := make([]Result, 0, len(c))
	for _, e := range c {
		if err := ctx.Err(); err != nil {
			return results, fmt.Errorf("stopped before %s: %w", e.ID, err)
		}
		ex := p.Runner.Do(ctx, e)
		got, style := p.Normalizer.Normalize(ex)
		res := Result{Entry: e, Style: style}
		path := GoldenPath(p.GoldenDir, e.ID)
		if p.Record {
			uuids.Assign(&got)
			Shorten(&got, maxString)
			res.Got = got
			if ex.Err != nil {
				res.Err = fmt.Errorf("not recorded: %w", ex.Err)
			} else if err := WriteGolden(path, Golden{ID: e.ID, Request: e.RequestLine(), Response: got}); err != nil {
				return results, err
			}
		} else {
			g, err := ReadGolden(path)
			switch {
			case errors.Is(err, os.ErrNotExist):
				res.Err = fmt.Errorf("no golden %s: record it with -record -target <reference>", path)
			case err != nil:
				res.Err = err
			}
			want := g.Response
			if d, ok := p.Deviations[e.ID]; ok {
				var source *Response
				if d.BodyFrom != "" {
					src, err := ReadGolden(GoldenPath(p.GoldenDir, d.BodyFrom))
					if err != nil && res.Err == nil {
						res.Err = fmt.Errorf("deviation body_from: %w", err)
					}
					source = &src.Response
				}
				want = d.Apply(want, source)
				res.Deviation = &d
			}
			if res.Err == nil {
				uuids.Learn(want, got)
			}
			uuids.Render(&got)
			Shorten(&got, maxString)
			res.Got, res.Want = got, want
			if res.Err == nil {
				res.Diff = cmp.Diff(want, got)
			}
		}
		if p.DumpDir != "" {
			if err := WriteGolden(GoldenPath(p.DumpDir, e.ID), Golden{ID: e.ID, Request: e.RequestLine(), Response: res.Got}); err != nil {
				return results, err
			}
		}
		results = append(results, res)
	}
	return results, nil
}
