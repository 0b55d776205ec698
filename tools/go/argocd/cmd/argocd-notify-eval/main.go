// Command argocd-notify-eval evaluates notification triggers and renders their templates for one
// Application exactly like Argo CD's notifications controller: the ConfigMap is parsed by the
// notifications engine, the expression variables come from Argo CD's own settings package, and
// templates are rendered through the engine's API into a capturing service.
//
//	argocd-notify-eval --configmap CM.yaml --app APP.(json|yaml) [--project PROJ.(json|yaml)] [--trigger NAME ...]
//
// Prints a JSON array with one entry per condition of each trigger. A runtime error in a `when` or
// `oncePer` expression, or in a template, is reported as "error" in the entry and makes the exit
// code 1; what the engine logs at warning level while evaluating an entry is in its "warnings" (the
// exit code stays 0). Usage errors and unreadable input exit with 2.
//
// From Argo CD v3.4 every trigger and template also sees `appProject`, the Application's AppProject
// (spec.project, default "default"): --project gives the one AppProject the lookup finds. Without it,
// or for another name, the lookup fails as for a missing AppProject: Argo CD logs a warning and sets
// `appProject` to {}. Releases before v3.4 have no `appProject` and never look it up.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/argoproj/notifications-engine/pkg/api"
	"github.com/argoproj/notifications-engine/pkg/controller"
	"github.com/argoproj/notifications-engine/pkg/services"
	"github.com/argoproj/notifications-engine/pkg/subscriptions"
	"github.com/argoproj/notifications-engine/pkg/triggers"
	log "github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/notification/expression/shared"
	"github.com/argoproj/argo-cd/v3/util/notification/settings"
)

// captureService is registered like any other notification service; Send keeps the rendered
// notification instead of delivering it.
const captureService = "capture"

type capture struct{ last *services.Notification }

func (c *capture) Send(n services.Notification, _ services.Destination) error {
	c.last = &n
	return nil
}

// noRepoServer stands in for the repo-server behind the `repo.*` expression helpers: this tool
// runs without one, so those helpers fail loudly instead of inventing commit metadata. It also
// answers the AppProject lookups of Argo CD v3.4+ from --project.
type noRepoServer struct{ project *unstructured.Unstructured }

var errNoRepoServer = errors.New("repo.* helpers need an Argo CD repo-server, which argocd-notify-eval does not have")

func (noRepoServer) GetCommitMetadata(context.Context, string, string, string) (*shared.CommitMetadata, error) {
	return nil, errNoRepoServer
}

func (noRepoServer) GetAppDetails(context.Context, *v1alpha1.Application) (*shared.AppDetail, error) {
	return nil, errNoRepoServer
}

// GetAppProject (Argo CD v3.4+) finds only the --project AppProject; any other name is not found,
// which Argo CD logs as a warning before it sets `appProject` to {}.
func (s noRepoServer) GetAppProject(_ context.Context, name string) (*unstructured.Unstructured, error) {
	if s.project == nil || s.project.GetName() != name {
		return nil, fmt.Errorf("appproject %q not found (argocd-notify-eval knows only the --project AppProject)", name)
	}
	return s.project.DeepCopy(), nil
}

// SetAppProjectInformer (Argo CD v3.4+): the controller wires its informer here; there is none.
func (noRepoServer) SetAppProjectInformer(cache.SharedIndexInformer) {}

// logHook collects what the engine logs at error level (the trigger service logs, and then treats as
// false, a failing `when` instead of returning it) and, apart, at warning level.
type logHook struct{ errors, warnings []string }

func (h *logHook) Levels() []log.Level { return []log.Level{log.ErrorLevel, log.WarnLevel} }

func (h *logHook) Fire(e *log.Entry) error {
	if e.Level == log.WarnLevel {
		h.warnings = append(h.warnings, e.Message)
	} else {
		h.errors = append(h.errors, e.Message)
	}
	return nil
}

type destination struct {
	Service   string `json:"service"`
	Recipient string `json:"recipient"`
	// StateKey is the key the controller stores in notified.notifications.argoproj.io.
	StateKey string `json:"stateKey"`
}

