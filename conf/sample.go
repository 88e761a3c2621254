package conf

import (
	"bufio"
	"io"
	"strings"

	"github.com/goironic/ironic/option"
)

// sampleWidth is the width the sample's comment lines are wrapped to.
const sampleWidth = 70

// WriteSample writes the sample configuration file
// (etc/ironic/ironic.conf.sample) generated from the option table, in
// the layout of oslo-config-generator: DEFAULT first, then the sections
// alphabetically; inside a section the options grouped by the library
// that defines them; every option commented out with its help text and
// its default. Options not among implemented (the options this
// service's components bind, as option.Binder.Read returns them) say
// that they are not implemented.
func WriteSample(w io.Writer, implemented []string) error {
	impl := make(map[string]bool, len(implemented))
	for _, k := range implemented {
		impl[k] = true
	}
	bw := bufio.NewWriter(w)
	opts := option.Table()
	for i, section := range option.Sections(opts) {
		if i > 0 {
			bw.WriteString("\n\n")
		}
		bw.WriteString("[" + section + "]\n")
		namespace := ""
		for _, o := range opts {
			if o.Section != section {
				continue
			}
			if o.Namespace != namespace {
				namespace = o.Namespace
				bw.WriteString("\n#\n# From " + namespace + "\n#\n")
			}
			bw.WriteString("\n")
			writeSampleOpt(bw, &o, impl[o.Key()])
		}
	}
	return bw.Flush()
}

func writeSampleOpt(w *bufio.Writer, o *option.Opt, implemented bool) {
	help := o.Help
	if o.DeprecatedForRemoval && !strings.HasPrefix(help, "DEPRECATED") {
		help = "DEPRECATED: " + help
	}
	help += " (" + o.Type.String() + ")"
	writeWrapped(w, help)
	if len(o.Choices) > 0 {
		w.WriteString("# Possible values:\n")
		for _, c := range o.Choices {
			v := c.Value
			if v == "" {
				v = "''"
			}
			desc := c.Description
			if desc == "" {
				desc = "<No description provided>"
			}
			writeWrapped(w, v+" - "+desc)
		}
	}
	if o.Min != "" {
		w.WriteString("# Minimum value: " + o.Min + "\n")
	}
	if o.Max != "" {
		w.WriteString("# Maximum value: " + o.Max + "\n")
	}
	for _, d := range o.DeprecatedNames {
		section, name, _ := strings.Cut(d, ".")
		w.WriteString("# Deprecated group/name - [" + section + "]/" + name + "\n")
	}
	if o.Advanced {
		w.WriteString("# Advanced Option: intended for advanced users and not used\n" +
			"# by the majority of users, and might have a significant\n" +
			"# effect on stability and/or performance.\n")
	}
	if o.DeprecatedForRemoval {
		if o.DeprecatedSince != "" {
			w.WriteString("# This option is deprecated for removal since " + o.DeprecatedSince + ".\n")
		} else {
			w.WriteString("# This option is deprecated for removal.\n")
		}
		w.WriteString("# Its value may be silently ignored in the future.\n")
		if o.DeprecatedReason != "" {
			writeWrapped(w, "Reason: "+o.DeprecatedReason)
		}
	}
	if !implemented {
		w.WriteString("# Not implemented by this service: accepted and ignored.\n")
	}
	for _, d := range sampleDefaults(o) {
		if d == "" {
			w.WriteString("#" + o.Name + " =\n")
		} else {
			w.WriteString("#" + o.Name + " = " + d + "\n")
		}
	}
}

// sampleDefaults returns the default as the sample shows it: one entry,
// or one per value for multi-valued options.
func sampleDefaults(o *option.Opt) []string {
	d := o.Default
	switch {
	case o.SampleDefault != "":
		d = o.SampleDefault
	case o.NoDefault && o.Type != option.MultiString:
		return []string{"<None>"}
	}
	if o.Type == option.MultiString {
		if d == "" {
			return []string{""}
		}
		return strings.Split(d, ",")
	}
	if d != strings.TrimSpace(d) {
		d = `"` + d + `"`
	}
	return []string{d}
}

// writeWrapped writes text as "# " comment lines no wider than
// sampleWidth, keeping the text's own line breaks; a word longer than
// the width gets a line of its own.
func writeWrapped(w *bufio.Writer, text string) {
	for _, para := range strings.Split(text, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			w.WriteString("#\n")
			continue
		}
		line := "#"
		for _, word := range words {
			if len(line) > 1 && len(line)+1+len(word) > sampleWidth {
				w.WriteString(line + "\n")
				line = "#"
			}
			line += " " + word
		}
		w.WriteString(line + "\n")
	}
}
