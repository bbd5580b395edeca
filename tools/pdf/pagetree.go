package pdf

import (
	"context"
	"fmt"

	lpdf "github.com/ledongthuc/pdf"
)

// findPage is page num (1-based) of the page tree under root, found as the
// library's Reader.Page does (by each node's /Count), but bounded: a Pages
// node that lists itself or an ancestor (the library then loops forever)
// is an error, as is a tree deeper than maxTreeDepth, and the walk honours
// ctx. A page the tree does not have is a null Page.
func findPage(ctx context.Context, root lpdf.Value, num int) (lpdf.Page, error) {
	num-- // 0-based
	node := root
	var ancestors []string // each node's own text: a repeat is a cycle
	for depth := 0; node.Key("Type").Name() == "Pages"; depth++ {
		if depth >= maxTreeDepth {
			return lpdf.Page{}, fmt.Errorf("page tree deeper than %d levels", maxTreeDepth)
		}
		self := node.String()
		for _, a := range ancestors {
			if a == self {
				return lpdf.Page{}, fmt.Errorf("page tree has a cycle (a Pages node is its own descendant)")
			}
		}
		ancestors = append(ancestors, self)
		if int(node.Key("Count").Int64()) < num {
			return lpdf.Page{}, nil
		}
		kids := node.Key("Kids")
		next := lpdf.Value{}
		for i := 0; i < kids.Len() && next.IsNull(); i++ {
			if err := ctx.Err(); err != nil {
				return lpdf.Page{}, err
			}
			kid := kids.Index(i)
			switch kid.Key("Type").Name() {
			case "Pages":
				if c := int(kid.Key("Count").Int64()); num < c {
					next = kid
				} else {
					num -= c
				}
			case "Page":
				if num == 0 {
					return lpdf.Page{V: kid}, nil
				}
				num--
			}
		}
		if next.IsNull() {
			return lpdf.Page{}, nil
		}
		node = next
	}
	return lpdf.Page{}, nil
}

// pageFonts are the fonts of the page's resources, inherited through
// /Parent as the library's Page.Resources finds them, but within
// maxTreeDepth: a /Parent chain that loops made that lookup spin forever.
func pageFonts(pg lpdf.Page) (map[string]*lpdf.Font, error) {
	res := lpdf.Value{}
	v := pg.V
	for depth := 0; !v.IsNull(); depth++ {
		if depth >= maxTreeDepth {
			return nil, fmt.Errorf("page tree has a cycle or is deeper than %d levels (/Parent chain)", maxTreeDepth)
		}
		if r := v.Key("Resources"); !r.IsNull() {
			res = r
			break
		}
		v = v.Key("Parent")
	}
	fonts := map[string]*lpdf.Font{}
	dict := res.Key("Font")
	for _, name := range dict.Keys() {
		fonts[name] = &lpdf.Font{V: dict.Key(name)}
	}
	return fonts, nil
}
