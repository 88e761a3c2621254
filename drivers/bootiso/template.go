package bootiso

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
)

// 21.4's ironic/common/isolinux_config.template and grub_conf.template,
// byte for byte: the defaults of [DEFAULT]isolinux_config_template and
// grub_config_template point into Python Ironic's tree ($pybasedir), which
// a Go deployment need not have.
//
//go:embed templates/*.template
var templates embed.FS

// loadTemplate reads the template at p; a p that does not exist and ends
// in common/<name of a built-in template> is the built-in one.
func loadTemplate(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err == nil {
		return string(b), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if dir, name := path.Split(p); strings.HasSuffix(dir, "/common/") {
		if b, e := templates.ReadFile("templates/" + name); e == nil {
			return string(b), nil
		}
	}
	return "", err
}

var (
	tmplVar  = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	tmplMark = regexp.MustCompile(`\{[{%#]`)
)

// render renders a template as 21.4's utils.render_template does for the
// boot configuration files: {{ name }} is the variable's value (an
// unknown one is empty, Jinja's Undefined), and one trailing newline is
// dropped (Jinja's keep_trailing_newline is off). Jinja's statements,
// comments and filters are not supported: a template that has them is an
// error, never a silently wrong file.
func render(tmpl string, vars map[string]string) (string, error) {
	out := tmplVar.ReplaceAllStringFunc(tmpl, func(m string) string {
		return vars[tmplVar.FindStringSubmatch(m)[1]]
	})
	if rest := tmplVar.ReplaceAllString(tmpl, ""); tmplMark.MatchString(rest) {
		return "", fmt.Errorf("the template has Jinja constructs other than {{ variable }}, which this builder does not render: %q", tmplMark.FindString(rest))
	}
	return strings.TrimSuffix(out, "\n"), nil
}

// renderFile renders the template at p (see loadTemplate).
func renderFile(p string, vars map[string]string) (string, error) {
	tmpl, err := loadTemplate(p)
	if err != nil {
		return "", err
	}
	return render(tmpl, vars)
}
