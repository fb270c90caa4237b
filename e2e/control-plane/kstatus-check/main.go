// Command kstatus-check prints the health Flux reads from a live object, as its kustomize-controller
// and helm-controller health checks compute it once they have read the object:
//   - by default, kstatus through Flux's own fork of cli-utils (github.com/fluxcd/cli-utils, the one
//     fluxcd/pkg/ssa uses);
//   - with --exprs FILE, a YAML list of entries as a Kustomization's spec.healthCheckExprs holds them
//     (Flux 2.5 and later): the entry for the object's apiVersion and kind, evaluated by Flux's own
//     CEL status evaluator (github.com/fluxcd/pkg/runtime/cel).
//
// Usage: kubectl get tj NAME -o json | kstatus-check [--exprs FILE]
// Prints STATUS<TAB>MESSAGE; exit 1 on bad input.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/pkg/apis/kustomize"
	"github.com/fluxcd/pkg/runtime/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func main() {
	exprsFile := flag.String("exprs", "", "a YAML list of healthCheckExprs entries (Flux's CEL health checks)")
	flag.Parse()
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(fmt.Errorf("reading stdin: %w", err))
	}
	var obj unstructured.Unstructured
	if err := obj.UnmarshalJSON(data); err != nil {
		fail(fmt.Errorf("stdin is not one Kubernetes object as JSON: %w", err))
	}
	var res *status.Result
	if *exprsFile == "" {
		res, err = status.Compute(&obj)
	} else {
		res, err = evaluate(*exprsFile, &obj)
	}
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s\t%s\n", res.Status, res.Message)
}

func evaluate(file string, obj *unstructured.Unstructured) (*status.Result, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var checks []kustomize.CustomHealthCheck
	if err := yaml.UnmarshalStrict(raw, &checks); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, c := range checks {
		if c.APIVersion != obj.GetAPIVersion() || c.Kind != obj.GetKind() {
			continue
		}
		evaluator, err := cel.NewStatusEvaluator(&c.HealthCheckExpressions)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return evaluator.Evaluate(context.Background(), obj)
	}
	return nil, fmt.Errorf("%s has no entry for %s %s", file, obj.GetAPIVersion(), obj.GetKind())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kstatus-check:", err)
	os.Exit(1)
}
