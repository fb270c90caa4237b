// Command dashboard-check checks Grafana dashboard JSON files against Grafana's dashboard schema as
// the Grafana Foundation SDK (Apache-2.0) generates it from Grafana's own schema: a strict unmarshal
// (unknown fields, wrong types and missing required fields fail, and each panel's options and
// field config are checked against its panel type's schema), the schema's constraints
// (Validate), and what the schema cannot say: every panel type and data source is a known one,
// every query is a Prometheus query with an expression, and every $variable a query uses is
// defined by the dashboard or is one of Grafana's built-ins.
//
// Usage: dashboard-check FILE.json...   (exit 1 naming each problem)
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
)

var (
	variableRef = regexp.MustCompile(`\$\{?(\w+)`)
	builtins    = map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: dashboard-check FILE.json...")
		os.Exit(2)
	}
	plugins.RegisterDefaultPlugins()
	failed := false
	for _, file := range os.Args[1:] {
		problems := check(file)
		for _, p := range problems {
			fmt.Fprintf(os.Stderr, "%s: %s\n", file, p)
		}
		if len(problems) > 0 {
			failed = true
		} else {
			fmt.Printf("%s: valid\n", file)
		}
	}
	if failed {
		os.Exit(1)
	}
}

func check(file string) []string {
	raw, err := os.ReadFile(file)
	if err != nil {
		return []string{err.Error()}
	}
	var d dashboard.Dashboard
	if err := failure(d.UnmarshalJSONStrict(raw)); err != nil {
		return []string{"not a Grafana dashboard: " + err.Error()}
	}
	if err := failure(d.Validate()); err != nil {
		return []string{"violates the dashboard schema: " + err.Error()}
	}
	// The SDK drops a panel whose strict unmarshal succeeded (its empty error list is a non-nil error), so the
	// panels and their queries are read again one by one.
	var layout struct {
		Panels []json.RawMessage `json:"panels"`
	}
	if err := json.Unmarshal(raw, &layout); err != nil {
		return []string{err.Error()}
	}
	defined := map[string]bool{}
	for _, v := range d.Templating.List {
		defined[v.Name] = true
	}
	c := checker{defined: defined}
	for i, p := range layout.Panels {
		c.panel(fmt.Sprintf("panels[%d]", i), p)
	}
	if c.queries == 0 {
		c.problems = append(c.problems, "no Prometheus query at all")
	}
	return c.problems
}

type checker struct {
	defined  map[string]bool
	queries  int
	problems []string
}

func (c *checker) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *checker) panel(where string, raw json.RawMessage) {
	var shape struct {
		Type    string            `json:"type"`
		Title   string            `json:"title"`
		Panels  []json.RawMessage `json:"panels"`
		Targets []json.RawMessage `json:"targets"`
	}
	if err := json.Unmarshal(raw, &shape); err != nil {
		c.problem("%s: %v", where, err)
		return
	}
	where = fmt.Sprintf("%s (%q)", where, shape.Title)
	if shape.Type == "row" {
		for i, nested := range shape.Panels {
			c.panel(fmt.Sprintf("%s.panels[%d]", where, i), nested)
		}
		return
	}
	var p dashboard.Panel
	if err := failure(p.UnmarshalJSONStrict(raw)); err != nil {
		c.problem("%s: %v", where, err)
	}
	if _, known := cog.ConfigForPanelcfgVariant(shape.Type); !known {
		c.problem("%s: unknown panel type %q", where, shape.Type)
	}
	if len(shape.Targets) == 0 {
		c.problem("%s: no query", where)
	}
	for i, t := range shape.Targets {
		var q prometheus.Dataquery
		if err := failure(q.UnmarshalJSONStrict(t)); err != nil {
			c.problem("%s.targets[%d]: not a Prometheus query: %v", where, i, err)
			continue
		}
		if q.Datasource == nil || q.Datasource.Type == nil || *q.Datasource.Type != "prometheus" || q.Expr == "" {
			c.problem("%s.targets[%d]: needs a prometheus datasource and an expr", where, i)
			continue
		}
		c.queries++
		for _, m := range variableRef.FindAllStringSubmatch(q.Expr, -1) {
			if !c.defined[m[1]] && !builtins[m[1]] {
				c.problem("%s.targets[%d]: $%s is not a variable of the dashboard", where, i, m[1])
			}
		}
	}
}

// failure is nil for no error: the SDK returns its error list as an error even when it is empty.
func failure(err error) error {
	if errs, ok := err.(cog.BuildErrors); ok && len(errs) == 0 {
		return nil
	}
	return err
}
