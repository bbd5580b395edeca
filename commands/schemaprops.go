package commands

import (
	"sort"

	"github.com/tidwall/gjson"
)

// prop is one schema property as the CLI sees it: its flag and how to
// coerce a command-line string into JSON.
type prop struct {
	Name        string
	Types       []string
	ItemTypes   []string
	Description string
	Enum        []string
	Required    bool
}

func (p prop) is(t string) bool {
	for _, x := range p.Types {
		if x == t {
			return true
		}
	}
	return false
}

// schemaProps reads the top-level properties of an object schema, in name
// order so help is stable.
func schemaProps(schema string) []prop {
	root := gjson.Parse(schema)
	req := map[string]bool{}
	for _, r := range root.Get("required").Array() {
		req[r.String()] = true
	}
	var out []prop
	root.Get("properties").ForEach(func(k, v gjson.Result) bool {
		p := prop{Name: k.String(), Description: v.Get("description").String(), Required: req[k.String()]}
		p.Types = typesOf(v)
		p.ItemTypes = typesOf(v.Get("items"))
		for _, e := range v.Get("enum").Array() {
			p.Enum = append(p.Enum, e.String())
		}
		out = append(out, p)
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func typesOf(v gjson.Result) []string {
	t := v.Get("type")
	if t.IsArray() {
		var out []string
		for _, x := range t.Array() {
			out = append(out, x.String())
		}
		return out
	}
	if t.Exists() {
		return []string{t.String()}
	}
	var out []string
	for _, alt := range append(v.Get("anyOf").Array(), v.Get("oneOf").Array()...) {
		out = append(out, typesOf(alt)...)
	}
	if len(v.Get("enum").Array()) > 0 && len(out) == 0 {
		out = []string{"string"}
	}
	return out
}