type entry struct {
	Trigger      string                     `json:"trigger"`
	Condition    int                        `json:"condition"`
	Key          string                     `json:"key"`
	Triggered    bool                       `json:"triggered"`
	OncePer      string                     `json:"oncePer"`
	Templates    []string                   `json:"templates"`
	Rendered     map[string]json.RawMessage `json:"rendered"`
	Destinations []destination              `json:"destinations"`
	Error        string                     `json:"error,omitempty"`
	Warnings     []string                   `json:"warnings,omitempty"`
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("argocd-notify-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cmPath := fs.String("configmap", "", "argocd-notifications-cm as YAML or JSON")
	appPath := fs.String("app", "", "the Application as YAML or JSON")
	projectPath := fs.String("project", "", "the AppProject `appProject` is looked up in (Argo CD v3.4+), as YAML or JSON")
	var names stringList
	fs.Var(&names, "trigger", "trigger to evaluate (repeatable; default: every trigger in the ConfigMap)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *cmPath == "" || *appPath == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: argocd-notify-eval --configmap CM.yaml --app APP.(json|yaml) [--project PROJ.(json|yaml)] [--trigger NAME ...]")
		return 2
	}
	cm := &corev1.ConfigMap{}
	if err := readInto(*cmPath, cm); err != nil {
		fmt.Fprintf(stderr, "error: --configmap %s: %v\n", *cmPath, err)
		return 2
	}
	app := map[string]any{}
	if err := readInto(*appPath, &app); err != nil {
		fmt.Fprintf(stderr, "error: --app %s: %v\n", *appPath, err)
		return 2
	}
	repo := noRepoServer{}
	if *projectPath != "" {
		project := map[string]any{}
		if err := readInto(*projectPath, &project); err != nil {
			fmt.Fprintf(stderr, "error: --project %s: %v\n", *projectPath, err)
			return 2
		}
		repo.project = &unstructured.Unstructured{Object: project}
		if repo.project.GetKind() != "AppProject" || repo.project.GetName() == "" {
			fmt.Fprintf(stderr, "error: --project %s: not an AppProject with a metadata.name\n", *projectPath)
			return 2
		}
	}

	log.SetOutput(io.Discard)
	hook := &logHook{}
	log.AddHook(hook)

	entries, err := evaluate(cm, app, repo, names, hook)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	out, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, string(out))
	failed := 0
	for _, e := range entries {
		if e.Error != "" {
			failed++
			fmt.Fprintf(stderr, "error: %s condition %d: %s\n", e.Trigger, e.Condition, e.Error)
		}
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// readInto decodes JSON or YAML; numbers become int64 where whole, as in the controller's
// unstructured objects.
func readInto(path string, into any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	js := bytes.TrimSpace(data)
	// JSON goes straight to the JSON decoder: a YAML parser folds U+2028/U+2029 inside strings
	if len(js) == 0 || (js[0] != '{' && js[0] != '[') {
		if js, err = yaml.YAMLToJSON(data); err != nil {
			return err
		}
	}
	if string(js) == "null" {
		return errors.New("empty document")
	}
	return utiljson.Unmarshal(js, into)
}

func evaluate(cm *corev1.ConfigMap, app map[string]any, repo noRepoServer, names []string, hook *logHook) ([]entry, error) {
	secret := &corev1.Secret{}
	cfg, err := api.ParseConfig(cm, secret)
	if err != nil {
		return nil, fmt.Errorf("parse ConfigMap: %w", err)
	}
	factory := settings.GetFactorySettings(repo, "argocd-notifications-secret", "argocd-notifications-cm", false)
	getVars, err := factory.InitGetVars(cfg, cm, secret)
	if err != nil {
		return nil, fmt.Errorf("init variables: %w", err)
	}
	engine, err := api.NewAPI(*cfg, getVars)
	if err != nil {
		return nil, fmt.Errorf("compile triggers/templates: %w", err)
	}
	sink := &capture{}
	engine.AddNotificationService(captureService, sink)

	if len(names) == 0 {
		for name := range cfg.Triggers {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	dests := subscribedDestinations(app, cfg)

	var entries []entry
	for _, name := range names {
		conditions, ok := cfg.Triggers[name]
		if !ok {
			return nil, fmt.Errorf("trigger %q is not in the ConfigMap", name)
		}
		results, err := engine.RunTrigger(name, app)
		if err != nil {
			return nil, err
		}
		for i, cr := range results {
			e := entry{
				Trigger: name, Condition: i, Key: cr.Key, Triggered: cr.Triggered, OncePer: cr.OncePer,
				Templates: cr.Templates, Rendered: map[string]json.RawMessage{}, Destinations: []destination{},
			}
			if e.Templates == nil {
				e.Templates = []string{}
			}
			// Attribute engine errors to this condition by evaluating it alone through the same service;
			// the warnings are those logged while this entry is evaluated and rendered.
			hook.warnings = nil
			e.Error = conditionError(name, conditions[i], getVars(app, services.Destination{}), hook)
			for _, d := range sortedDestinations(dests[name]) {
				e.Destinations = append(e.Destinations, destination{
					Service: d.Service, Recipient: d.Recipient,
					StateKey: controller.StateItemKey(false, "", name, cr, d),
				})
			}
			if cr.Triggered {
				for _, tmpl := range cr.Templates {
					sink.last = nil
					if err := engine.Send(app, []string{tmpl}, services.Destination{Service: captureService}); err != nil {
						e.Error = joinErr(e.Error, fmt.Sprintf("template %s: %v", tmpl, err))
						continue
					}
					raw, err := json.Marshal(sink.last)
					if err != nil {
						return nil, err
					}
					e.Rendered[tmpl] = raw
				}
			}
			e.Warnings = unique(hook.warnings)
			entries = append(entries, e)
		}
	}
	return entries, nil
}

func conditionError(name string, condition triggers.Condition, vars map[string]any, hook *logHook) string {
	single, err := triggers.NewService(map[string][]triggers.Condition{name: {condition}})
	if err != nil {
		return err.Error()
	}
	hook.errors = nil
	if _, err := single.Run(name, vars); err != nil {
		return err.Error()
	}
	return strings.Join(hook.errors, "; ")
}

// unique keeps the first of each message, in order: every variable lookup logs its own warning.
func unique(messages []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range messages {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// subscribedDestinations resolves destinations like the controller: global subscriptions from the
// ConfigMap plus the Application's subscription annotations (notifications-engine pkg/subscriptions).
func subscribedDestinations(app map[string]any, cfg *api.Config) services.Destinations {
	meta, _ := app["metadata"].(map[string]any)
	dests := cfg.GetGlobalDestinations(stringMap(meta["labels"]))
	dests.Merge(subscriptions.NewAnnotations(stringMap(meta["annotations"])).GetDestinations(cfg.DefaultTriggers, cfg.ServiceDefaultTriggers))
	return dests.Dedup()
}

func sortedDestinations(in []services.Destination) []services.Destination {
	out := append([]services.Destination(nil), in...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Service != out[j].Service {
			return out[i].Service < out[j].Service
		}
		return out[i].Recipient < out[j].Recipient
	})
	return out
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, val := range m {
		if s, ok := val.(string); ok {
			out[k] = s
		}
	}
	return out
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
