package browser

import (
	"strings"
	"sync"

	"github.com/go-rod/rod/lib/proto"
)

// Roles, names and states as the original's engine gives them, from
// Chromium's accessibility tree mapped to ARIA.

// nameFromContentRoles take their accessible name from their content when
// no attribute names them.
var nameFromContentRoles = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, r := range strings.Fields(`button cell checkbox columnheader gridcell heading link menuitem menuitemcheckbox
		menuitemradio option radio row rowheader switch tab tooltip treeitem`) {
		m[r] = true
	}
	return m
}) // built on first use, not in every process's init

// namelessRoles take no accessible name (accname: naming prohibited).
var namelessRoles = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, r := range strings.Fields(`caption code definition deletion emphasis generic insertion mark paragraph
		presentation strong subscript suggestion superscript term time`) {
		m[r] = true
	}
	return m
}) // built on first use, not in every process's init

// nameSource is the kind of source Chromium took the name from
// ("contents", "attribute", "relatedElement", ...).
func nameSource(ax *proto.AccessibilityAXNode) string {
	if ax.Name == nil {
		return ""
	}
	for _, s := range ax.Name.Sources {
		if s.Value != nil && !s.Superseded {
			return string(s.Type)
		}
	}
	return ""
}

// expandedRoles are the roles the original prints [expanded] for.
var expandedRoles = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, r := range strings.Fields(`application button checkbox combobox gridcell link listbox menuitem row rowheader
		tab treeitem columnheader menuitemcheckbox menuitemradio switch`) {
		m[r] = true
	}
	return m
}) // built on first use, not in every process's init

// ariaRole maps Chromium's role of a rendered element to the ARIA role the
// snapshot prints; "" means no node (its content goes to the parent).
// Chromium's internal roles are CamelCase; the element behind one has no
// ARIA role, so it is a generic.
func ariaRole(ax *proto.AccessibilityAXNode, di *domInfo, name string) string {
	if ax.Ignored {
		for _, r := range ax.IgnoredReasons {
			if r.Name == "presentationalRole" {
				return ""
			}
		}
		for _, r := range ax.IgnoredReasons {
			if r.Name == "ariaHiddenElement" || r.Name == "ariaHiddenSubtree" {
				return tagRole(di) // Chromium drops the role of what it hides
			}
		}
		switch di.tag { // table sections Chromium leaves out of its tree
		case "thead", "tbody", "tfoot":
			return "rowgroup"
		}
		return "generic"
	}
	r := axStr(ax.Role)
	switch r {
	case "none", "presentation", "MenuListPopup":
		return ""
	case "image", "SvgRoot":
		return "img"
	case "Iframe", "IframePresentational":
		return "iframe"
	case "MenuListOption":
		return "option"
	case "form":
		if name == "" {
			return "generic"
		}
	case "sectionheader", "sectionfooter":
		return "generic"
	}
	if r == "" || (r[0] >= 'A' && r[0] <= 'Z') {
		return "generic"
	}
	return r
}

func axHidden(ax *proto.AccessibilityAXNode) bool {
	if ax == nil {
		return true
	}
	if !ax.Ignored {
		return false
	}
	for _, r := range ax.IgnoredReasons {
		if hiddenReasons()[string(r.Name)] {
			return true
		}
	}
	return false
}

func axProp(ax *proto.AccessibilityAXNode, name string) string {
	for _, p := range ax.Properties {
		if string(p.Name) == name {
			return axStr(p.Value)
		}
	}
	return ""
}

// tagRole is the ARIA role of an element by its markup alone (ARIA in
// HTML, the common elements), for elements Chromium's tree keeps no role
// for (aria-hidden ones the original still shows).
func tagRole(di *domInfo) string {
	if r := strings.Fields(di.attrs["role"]); len(r) > 0 {
		if r[0] == "none" || r[0] == "presentation" {
			return ""
		}
		return r[0]
	}
	switch di.tag {
	case "a", "area":
		if _, ok := di.attrs["href"]; ok {
			return "link"
		}
	case "input":
		switch strings.ToLower(di.attrs["type"]) {
		case "button", "submit", "reset", "image":
			return "button"
		case "checkbox":
			return "checkbox"
		case "radio":
			return "radio"
		case "range":
			return "slider"
		case "number":
			return "spinbutton"
		case "search":
			return "searchbox"
		case "hidden", "file", "color", "date", "datetime-local", "month", "time", "week":
			return "generic"
		}
		return "textbox"
	case "h1", "h2", "h3", "h4", "h5", "h6":
		return "heading"
	case "img":
		if di.attrs["alt"] == "" {
			if _, ok := di.attrs["alt"]; ok {
				return ""
			}
		}
		return "img"
	case "select":
		if _, multi := di.attrs["multiple"]; multi {
			return "listbox"
		}
		return "combobox"
	case "thead", "tbody", "tfoot":
		return "rowgroup"
	}
	if r, ok := map[string]string{"button": "button", "p": "paragraph", "ul": "list", "ol": "list", "menu": "list", "li": "listitem",
		"textarea": "textbox", "nav": "navigation", "main": "main", "table": "table", "tr": "row", "td": "cell", "th": "columnheader",
		"article": "article", "aside": "complementary", "hr": "separator", "dt": "term", "dd": "definition", "strong": "strong",
		"em": "emphasis", "code": "code", "blockquote": "blockquote", "figure": "figure", "option": "option", "progress": "progressbar",
		"dialog": "dialog", "fieldset": "group", "details": "group", "caption": "caption", "output": "status"}[di.tag]; ok {
		return r
	}
	return "generic"
}
